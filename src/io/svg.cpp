#include "io/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "io/colormap.hpp"
#include "io/labels.hpp"

namespace attn::io {

namespace {

constexpr double kFontSize = 11;
constexpr double kCharWidth = 6.5;  // an average glyph at kFontSize, for layout estimates
constexpr double kTitleHeight = 30;

// Coordinates with at most 2 decimals and no trailing zeros: "12", "12.5", "12.25".
std::string num(double x) {
    std::string s = fmt::format("{:.2f}", x);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    if (s == "-0") s = "0";
    return s;
}

// A value on a colour bar or an axis: 4 significant digits, "-0" as "0".
std::string value_label(double v) {
    std::string s = fmt::format("{:.4g}", v);
    return s == "-0" ? "0" : s;
}

double text_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return double(n) * kCharWidth;
}

// The smallest of 1, 2, 5, 10, 20, 50, ... that is >= need.
std::size_t nice_step(double need) {
    for (std::size_t p = 1;; p *= 10)
        for (std::size_t m : {1, 2, 5})
            if (double(m * p) >= need) return m * p;
}

// A "nice" real step near span / target: 1, 2, 2.5 or 5 times a power of ten.
double nice_real_step(double span, int target) {
    const double raw = span / target;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

bool is_number(const std::string& s) {
    if (s.empty()) return false;
    for (std::size_t k = 0; k < s.size(); ++k)
        if (!(std::isdigit(static_cast<unsigned char>(s[k])) || (k == 0 && s[k] == '-')))
            return false;
    return true;
}

std::string row_axis_name(const ArrayInfo& info) {
    std::string names;
    for (const auto& l : info.labels) names += (names.empty() ? "" : ", ") + l.name;
    return names.empty() ? "Row" : "Row (" + names + ")";
}

void text(std::string& svg, double x, double y, const std::string& s, const char* anchor,
          const std::string& extra = "") {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", num(x), num(y),
                       anchor, extra, xml_escape(s));
}

std::string header(double width, double height, const std::string& title) {
    std::string svg = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
        "font-size=\"{2}\">\n"
        "<title>{3}</title>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
        num(width), num(height), num(kFontSize), xml_escape(title));
    svg +=
        fmt::format("<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n",
                    num(width / 2), xml_escape(title));
    return svg;
}

// d2l.plot's styles for the first four curves ('-', 'm--', 'g-.', 'r:'), then
// matplotlib's tab10 colours, solid.
struct LineStyle {
    const char* color;
    const char* dash;  // "" = solid
};
constexpr std::array<LineStyle, 10> kLineStyles{{
    {"#1f77b4", ""},
    {"#bf00bf", "6,3"},
    {"#008000", "6,2.5,1.5,2.5"},
    {"#ff0000", "1.5,2.5"},
    {"#ff7f0e", ""},
    {"#2ca02c", ""},
    {"#d62728", ""},
    {"#9467bd", ""},
    {"#8c564b", ""},
    {"#17becf", ""},
}};

}  // namespace

std::string xml_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                // Control characters are not allowed in XML 1.0: shown as '?'.
                out += (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') ? '?' : c;
        }
    }
    return out;
}

BlockAverage svg_grid(std::size_t rows, std::size_t cols) {
    const auto side = static_cast<std::size_t>(std::sqrt(double(kMaxSvgCells)));
    if (rows * cols <= kMaxSvgCells) return {rows, cols, rows, cols};
    if (rows <= side) return {rows, cols, rows, kMaxSvgCells / rows};
    if (cols <= side) return {rows, cols, kMaxSvgCells / cols, cols};
    return {rows, cols, side, side};
}

SvgWriter::SvgWriter(OutputFile& out, const PictureStyle& style) : out_(out), style_(style) {}

void SvgWriter::begin(const ArrayInfo& info) {
    if (started_)
        throw std::invalid_argument("svg holds one array; use -o DIR/ for one svg per array");
    started_ = true;
    info_ = info;
    const std::size_t n = info_.rows(), d = info_.columns();
    if (style_.plot == Plot::lines) {
        if (d > kMaxSvgLines)
            throw std::invalid_argument(fmt::format(
                "--plot lines: {} has {} columns, at most {} curves are drawn; select columns "
                "(e.g. --columns 6:10)",
                info_.name, d, kMaxSvgLines));
        grid_ = BlockAverage(n, d, kMaxSvgPoints, d);
    } else {
        grid_ = svg_grid(n, d);
    }
}

void SvgWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    grid_.add(first_row, values, n_rows, info_.dtype == Dtype::float32);
}

void SvgWriter::end() {
    out_.write(style_.plot == Plot::lines ? lines() : heatmap());
}

std::string SvgWriter::title() const {
    std::string shape;
    for (std::size_t k = 0; k < info_.shape.size(); ++k)
        shape += (k ? " x " : "") + std::to_string(info_.shape[k]);
    std::string t = fmt::format("{} ({}, {})", info_.title.empty() ? info_.name : info_.title,
                                shape, dtype_name(info_.dtype));
    if (grid_.averaged())
        t += style_.plot == Plot::lines ? fmt::format(", mean of every {} rows", grid_.block_rows())
                                        : fmt::format(", averaged in {} x {} blocks",
                                                      grid_.block_rows(), grid_.block_cols());
    return t;
}

std::string SvgWriter::heatmap() const {
    const std::size_t R = grid_.rows(), C = grid_.cols();
    const std::size_t br = grid_.block_rows(), bc = grid_.block_cols();
    const auto [lo, hi] = grid_.finite_range();
    const Colormap cmap = style_.cmap.value_or(default_colormap(lo, hi));
    const auto [bar_lo, bar_hi] = colormap_range(cmap, lo, hi);

    // Cell sizes: the plot is at most 560 x 560, a cell at most 28 x 28.
    // Rounded down to 1/100 so that the cells' transform (2 decimals) is exact.
    auto cell = [](std::size_t k) {
        return std::floor(std::min(28.0, 560.0 / double(std::max<std::size_t>(k, 1))) * 100) / 100;
    };
    const double cw = cell(C), ch = cell(R);
    const double W = cw * double(C), H = ch * double(R);

    // Tick labels: every step-th grid cell, step 1, 2, 5, 10, ... so that labels do not touch.
    std::vector<std::string> xlabels(C), ylabels(R);
    bool numeric_x = true;
    double xlabel_w = 0, ylabel_w = 0;
    for (std::size_t j = 0; j < C; ++j) {
        xlabels[j] = column_label(info_, j * bc);
        numeric_x = numeric_x && is_number(xlabels[j]);
        xlabel_w = std::max(xlabel_w, text_width(xlabels[j]));
    }
    const std::size_t ystep = nice_step(13.0 / ch);
    for (std::size_t i = 0; i < R; i += ystep) {
        ylabels[i] = row_label(info_, i * br);
        ylabel_w = std::max(ylabel_w, text_width(ylabels[i]));
    }
    // Numbers are written across; words (tokens) are turned to read upwards.
    const bool rotate_x = !numeric_x;
    const std::size_t xstep = nice_step(rotate_x ? 13.0 / cw : (xlabel_w + 6) / cw);

    const double x0 = 24 + ylabel_w + 10;  // y axis title, tick labels, ticks
    const double y0 = kTitleHeight + 10;
    const double bar_x = x0 + W + 16, bar_w = 16, bar_h = std::max(H, 160.0);
    std::string lo_text = value_label(bar_lo), hi_text = value_label(bar_hi);
    const double bar_label_w = std::max(text_width(lo_text), text_width(hi_text));
    const double xticks_h = rotate_x ? xlabel_w + 10 : 18;
    const std::string full_title = title();
    const double width =
        std::max(bar_x + bar_w + 6 + bar_label_w + 10, text_width(full_title) * 13 / 11 + 20);
    const double height = y0 + std::max(bar_h, H + xticks_h + 24) + 10;

    std::string svg = header(width, height, full_title);
    // Cells in grid units: runs of one colour along a row are one rect. crispEdges: no
    // seams between cells, and each cell's pixels are exactly its colour.
    svg += fmt::format(
        "<g id=\"cells\" transform=\"translate({} {}) scale({} {})\" "
        "shape-rendering=\"crispEdges\">\n",
        num(x0), num(y0), num(cw), num(ch));
    std::vector<Rgb> row(C);
    for (std::size_t i = 0; i < R; ++i) {
        for (std::size_t j = 0; j < C; ++j)
            row[j] = colormap_color(cmap, colormap_position(cmap, grid_(i, j), lo, hi));
        for (std::size_t j = 0; j < C;) {
            std::size_t k = j + 1;
            while (k < C && row[k] == row[j]) ++k;
            svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"1\" fill=\"{}\"/>\n",
                               j, i, k - j, hex(row[j]));
            j = k;
        }
    }
    svg += "</g>\n";
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" "
        "stroke-width=\"0.8\"/>\n",
        num(x0), num(y0), num(W), num(H));

    // Ticks and labels.
    svg += "<g id=\"ticks\" stroke=\"#000000\" stroke-width=\"0.8\">\n";
    for (std::size_t j = 0; j < C; j += xstep) {
        const double x = x0 + (double(j) + 0.5) * cw;
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", num(x),
                           num(y0 + H), num(y0 + H + 4));
    }
    for (std::size_t i = 0; i < R; i += ystep) {
        const double y = y0 + (double(i) + 0.5) * ch;
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", num(x0 - 4),
                           num(y), num(x0));
    }
    svg += "</g>\n";
    for (std::size_t j = 0; j < C; j += xstep) {
        const double x = x0 + (double(j) + 0.5) * cw;
        if (rotate_x)
            text(svg, x + 4, y0 + H + 7, xlabels[j], "end",
                 fmt::format(" transform=\"rotate(-90 {} {})\"", num(x + 4), num(y0 + H + 7)));
        else
            text(svg, x, y0 + H + 16, xlabels[j], "middle");
    }
    for (std::size_t i = 0; i < R; i += ystep)
        text(svg, x0 - 6, y0 + (double(i) + 0.5) * ch + 4, ylabels[i], "end");
    text(svg, x0 + W / 2, y0 + H + xticks_h + 14,
         info_.column_axis.empty() ? "Column" : info_.column_axis, "middle");
    text(svg, 14, y0 + H / 2, row_axis_name(info_), "middle",
         fmt::format(" transform=\"rotate(-90 14 {})\"", num(y0 + H / 2)));

    // Colour bar: 64 steps from the top (the largest value) down; ends exactly at the map's ends.
    constexpr int kSteps = 64;
    const double step_h = bar_h / kSteps;
    svg += fmt::format(
        "<g id=\"colorbar\" transform=\"translate({} {}) scale({} {})\" "
        "shape-rendering=\"crispEdges\">\n",
        num(bar_x), num(y0), num(bar_w), num(step_h));
    for (int k = 0; k < kSteps; ++k)
        svg += fmt::format("<rect x=\"0\" y=\"{}\" width=\"1\" height=\"1\" fill=\"{}\"/>\n", k,
                           hex(colormap_color(cmap, double(kSteps - 1 - k) / (kSteps - 1))));
    svg += "</g>\n";
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" "
        "stroke-width=\"0.8\"/>\n",
        num(bar_x), num(y0), num(bar_w), num(bar_h));
    text(svg, bar_x + bar_w + 4, y0 + 9, hi_text, "start");
    text(svg, bar_x + bar_w + 4, y0 + bar_h, lo_text, "start");
    if (cmap == Colormap::rdbu && bar_hi > 0)
        text(svg, bar_x + bar_w + 4, y0 + bar_h / 2 + 4, "0", "start");
    svg += fmt::format("<desc>colour map {}, range [{}, {}]</desc>\n", colormap_name(cmap),
                       value_label(bar_lo), value_label(bar_hi));
    svg += "</svg>\n";
    return svg;
}

