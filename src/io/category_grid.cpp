#include "io/category_grid.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "io/svg_draw.hpp"

namespace attn::io {

using svg_draw::num;

namespace {

// Okabe & Ito's colour-blind-safe set without black, then Tableau 10's others.
constexpr std::array<const char*, 12> kPalette{"#E69F00", "#56B4E9", "#009E73", "#F0E442",
                                               "#0072B2", "#D55E00", "#CC79A7", "#8C564B",
                                               "#BCBD22", "#17BECF", "#7F7F7F", "#9467BD"};

/// Black or white text, whichever reads better on #rrggbb (WCAG's relative luminance).
const char* ink_on(const std::string& fill) {
    const auto channel = [&](std::size_t at) {
        const double c = std::stoi(fill.substr(at, 2), nullptr, 16) / 255.0;
        return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    const double l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    return l > 0.179 ? "#000000" : "#ffffff";
}

}  // namespace

std::string category_colour(std::size_t k, const std::string& name) {
    if (name.empty()) return "#eeeeee";
    return kPalette[k % kPalette.size()];
}

std::string category_grid_svg(const CategoryGrid& g, std::optional<std::pair<int, int>> size,
                              double font_scale) {
    const std::size_t rows = g.row_labels.size(), cols = g.column_labels.size();
    if (g.cell_category.size() != rows * cols || g.cell_text.size() != rows * cols)
        throw std::invalid_argument(
            fmt::format("category grid: {} x {} cells, {} categories and {} texts given", rows,
                        cols, g.cell_category.size(), g.cell_text.size()));
    for (const std::size_t c : g.cell_category)
        if (c >= g.categories.size())
            throw std::invalid_argument(
                fmt::format("category grid: category {} of {}", c, g.categories.size()));
    const svg_draw::FontScale scale(font_scale);
    const double fs = svg_draw::kFontSize * font_scale;
    // layout: title, column labels, the grid with row labels on the left, legend on the right
    double label_w = svg_draw::text_width(g.row_axis) + 10;
    for (const auto& l : g.row_labels) label_w = std::max(label_w, svg_draw::text_width(l) + 10);
    double legend_w = 0;
    for (const auto& c : g.categories)
        legend_w = std::max(legend_w, svg_draw::text_width(c.empty() ? "none" : c));
    legend_w += 40;
    const double top = svg_draw::kTitleHeight * font_scale + 2.2 * fs, left = label_w + 2 * fs;
    double cell = 44;
    if (size) {
        const double w = (size->first - left - legend_w - 10) / std::max<std::size_t>(cols, 1);
        const double h = (size->second - top - 10) / std::max<std::size_t>(rows, 1);
        cell = std::max(4.0, std::min(w, h));
    }
    const double grid_w = cell * static_cast<double>(cols),
                 grid_h = cell * static_cast<double>(rows);
    const double width = size ? size->first : std::max(360.0, left + grid_w + legend_w + 10);
    const double height =
        size ? size->second
             : std::max(top + grid_h + 10,
                        top + 20.0 * font_scale * static_cast<double>(g.categories.size()));
    std::string svg = svg_draw::header(width, height, g.title);
    // axis names
    svg_draw::text(svg, left + grid_w / 2, top - 1.6 * fs, g.column_axis, "middle");
    svg += fmt::format(
        "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">{2}"
        "</text>\n",
        num(fs), num(top + grid_h / 2), xml_escape(g.row_axis));
    // labels, thinned so that they never overlap
    const std::size_t col_step = svg_draw::nice_step(1.2 * 2 * fs / cell);
    for (std::size_t c = 0; c < cols; c += col_step)
        svg_draw::text(svg, left + (static_cast<double>(c) + 0.5) * cell, top - 0.4 * fs,
                       g.column_labels[c], "middle");
    const std::size_t row_step = svg_draw::nice_step(1.2 * fs / cell);
    for (std::size_t r = 0; r < rows; r += row_step)
        svg_draw::text(svg, left - 4, top + (static_cast<double>(r) + 0.5) * cell + 0.35 * fs,
                       g.row_labels[r], "end");
    // cells: the fill, then the text sized to fit 4 characters across the cell
    const double cell_font = std::min(fs, cell / 3.2);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) {
            const std::size_t k = g.cell_category[r * cols + c];
            const std::string fill = category_colour(k, g.categories[k]);
            const double x = left + static_cast<double>(c) * cell;
            const double y = top + static_cast<double>(r) * cell;
            svg += fmt::format(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ffffff\" "
                "stroke-width=\"1\"><title>{} {}, {} {}: {} {}</title></rect>\n",
                num(x), num(y), num(cell), num(cell), fill, xml_escape(g.row_axis),
                xml_escape(g.row_labels[r]), xml_escape(g.column_axis),
                xml_escape(g.column_labels[c]),
                xml_escape(g.categories[k].empty() ? "none" : g.categories[k]),
                xml_escape(g.cell_text[r * cols + c]));
            if (!g.cell_text[r * cols + c].empty() && cell_font >= 4)
                svg_draw::text(
                    svg, x + cell / 2, y + cell / 2 + 0.35 * cell_font, g.cell_text[r * cols + c],
                    "middle",
                    fmt::format(" font-size=\"{}\" fill=\"{}\"", num(cell_font), ink_on(fill)));
        }
    // legend
    const double lx = left + grid_w + 16;
    for (std::size_t k = 0; k < g.categories.size(); ++k) {
        const double y = top + 20.0 * font_scale * static_cast<double>(k);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#999999\"/>\n",
            num(lx), num(y), num(12 * font_scale), num(12 * font_scale),
            category_colour(k, g.categories[k]));
        svg_draw::text(svg, lx + 18 * font_scale, y + 10 * font_scale,
                       g.categories[k].empty() ? "none" : g.categories[k], "start");
    }
    svg += "</svg>\n";
    return svg;
}

}  // namespace attn::io
