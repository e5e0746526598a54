// SvgWriter's lines plot: each value column a curve over the rows or over ArrayInfo::x_column
// (index columns are not curves; PictureStyle::curves picks some), on linear or logarithmic
// axes named below (the rows) and beside the y axis (the values), with marked x values and a
// legend (d2l's plot). A curve equal at every point to an earlier one would hide under it: it
// is drawn with circle markers, and its legend says whose copy it is ("= convolution").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "io/labels.hpp"
#include "io/svg.hpp"
#include "io/svg_draw.hpp"

namespace attn::io {

using namespace svg_draw;

namespace {

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

// 10^k as a tick label: "0.01", "1", "1000", "1e+06".
std::string decade_label(int k) {
    if (k >= 0 && k <= 5) return fmt::format("{}", static_cast<long>(std::lround(std::pow(10, k))));
    if (k < 0 && k >= -3) return fmt::format("{:.{}f}", std::pow(10.0, k), -k);
    return fmt::format("1e{:+03d}", k);
}

// One axis in transformed units (log10 of the value on a log axis): its range and ticks.
struct Axis {
    double min = 0, max = 1;
    std::vector<double> ticks;  // transformed positions
    std::vector<std::string> labels;
};

// Ticks over [lo, hi]: decades on a log axis (every one, or every 2nd, 5th, ...),
// else multiples of a nice step; with extend, the range grows to the outer ticks.
Axis make_axis(double lo, double hi, bool log, bool extend, int target) {
    Axis a;
    if (!(hi > lo)) lo -= 1, hi += 1;
    if (log) {
        a.min = std::floor(lo), a.max = std::ceil(hi);
        if (a.max == a.min) a.max += 1;
        const auto step =
            static_cast<int>(nice_step((a.max - a.min) / double(std::max(target, 1)) - 1e-9));
        for (int k = int(a.min); k <= int(a.max); k += step) {
            a.ticks.push_back(k);
            a.labels.push_back(decade_label(k));
        }
        return a;
    }
    const double step = nice_real_step(hi - lo, target);
    a.min = extend ? std::floor(lo / step) * step : lo;
    a.max = extend ? std::ceil(hi / step) * step : hi;
    for (double v = std::ceil(a.min / step - 1e-9) * step; v <= a.max + step / 1e6; v += step) {
        a.ticks.push_back(v);
        a.labels.push_back(value_label(std::fabs(v) < step / 1e6 ? 0.0 : v));
    }
    return a;
}

}  // namespace

std::string SvgWriter::lines() const {
    const BlockAverage& g = grid_.panel(0);
    const std::size_t R = g.rows(), C = g.cols(), br = g.block_rows();
    const std::size_t n = info_.rows();
    const bool has_x = info_.x_column && *info_.x_column < C;
    const std::size_t xc = has_x ? *info_.x_column : C;
    const bool log_x = info_.log_x, log_y = info_.log_y;
    const bool row_x = !has_x && !log_x;  // the x axis is the row index, labelled by rows
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    auto fy = [&](double v) { return !log_y ? v : v > 0 ? std::log10(v) : nan; };
    auto fx = [&](double v) { return !log_x ? v : v > 0 ? std::log10(v) : nan; };
    // The x of grid row i: the x column's value, or the centre of its block of rows.
    auto xval = [&](std::size_t i) {
        if (has_x) return g(i, xc);
        return (double(i * br) + double(std::min(n, (i + 1) * br) - 1)) / 2;
    };
    std::vector<std::size_t> curves;
    for (std::size_t j = 0; j < C; ++j)
        if (j != xc && std::find(info_.index_columns.begin(), info_.index_columns.end(), j) ==
                           info_.index_columns.end())
            curves.push_back(j);
    if (style_.curves) {
        std::vector<std::size_t> picked;
        for (const std::size_t k : style_.curves(curves.size())) picked.push_back(curves[k]);
        curves = std::move(picked);
    }
    // same_as[c]: an earlier curve with the same value at every point, else c.
    std::vector<std::size_t> same_as(curves.size());
    for (std::size_t c = 0; c < curves.size(); ++c) {
        same_as[c] = c;
        for (std::size_t e = 0; e < c && same_as[c] == c; ++e) {
            bool equal = true;
            for (std::size_t i = 0; i < R && equal; ++i)
                equal = g(i, curves[c]) == g(i, curves[e]) ||
                        (std::isnan(g(i, curves[c])) && std::isnan(g(i, curves[e])));
            if (equal) same_as[c] = e;
        }
    }

    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    double xlo = lo, xhi = -lo;
    for (std::size_t i = 0; i < R; ++i) {
        const double x = fx(xval(i));
        if (std::isfinite(x)) xlo = std::min(xlo, x), xhi = std::max(xhi, x);
        for (std::size_t j : curves) {
            const double v = fy(g(i, j));
            if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        }
    }
    if (lo > hi) lo = hi = 0;
    if (xlo > xhi) xlo = xhi = 0;
    const Axis ya = make_axis(lo, hi, log_y, true, 5);
    const double ymin = ya.min, ymax = ya.max;
    const double xmax_rows = n > 1 ? double(n - 1) : 1.0;
    const Axis xa = row_x ? Axis{0, xmax_rows, {}, {}} : make_axis(xlo, xhi, log_x, log_x, 6);
    const double xmin = xa.min, xmax = xa.max;

    double ytick_w = 0;
    for (const auto& t : ya.labels) ytick_w = std::max(ytick_w, text_width(t));
    std::vector<std::string> legend;
    double legend_w = 0;
    for (std::size_t j : curves) {
        const std::string label = column_label(info_, j);
        legend.push_back(is_number(label) ? "Col " + label : label);
        if (const std::size_t c = legend.size() - 1; same_as[c] != c)
            legend.back() += " (= " + column_label(info_, curves[same_as[c]]) + ")";
        legend_w = std::max(legend_w, text_width(legend.back()));
    }

    const double W = 560, H = 240;
    const double x0 = ytick_w + 14 + 18 * font_scale(), y0 = kTitleHeight * font_scale() + 10;
    const double legend_x = x0 + W + 14;
    const std::string full_title = title();
    const double width =
        std::max(legend_x + 30 + legend_w + 10, text_width(full_title) * 13 / 11 + 20);
    const double height = y0 + std::max(H + 44, 18.0 * double(curves.size()) + 10) + 6;
    auto px = [&](double x) { return x0 + (x - xmin) / (xmax - xmin) * W; };
    auto py = [&](double v) { return y0 + (ymax - v) / (ymax - ymin) * H; };

    std::string svg = header(width, height, full_title);
    // Grid and ticks: rows every 1, 2, 5, 10, ... with at least ~60 px between labels.
    const std::size_t xstep = nice_step(60.0 / (W / xmax_rows));
    svg += "<g id=\"grid\" stroke=\"#b0b0b0\" stroke-width=\"0.8\" stroke-opacity=\"0.5\">\n";
    if (row_x) {
        for (std::size_t r = 0; double(r) <= xmax; r += xstep)
            svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                               num(px(double(r))), num(y0), num(y0 + H));
    } else {
        for (double t : xa.ticks)
            svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", num(px(t)),
                               num(y0), num(y0 + H));
    }
    for (double t : ya.ticks)
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", num(x0),
                           num(py(t)), num(x0 + W));
    svg += "</g>\n";
    if (row_x) {
        for (std::size_t r = 0; double(r) <= xmax && r < n; r += xstep)
            text(svg, px(double(r)), y0 + H + 16, row_label(info_, r), "middle");
    } else {
        for (std::size_t k = 0; k < xa.ticks.size(); ++k)
            text(svg, px(xa.ticks[k]), y0 + H + 16, xa.labels[k], "middle");
    }
    for (std::size_t k = 0; k < ya.ticks.size(); ++k)
        text(svg, x0 - 5, py(ya.ticks[k]) + 4, ya.labels[k], "end");
    text(svg, x0 + W / 2, y0 + H + 36, has_x ? column_label(info_, xc) : row_axis_name(info_),
         "middle");
    const std::string value_axis = info_.value_axis.empty() ? "value" : info_.value_axis;
    const double ylabel_x = 14 * font_scale(), ylabel_y = y0 + H / 2;
    text(svg, ylabel_x, ylabel_y, value_axis, "middle",
         fmt::format(" class=\"value-axis\" transform=\"rotate(-90 {} {})\"", num(ylabel_x),
                     num(ylabel_y)));

    // Marked x values: a dashed vertical line with its label at the top.
    for (const auto& [label, x] : info_.x_markers) {
        const double t = fx(x);
        if (!std::isfinite(t) || t < xmin || t > xmax) continue;
        svg += fmt::format(
            "<line class=\"marker\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#404040\" "
            "stroke-width=\"1\" stroke-dasharray=\"4,3\"/>\n",
            num(px(t)), num(y0), num(y0 + H));
        text(svg, px(t) + 4, y0 + 12, label, "start");
    }

    // Curves: a point per grid row; a non-finite value (or one <= 0 on a log axis) breaks
    // the curve.
    svg += "<g id=\"lines\" fill=\"none\" stroke-width=\"1.5\">\n";
    for (std::size_t c = 0; c < curves.size(); ++c) {
        const LineStyle& ls = kLineStyles[c % kLineStyles.size()];
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
            const double v = fy(g(i, curves[c])), x = row_x ? xval(i) : fx(xval(i));
            if (!std::isfinite(v) || !std::isfinite(x)) {
                flush();
                continue;
            }
            if (!points.empty()) points += ' ';
            points += num(px(x)) + "," + num(py(v));
        }
        flush();
        if (same_as[c] != c) {  // a copy: circles at its points, over the curve it hides under
            svg += fmt::format("<g class=\"copy\" stroke=\"{}\" fill=\"#ffffff\">\n", ls.color);
            const std::size_t every = std::max<std::size_t>(1, R / 24);
            for (std::size_t i = 0; i < R; i += every) {
                const double v = fy(g(i, curves[c])), x = row_x ? xval(i) : fx(xval(i));
                if (std::isfinite(v) && std::isfinite(x))
                    svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"/>\n", num(px(x)),
                                       num(py(v)));
            }
            svg += "</g>\n";
        }
    }
    svg += "</g>\n";
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" "
        "stroke-width=\"0.8\"/>\n",
        num(x0), num(y0), num(W), num(H));

    // Legend beside the plot.
    svg += "<g id=\"legend\">\n";
    for (std::size_t c = 0; c < curves.size(); ++c) {
        const LineStyle& ls = kLineStyles[c % kLineStyles.size()];
        const double y = y0 + 10 + 18.0 * double(c);
        svg += fmt::format(
            "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" "
            "stroke-width=\"1.5\"{4}/>\n",
            num(legend_x), num(legend_x + 24), num(y), ls.color,
            *ls.dash ? fmt::format(" stroke-dasharray=\"{}\"", ls.dash) : std::string());
        if (same_as[c] != c)
            svg += fmt::format(
                "<circle cx=\"{}\" cy=\"{}\" r=\"3\" stroke=\"{}\" fill=\"#ffffff\"/>\n",
                num(legend_x + 12), num(y), ls.color);
        text(svg, legend_x + 30, y + 4, legend[c], "start");
    }
    svg += "</g>\n</svg>\n";
    return svg;
}

}  // namespace attn::io