std::string SvgWriter::lines() const {
    const std::size_t R = grid_.rows(), C = grid_.cols(), br = grid_.block_rows();
    const std::size_t n = info_.rows();
    auto [lo, hi] = grid_.finite_range();
    if (!(hi > lo)) lo -= 1, hi += 1;
    const double ystep = nice_real_step(hi - lo, 5);
    const double ymin = std::floor(lo / ystep) * ystep, ymax = std::ceil(hi / ystep) * ystep;
    const double xmax = n > 1 ? double(n - 1) : 1.0;

    std::vector<std::string> yticks;
    for (double v = ymin; v <= ymax + ystep / 2; v += ystep)
        yticks.push_back(value_label(std::fabs(v) < ystep / 1e6 ? 0.0 : v));
    double ytick_w = 0;
    for (const auto& t : yticks) ytick_w = std::max(ytick_w, text_width(t));
    std::vector<std::string> legend(C);
    double legend_w = 0;
    for (std::size_t j = 0; j < C; ++j) {
        legend[j] = "Col " + column_label(info_, j);
        legend_w = std::max(legend_w, text_width(legend[j]));
    }

    const double W = 560, H = 240;
    const double x0 = ytick_w + 14, y0 = kTitleHeight + 10;
    const double legend_x = x0 + W + 14;
    const std::string full_title = title();
    const double width =
        std::max(legend_x + 30 + legend_w + 10, text_width(full_title) * 13 / 11 + 20);
    const double height = y0 + std::max(H + 44, 18.0 * double(C) + 10) + 6;
    auto px = [&](double x) { return x0 + x / xmax * W; };
    auto py = [&](double v) { return y0 + (ymax - v) / (ymax - ymin) * H; };

    std::string svg = header(width, height, full_title);
    // Grid and ticks: x every 1, 2, 5, 10, ... rows with at least ~60 px between labels.
    const std::size_t xstep = nice_step(60.0 / (W / xmax));
    svg += "<g id=\"grid\" stroke=\"#b0b0b0\" stroke-width=\"0.8\" stroke-opacity=\"0.5\">\n";
    for (std::size_t r = 0; double(r) <= xmax; r += xstep)
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                           num(px(double(r))), num(y0), num(y0 + H));
    for (std::size_t k = 0; k < yticks.size(); ++k) {
        const double y = py(ymin + double(k) * ystep);
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", num(x0), num(y),
                           num(x0 + W));
    }
    svg += "</g>\n";
    for (std::size_t r = 0; double(r) <= xmax && r < n; r += xstep)
        text(svg, px(double(r)), y0 + H + 16, row_label(info_, r), "middle");
    for (std::size_t k = 0; k < yticks.size(); ++k)
        text(svg, x0 - 5, py(ymin + double(k) * ystep) + 4, yticks[k], "end");
    text(svg, x0 + W / 2, y0 + H + 36, row_axis_name(info_), "middle");

    // Curves: a point per grid row, at the centre of its block of rows; a non-finite value
    // breaks the curve.
    svg += "<g id=\"lines\" fill=\"none\" stroke-width=\"1.5\">\n";
    for (std::size_t j = 0; j < C; ++j) {
        const LineStyle& ls = kLineStyles[j % kLineStyles.size()];
        const std::string dash =
            *ls.dash ? fmt::format(" stroke-dasharray=\"{}\"", ls.dash) : std::string();
        std::string points;
        auto flush = [&] {
            if (!points.empty())
                svg += fmt::format("<polyline stroke=\"{}\"{} points=\"{}\"/>\n", ls.color, dash,
                                   points);
            points.clear();
        };
        for (std::size_t i = 0; i < R; ++i) {
            const double v = grid_(i, j);
            if (!std::isfinite(v)) {
                flush();
                continue;
            }
            const double first = double(i * br);
            const double last = double(std::min(n, (i + 1) * br) - 1);
            if (!points.empty()) points += ' ';
            points += num(px((first + last) / 2)) + "," + num(py(v));
        }
        flush();
    }
    svg += "</g>\n";
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" "
        "stroke-width=\"0.8\"/>\n",
        num(x0), num(y0), num(W), num(H));

    // Legend beside the plot.
    svg += "<g id=\"legend\">\n";
    for (std::size_t j = 0; j < C; ++j) {
        const LineStyle& ls = kLineStyles[j % kLineStyles.size()];
        const double y = y0 + 10 + 18.0 * double(j);
        svg += fmt::format(
            "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" "
            "stroke-width=\"1.5\"{4}/>\n",
            num(legend_x), num(legend_x + 24), num(y), ls.color,
            *ls.dash ? fmt::format(" stroke-dasharray=\"{}\"", ls.dash) : std::string());
        text(svg, legend_x + 30, y + 4, legend[j], "start");
    }
    svg += "</g>\n</svg>\n";
    return svg;
}

}  // namespace attn::io
