#include "io/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "io/colormap.hpp"
#include "io/labels.hpp"
#include "io/output_spec.hpp"
#include "io/picture_scale.hpp"
#include "io/svg_draw.hpp"
#include "io/svg_points.hpp"

namespace attn::io {

using namespace svg_draw;

namespace {

// The caps (max grid rows, max grid columns) that keep a (rows x cols) heatmap within
// max_cells cells, averaging the long side first.
std::pair<std::size_t, std::size_t> grid_caps(std::size_t rows, std::size_t cols,
                                              std::size_t max_cells) {
    max_cells = std::max<std::size_t>(max_cells, 1);
    const auto side =
        std::max<std::size_t>(1, static_cast<std::size_t>(std::sqrt(double(max_cells))));
    if (rows * cols <= max_cells) return {rows, cols};
    if (rows <= side) return {rows, max_cells / rows};
    if (cols <= side) return {max_cells / cols, cols};
    return {side, side};
}

// A cell's value as annotated: two decimals, "-0.00" as "0.00".
std::string annotation(double v) {
    std::string s = fmt::format("{:.2f}", v);
    if (s == "-0.00") s = "0.00";
    return s;
}

// Masked cells: mid grey with darker diagonal stripes, unlike any colour of the maps.
constexpr const char* kMaskedPattern =
    "<defs><pattern id=\"masked\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#a0a0a0\"/>"
    "<rect width=\"2\" height=\"6\" fill=\"#606060\"/></pattern></defs>\n";

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

BlockAverage svg_grid(std::size_t rows, std::size_t cols, std::size_t max_cells) {
    const auto [max_rows, max_cols] = grid_caps(rows, cols, max_cells);
    return {rows, cols, max_rows, max_cols};
}

SvgWriter::SvgWriter(OutputFile& out, const PictureStyle& style) : out_(out), style_(style) {}

void SvgWriter::begin(const ArrayInfo& info) {
    if (started_) throw OutputError(OutputError::Kind::one_array_only, "", Format::svg, 0);
    started_ = true;
    info_ = info;
    const std::size_t n = info_.rows(), d = info_.columns();
    if (n == 0 || d == 0)
        throw std::invalid_argument(
            fmt::format("svg: {} has no values ({} x {}): nothing to draw", info_.name, n, d));
    if (info_.scatter || info_.row_curves) {
        const std::size_t cap = info_.scatter ? kMaxSvgPoints * d : kMaxSvgCells;
        if (n * d > cap)
            throw std::invalid_argument(
                fmt::format("svg: {} has {} x {} values, more than the {} a {} draws", info_.name,
                            n, d, cap, info_.scatter ? "scatter" : "plot of curves"));
        held_.reserve(n * d);
        return;
    }
    if (style_.plot == Plot::lines) {
        std::size_t curves = d - (info_.x_column && *info_.x_column < d ? 1 : 0);
        for (const std::size_t j : info_.index_columns) curves -= j < d && j != info_.x_column;
        if (style_.curves) curves = style_.curves(curves).size();
        if (curves > kMaxSvgLines)
            throw OutputError(OutputError::Kind::too_many_curves, info_.name, Format::svg, curves);
        grid_ = PanelAverage(n, d, 0, kMaxSvgPoints, d);
        return;
    }
    std::size_t panel_rows = info_.panel_rows;
    if (panel_rows == 0 || panel_rows >= n || (n + panel_rows - 1) / panel_rows > kMaxSvgPanels)
        panel_rows = 0;
    const std::size_t panels = panel_rows == 0 ? 1 : (n + panel_rows - 1) / panel_rows;
    const auto [max_rows, max_cols] =
        grid_caps(panel_rows == 0 ? n : panel_rows, d, kMaxSvgCells / panels);
    grid_ = PanelAverage(n, d, panel_rows, max_rows, max_cols, info_.masked);
}

void SvgWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    if (info_.scatter || info_.row_curves) {
        held_.insert(held_.end(), values, values + n_rows * info_.columns());
        return;
    }
    grid_.add(first_row, values, n_rows, info_.dtype == Dtype::float32);
}

void SvgWriter::end() {
    const FontScale font(style_.font_scale);
    std::string svg = info_.scatter                ? svg_scatter(info_, held_, title())
                      : info_.row_curves           ? svg_row_curves(info_, held_, title())
                      : style_.plot == Plot::lines ? lines()
                                                   : heatmap();
    if (style_.size) {
        // The <svg> element's width and height become the size asked for; its viewBox keeps
        // the layout's coordinates, so the drawing scales to fit, centred.
        const auto at = svg.find("<svg ");
        const auto w = svg.find(" width=\"", at), h = svg.find(" height=\"", at);
        const auto w_end = svg.find('"', w + 8), h_end = svg.find('"', h + 9);
        svg.replace(h + 9, h_end - h - 9, std::to_string(style_.size->second));
        svg.replace(w + 8, w_end - w - 8, std::to_string(style_.size->first));
    }
    emit(svg);
}

void SvgWriter::emit(const std::string& svg) {
    out_.write(svg);
}

std::string SvgWriter::title() const {
    std::string t;
    if (style_.title) {
        t = *style_.title;
    } else {
        std::string shape;
        for (std::size_t k = 0; k < info_.shape.size(); ++k)
            shape += (k ? " x " : "") + std::to_string(info_.shape[k]);
        t = fmt::format("{} ({}, {})", info_.title.empty() ? info_.name : info_.title, shape,
                        dtype_name(info_.dtype));
    }
    if (info_.scatter || info_.row_curves) return t;  // drawn whole
    const BlockAverage& g = grid_.panel(0);
    if (g.averaged())
        t += style_.plot == Plot::lines
                 ? fmt::format(", mean of every {} rows", g.block_rows())
                 : fmt::format(", averaged in {} x {} blocks", g.block_rows(), g.block_cols());
    return t;
}

std::string SvgWriter::heatmap() const {
    const std::size_t P = grid_.panels();
    const BlockAverage& g0 = grid_.panel(0);  // the first panel is the largest
    const std::size_t R = g0.rows(), C = g0.cols();
    const std::size_t br = g0.block_rows(), bc = g0.block_cols();
    const PictureScale scale = picture_scale(grid_, info_, style_);
    const double lo = scale.lo, hi = scale.hi;
    const Colormap cmap = style_.cmap.value_or(default_colormap(lo, hi));
    const auto [bar_lo, bar_hi] = colormap_range(cmap, lo, hi);
    const bool masks = grid_.any_masked();
    const bool annotate =
        style_.annotate == Annotate::always ||
        (style_.annotate == Annotate::auto_ && !g0.averaged() && R <= kMaxAnnotatedSide &&
         C <= kMaxAnnotatedSide && info_.panel_columns == 0);  // the model view: too many to read

    // Panels in a grid of G columns, G about sqrt(P): 2 -> 2 x 1, 4 -> 2 x 2,
    // 6 -> 3 x 2; or G = panel_columns (the model view: a row per layer).
    const std::size_t columns = info_.panel_columns;
    const auto G = P > 1 && columns > 0
                       ? std::min(columns, P)
                       : static_cast<std::size_t>(std::ceil(std::sqrt(double(P)) - 1e-9));
    const double plot_w = P > 1 && columns > 0 ? std::max(560.0, kMinGridPanel * double(G)) : 560;

    // Cell sizes: the plot is at most plot_w x plot_w (shared by the panels across), a cell at most
    // 28 x 28, annotated cells large enough for their text (10 px digits ~6.4 px wide).
    // Rounded down to 1/100 so that the cells' transform (2 decimals) is exact.
    auto cell = [&](std::size_t k) {
        return std::floor(std::min(28.0, plot_w / double(G) / double(std::max<std::size_t>(k, 1))) *
                          100) /
               100;
    };
    double cw = cell(C), ch = cell(R);
    std::vector<std::vector<std::string>> values(P);
    if (annotate) {
        std::size_t widest = 0;
        for (std::size_t p = 0; p < P; ++p) {
            const BlockAverage& g = grid_.panel(p);
            values[p].resize(g.rows() * g.cols());
            for (std::size_t i = 0; i < g.rows(); ++i)
                for (std::size_t j = 0; j < g.cols(); ++j) {
                    if (g.masked(i, j)) continue;
                    values[p][i * g.cols() + j] = annotation(scale.shown(g(i, j)));
                    widest = std::max(widest, values[p][i * g.cols() + j].size());
                }
        }
        cw = std::max(cw, std::ceil(6.4 * font_scale() * double(widest) + 6));
        ch = std::max(ch, std::ceil(18.0 * font_scale()));
    }
    const double W = cw * double(C), H = ch * double(R);

    // Tick labels: every step-th grid cell, step 1, 2, 5, 10, ... so that labels do not touch.
    auto first_row = [&](std::size_t p) { return p * grid_.panel_rows(); };
    std::vector<std::string> xlabels(C);
    bool numeric_x = true;
    double xlabel_w = 0, ylabel_w = 0;
    for (std::size_t j = 0; j < C; ++j) {
        xlabels[j] = column_label(info_, j * bc);
        numeric_x = numeric_x && is_number(xlabels[j]);
        xlabel_w = std::max(xlabel_w, text_width(xlabels[j]));
    }
    const std::size_t ystep = nice_step(13.0 * font_scale() / ch);
    // A label field the panels' titles say (the same on a panel's first and last row, not
    // the same on every panel, e.g. the head) is not repeated on each row.
    std::vector<bool> said(info_.labels.size(), false);
    if (P > 1 && !info_.panel_titles.empty()) {
        for (std::size_t l = 0; l < info_.labels.size(); ++l) {
            const auto& value = info_.labels[l].value;
            bool within = true, across = false;
            for (std::size_t p = 0; p < P; ++p) {
                const std::string v = value(first_row(p));
                within = within &&
                         v == value(std::min(first_row(p) + grid_.panel_rows(), info_.rows()) - 1);
                across = across || v != value(0);
            }
            said[l] = within && across;
        }
        if (std::all_of(said.begin(), said.end(), [](bool b) { return b; }))
            said.assign(said.size(), false);
    }
    auto label_of = [&](std::size_t r) {
        std::string s;
        for (std::size_t l = 0; l < info_.labels.size(); ++l)
            if (!said[l]) {
                if (!s.empty()) s += ' ';
                s += info_.labels[l].value(r);
            }
        return s;
    };
    std::vector<std::vector<std::string>> ylabels(P);
    for (std::size_t p = 0; p < P; ++p) {
        ylabels[p].resize(grid_.panel(p).rows());
        for (std::size_t i = 0; i < ylabels[p].size(); i += ystep) {
            ylabels[p][i] = label_of(first_row(p) + i * br);
            ylabel_w = std::max(ylabel_w, text_width(ylabels[p][i]));
        }
    }
    // Numbers are written across; words (tokens) are turned to read upwards.
    const bool rotate_x = !numeric_x;
    const std::size_t xstep = nice_step(rotate_x ? 13.0 * font_scale() / cw : (xlabel_w + 6) / cw);

    // Panel p's cells start at (px0(p), py0(p)); each panel has its tick labels, the row
    // axis's name left of the first column, the column axis's name under each panel.
    const double panel_title_h = P > 1 ? 18 * font_scale() : 0;
    const double xticks_h = rotate_x ? xlabel_w + 10 : 18 * font_scale();
    const double left = 24 * font_scale() + ylabel_w + 10;  // y axis title, tick labels, ticks
    const double panel_dx = W + 20 + ylabel_w + 10;
    const double panel_dy = panel_title_h + H + xticks_h + 24 + 10;
    const double top = kTitleHeight * font_scale() + 10 + panel_title_h;
    auto px0 = [&](std::size_t p) { return left + double(p % G) * panel_dx; };
    auto py0 = [&](std::size_t p) { return top + double(p / G) * panel_dy; };
    const double panels_right = px0(G - 1) + W;
    const double panels_bottom = py0(P - 1) + H + xticks_h + 24;

    const double bar_x = panels_right + 16, bar_w = 16;
    const double bar_h = std::max(py0(P - 1) + H - top, 160.0);
    std::string lo_text = value_label(bar_lo), hi_text = value_label(bar_hi);
    double bar_label_w = std::max(text_width(lo_text), text_width(hi_text));
    const double legend_y = top + bar_h + 14;  // the "masked" swatch under the colour bar
    if (masks) bar_label_w = std::max(bar_label_w, text_width("masked"));
    const std::string full_title =
        title() + (scale.zeroed
                       ? fmt::format(", |v| <= {} (rounding) drawn as 0", value_label(scale.noise))
                       : std::string());
    const double width =
        std::max(bar_x + bar_w + 6 + bar_label_w + 10, text_width(full_title) * 13 / 11 + 20);
    const double height = std::max(top + bar_h + (masks ? 34 : 0), panels_bottom) + 10;

    std::string svg = header(width, height, full_title);
    if (masks) svg += kMaskedPattern;
    for (std::size_t p = 0; p < P; ++p) {
        const BlockAverage& g = grid_.panel(p);
        const std::size_t Rp = g.rows();
        const double x0 = px0(p), y0 = py0(p), Hp = ch * double(Rp);
        if (P > 1) {
            const std::string t =
                p < info_.panel_titles.size() ? info_.panel_titles[p] : fmt::format("panel {}", p);
            text(svg, x0 + W / 2, y0 - 6, t, "middle",
                 fmt::format(" font-size=\"{}\"", num(12 * font_scale())));
        }
        // Cells in grid units: runs of one colour along a row are one rect. crispEdges: no
        // seams between cells, and each cell's pixels are exactly its colour.
        svg += fmt::format(
            "<g id=\"{}\" transform=\"translate({} {}) scale({} {})\" "
            "shape-rendering=\"crispEdges\">\n",
            P > 1 ? fmt::format("cells-{}", p) : "cells", num(x0), num(y0), num(cw), num(ch));
        std::vector<Rgb> row(C);
        std::vector<char> masked(C);
        for (std::size_t i = 0; i < Rp; ++i) {
            for (std::size_t j = 0; j < C; ++j) {
                masked[j] = g.masked(i, j);
                row[j] =
                    colormap_color(cmap, colormap_position(cmap, scale.shown(g(i, j)), lo, hi));
            }
            for (std::size_t j = 0; j < C;) {
                std::size_t k = j + 1;
                while (k < C && row[k] == row[j] && masked[k] == masked[j]) ++k;
                if (!masked[j])
                    svg += fmt::format(
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"1\" fill=\"{}\"/>\n", j, i,
                        k - j, hex(row[j]));
                j = k;
            }
        }
        svg += "</g>\n";
        if (g.any_masked()) {
            // In pixels: the pattern would be stretched by the cells' scale.
            svg += fmt::format("<g id=\"{}\" fill=\"url(#masked)\">\n",
                               P > 1 ? fmt::format("masked-{}", p) : "masked-cells");
            for (std::size_t i = 0; i < Rp; ++i)
                for (std::size_t j = 0; j < C;) {
                    if (!g.masked(i, j)) {
                        ++j;
                        continue;
                    }
                    std::size_t k = j + 1;
                    while (k < C && g.masked(i, k)) ++k;
                    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                                       num(x0 + double(j) * cw), num(y0 + double(i) * ch),
                                       num(double(k - j) * cw), num(ch));
                    j = k;
                }
            svg += "</g>\n";
        }
        if (annotate) {
            // Black or white, whichever contrasts more with the cell.
            svg +=
                fmt::format("<g id=\"{}\" font-size=\"{}\" text-anchor=\"middle\">\n",
                            P > 1 ? fmt::format("values-{}", p) : "values", num(10 * font_scale()));
            for (std::size_t i = 0; i < Rp; ++i)
                for (std::size_t j = 0; j < C; ++j) {
                    const std::string& v = values[p][i * C + j];
                    if (v.empty()) continue;
                    const Rgb c = contrasting_text(colormap_color(
                        cmap, colormap_position(cmap, scale.shown(g(i, j)), lo, hi)));
                    svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n",
                                       num(x0 + (double(j) + 0.5) * cw),
                                       num(y0 + (double(i) + 0.5) * ch + 3.5), hex(c), v);
                }
            svg += "</g>\n";
        }
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" "
            "stroke-width=\"0.8\"/>\n",
            num(x0), num(y0), num(W), num(Hp));

        // Ticks and labels.
        svg += fmt::format("<g id=\"{}\" stroke=\"#000000\" stroke-width=\"0.8\">\n",
                           P > 1 ? fmt::format("ticks-{}", p) : "ticks");
        for (std::size_t j = 0; j < C; j += xstep) {
            const double x = x0 + (double(j) + 0.5) * cw;
            svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", num(x),
                               num(y0 + Hp), num(y0 + Hp + 4));
        }
        for (std::size_t i = 0; i < Rp; i += ystep) {
            const double y = y0 + (double(i) + 0.5) * ch;
            svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", num(x0 - 4),
                               num(y), num(x0));
        }
        svg += "</g>\n";
        for (std::size_t j = 0; j < C; j += xstep) {
            const double x = x0 + (double(j) + 0.5) * cw;
            if (rotate_x)
                text(svg, x + 4, y0 + Hp + 7, xlabels[j], "end",
                     fmt::format(" transform=\"rotate(-90 {} {})\"", num(x + 4), num(y0 + Hp + 7)));
            else
                text(svg, x, y0 + Hp + 16, xlabels[j], "middle");
        }
        for (std::size_t i = 0; i < Rp; i += ystep)
            text(svg, x0 - 6, y0 + (double(i) + 0.5) * ch + 4, ylabels[p][i], "end");
        text(svg, x0 + W / 2, y0 + Hp + xticks_h + 14,
             info_.column_axis.empty() ? "Column" : info_.column_axis, "middle");
        if (p % G == 0) {
            const double x = x0 - left + 14;
            text(svg, x, y0 + Hp / 2, row_axis_name(info_), "middle",
                 fmt::format(" transform=\"rotate(-90 {} {})\"", num(x), num(y0 + Hp / 2)));
        }
    }

    // Colour bar: 64 steps from the top (the largest value) down; ends exactly at the map's ends.
    constexpr int kSteps = 64;
    const double step_h = bar_h / kSteps;
    svg += fmt::format(
        "<g id=\"colorbar\" transform=\"translate({} {}) scale({} {})\" "
        "shape-rendering=\"crispEdges\">\n",
        num(bar_x), num(top), num(bar_w), num(step_h));
    for (int k = 0; k < kSteps; ++k)
        svg += fmt::format("<rect x=\"0\" y=\"{}\" width=\"1\" height=\"1\" fill=\"{}\"/>\n", k,
                           hex(colormap_color(cmap, double(kSteps - 1 - k) / (kSteps - 1))));
    svg += "</g>\n";
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" "
        "stroke-width=\"0.8\"/>\n",
        num(bar_x), num(top), num(bar_w), num(bar_h));
    text(svg, bar_x + bar_w + 4, top + 9, hi_text, "start");
    text(svg, bar_x + bar_w + 4, top + bar_h, lo_text, "start");
    if (cmap == Colormap::rdbu && bar_hi > 0)
        text(svg, bar_x + bar_w + 4, top + bar_h / 2 + 4, "0", "start");
    if (masks) {
        svg += fmt::format(
            "<g id=\"legend\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" "
            "fill=\"url(#masked)\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n",
            num(bar_x), num(legend_y), num(bar_w));
        text(svg, bar_x + bar_w + 4, legend_y + 10, "masked", "start");
        svg += "</g>\n";
    }
    svg += fmt::format("<desc>colour map {}, range [{}, {}]</desc>\n", colormap_name(cmap),
                       value_label(bar_lo), value_label(bar_hi));
    svg += "</svg>\n";
    return svg;
}

}  // namespace attn::io
