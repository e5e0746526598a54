#include "io/heatmap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "io/colormap.hpp"
#include "io/labels.hpp"
#include "io/output_spec.hpp"
#include "io/picture_scale.hpp"

namespace attn::io {

namespace {

constexpr std::string_view kRamp = " .:-=+*#%@";   // light -> dark
constexpr std::string_view kUpperHalf = "\u2580";  // ▀
constexpr std::string_view kFullBlock = "\u2588";  // █
constexpr std::size_t kScaleCells = 16;
constexpr Rgb kMaskedGrey{128, 128, 128};  // masked cells: in no colour map

std::size_t nice_step(std::size_t need) {
    for (std::size_t p = 1;; p *= 10)
        for (std::size_t m : {1, 2, 5})
            if (m * p >= need) return m * p;
}

std::string value_label(double v) {
    std::string s = fmt::format("{:.4g}", v);
    return s == "-0" ? "0" : s;
}

std::size_t ceil_div(std::size_t a, std::size_t b) {
    return (a + b - 1) / b;
}

// SGR parameters for a foreground (38) or background (48) colour.
std::string sgr_color(int layer, Rgb c, ColorMode mode) {
    if (mode == ColorMode::xterm256) return fmt::format("{};5;{}", layer, xterm256(c));
    return fmt::format("{};2;{};{};{}", layer, c.r, c.g, c.b);
}

char ramp(double t) {
    const auto k = std::min(kRamp.size() - 1, static_cast<std::size_t>(t * double(kRamp.size())));
    return kRamp[k];
}

void pad_left(std::string& line, const std::string& text, std::size_t width) {
    const std::size_t w = display_width(text);
    line.append(width > w ? width - w : 0, ' ');
    line += text;
}

}  // namespace

HeatmapWriter::HeatmapWriter(OutputFile& out, const TextStyle& style) : out_(out), style_(style) {}

std::string HeatmapWriter::label(std::size_t row) const {
    std::string s;
    for (std::size_t f = 0; f < info_.labels.size(); ++f) {
        if (panel_field_[f]) continue;
        if (!s.empty()) s += ' ';
        s += info_.labels[f].value(row);
    }
    return s;
}

void HeatmapWriter::begin(const ArrayInfo& info) {
    if (style_.picture.plot == Plot::lines)
        throw OutputError(OutputError::Kind::lines_needs_svg, "", Format::heatmap, 1);
    table_.reset();
    if (info.columns() == 0) {
        if (arrays_++ > 0) out_.write("\n");
        table_ = std::make_unique<TableWriter>(out_, style_);
        table_->begin(info);
        return;
    }
    info_ = info;
    const std::size_t n = info_.rows(), d = info_.columns();
    const bool color = style_.picture.color != ColorMode::none;

    // A label field equal at the first and last row of every panel names the panel.
    panel_field_.assign(info_.labels.size(), false);
    if (info_.panel_rows > 1 && info_.panel_rows < n && info_.labels.size() > 1 &&
        ceil_div(n, info_.panel_rows) <= kMaxHeatmapPanels)
        for (std::size_t f = 0; f < info_.labels.size(); ++f) {
            bool constant = true;
            for (std::size_t p = 0; p * info_.panel_rows < n && constant; ++p) {
                const std::size_t first = p * info_.panel_rows;
                const std::size_t last = std::min(n, first + info_.panel_rows) - 1;
                constant = info_.labels[f].value(first) == info_.labels[f].value(last);
            }
            panel_field_[f] = constant;
        }

    // Row labels: exact for arrays of up to 10000 rows, else the widest of the first and last.
    label_width_ = 0;
    if (n <= 10000) {
        for (std::size_t r = 0; r < n; ++r)
            label_width_ = std::max(label_width_, display_width(label(r)));
    } else if (n > 0) {
        label_width_ = std::max(display_width(label(0)), display_width(label(n - 1)));
    }
    std::size_t column_label_width = 1;
    for (std::size_t j = 0; j < d && j < 10000; ++j)
        column_label_width = std::max(column_label_width, display_width(column_label(info_, j)));

    std::size_t panel_rows = info_.panel_rows;
    if (panel_rows == 0 || panel_rows >= n || ceil_div(n, panel_rows) > kMaxHeatmapPanels)
        panel_rows = 0;
    const std::size_t panels = panel_rows == 0 ? 1 : ceil_div(n, panel_rows);
    const std::size_t tallest = panel_rows == 0 ? n : panel_rows;

    // Room: the label and a space on the left; title, column labels, scale and note lines.
    const std::size_t room_x =
        style_.width > label_width_ + 2 ? style_.width - label_width_ - 1 : 1;
    const std::size_t grid_cols = ceil_div(d, std::max<std::size_t>(1, ceil_div(d, room_x)));
    cell_width_ = std::clamp<std::size_t>(room_x / std::max<std::size_t>(grid_cols, 1), 1,
                                          column_label_width + 1);
    // Panels side by side, two spaces apart, as many as fit the width.
    const std::size_t panel_w = label_width_ + 1 + grid_cols * cell_width_;
    across_ = std::clamp<std::size_t>((style_.width + 2) / (panel_w + 2), 1, panels);
    const std::size_t layer_w = panels > 1 ? info_.panel_columns : 0;
    if (layer_w > 0)  // the largest divisor of a layer's heads that fits: 12 -> 12, 6, 4, ...
        for (across_ = std::min(across_, layer_w); layer_w % across_ != 0;) --across_;
    const std::size_t bands = ceil_div(panels, across_);
    const std::size_t fitted = layer_w > 0 ? 1 : bands;  // the bands that share the height
    // Lines for each panel's cells: the height less the title, scale and note lines and,
    // per band of panels, the column labels (and the panels' titles).
    const std::size_t fixed = 3 + fitted * (panels > 1 ? 2 : 1);
    const std::size_t lines =
        style_.height == 0
            ? 0
            : std::max<std::size_t>(
                  1, (style_.height > fixed + 1 ? style_.height - fixed : 1) / fitted);
    // Colour shows two rows per line (half blocks) only where one per line does not fit.
    rows_per_line_ = color && lines != 0 && tallest > lines ? 2 : 1;
    const std::size_t max_rows =
        lines == 0 ? std::max<std::size_t>(
                         std::min(tallest, kMaxHeatmapRows / (layer_w > 0 ? bands : panels)), 1)
                   : lines * rows_per_line_;
    grid_ = PanelAverage(n, d, panel_rows, max_rows, room_x, info_.masked);
}

void HeatmapWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    if (table_) return table_->rows(first_row, values, n_rows);
    grid_.add(first_row, values, n_rows, info_.dtype == Dtype::float32);
}

void HeatmapWriter::end() {
    if (table_) return table_->end();
    const std::size_t P = grid_.panels();
    const BlockAverage& g0 = grid_.panel(0);
    const std::size_t C = g0.cols();
    const std::size_t br = g0.block_rows(), bc = g0.block_cols();
    const ColorMode mode = style_.picture.color;
    const bool color = mode != ColorMode::none;
    const PictureScale shown = picture_scale(grid_, info_, style_.picture);
    const double lo = shown.lo, hi = shown.hi;
    const Colormap cmap = style_.picture.cmap.value_or(default_colormap(lo, hi));
    const auto [scale_lo, scale_hi] = colormap_range(cmap, lo, hi);
    auto colour = [&, lo = lo, hi = hi](const BlockAverage& g, std::size_t i, std::size_t j) {
        return g.masked(i, j)
                   ? kMaskedGrey
                   : colormap_color(cmap, colormap_position(cmap, shown.shown(g(i, j)), lo, hi));
    };

    std::string text;
    if (arrays_++ > 0) text += '\n';
    if (style_.picture.title) {
        text += *style_.picture.title + '\n';
    } else {
        std::string shape;
        for (std::size_t k = 0; k < info_.shape.size(); ++k)
            shape += (k ? " x " : "") + std::to_string(info_.shape[k]);
        text += fmt::format("{} ({}, {})\n", info_.title.empty() ? info_.name : info_.title, shape,
                            dtype_name(info_.dtype));
    }

    // Column labels at every step-th column, where they fit.
    std::size_t widest = 1;
    for (std::size_t j = 0; j < C; ++j)
        widest = std::max(widest, display_width(column_label(info_, j * bc)));
    const std::size_t step = nice_step(ceil_div(widest + 1, cell_width_));
    std::string header(label_width_ + 1, ' ');
    for (std::size_t j = 0; j < C; j += step) {
        const std::size_t at = label_width_ + 1 + j * cell_width_;
        if (display_width(header) > at) continue;
        header.append(at - display_width(header), ' ');
        header += column_label(info_, j * bc);
    }

    // One panel's line showing grid rows i (and i + 1 in half blocks): escape codes only
    // where the colour changes along the line.
    const std::size_t per_line = rows_per_line_;
    auto cells = [&](const BlockAverage& g, std::size_t first, std::size_t i) {
        std::string line;
        pad_left(line, label(first + i * br), label_width_);
        line += ' ';
        std::string last;
        for (std::size_t j = 0; j < C; ++j) {
            if (!color) {
                const char c = g.masked(i, j)
                                   ? '/'
                                   : ramp(colormap_position(cmap, shown.shown(g(i, j)), lo, hi));
                line.append(cell_width_, c);
                continue;
            }
            const Rgb upper = colour(g, i, j);
            if (per_line == 1) {  // the whole cell in the foreground colour
                const std::string code = fmt::format("\x1b[{}m", sgr_color(38, upper, mode));
                if (code != last) line += code;
                last = code;
                for (std::size_t k = 0; k < cell_width_; ++k) line += kFullBlock;
                continue;
            }
            const std::string code = i + 1 < g.rows()
                                         ? fmt::format("\x1b[{};{}m", sgr_color(38, upper, mode),
                                                       sgr_color(48, colour(g, i + 1, j), mode))
                                         : fmt::format("\x1b[{};49m", sgr_color(38, upper, mode));
            if (code != last) line += code;
            last = code;
            for (std::size_t k = 0; k < cell_width_; ++k) line += kUpperHalf;
        }
        if (color) line += "\x1b[0m";
        return line;
    };

    // Bands of across_ panels; within a band each panel is padded to its width, two spaces
    // between panels.
    const std::size_t panel_w = label_width_ + 1 + C * cell_width_;
    for (std::size_t b = 0; b * across_ < P; ++b) {
        const std::size_t p0 = b * across_, p1 = std::min(P, p0 + across_);
        auto band_line = [&](auto segment) {
            std::string line, pad;
            for (std::size_t p = p0; p < p1; ++p) {
                const auto [s, w] = segment(p);
                if (s.empty()) {  // a shorter panel: no trailing blanks where nothing follows
                    pad.append(panel_w + 2, ' ');
                    continue;
                }
                line += pad + s;
                pad.assign(panel_w + 2 - std::min(w, panel_w), ' ');
            }
            text += line + '\n';
        };
        if (P > 1)
            band_line([&](std::size_t p) {
                std::string t = p < info_.panel_titles.size() ? info_.panel_titles[p]
                                                              : fmt::format("panel {}", p);
                return std::pair{t, display_width(t)};
            });
        band_line([&](std::size_t) { return std::pair{header, display_width(header)}; });
        std::size_t band_rows = 0;
        for (std::size_t p = p0; p < p1; ++p)
            band_rows = std::max(band_rows, grid_.panel(p).rows());
        for (std::size_t i = 0; i < band_rows; i += per_line)
            band_line([&](std::size_t p) {
                const BlockAverage& g = grid_.panel(p);
                if (i >= g.rows()) return std::pair{std::string(), std::size_t(0)};
                return std::pair{cells(g, p * grid_.panel_rows(), i), panel_w};
            });
    }

    // The colour scale, from the smallest to the largest value.
    // Colours: kScaleCells full blocks; without colour, the ramp itself.
    std::string scale = value_label(scale_lo) + ' ';
    if (color) {
        for (std::size_t k = 0; k < kScaleCells; ++k) {
            const double t = double(k) / double(kScaleCells - 1);
            scale += fmt::format("\x1b[{}m", sgr_color(38, colormap_color(cmap, t), mode));
            scale += kFullBlock;
        }
        scale += "\x1b[0m";
    } else {
        scale += kRamp;
    }
    text += scale + fmt::format(" {}  {}", value_label(scale_hi), colormap_name(cmap));
    if (grid_.any_masked())
        text += color ? fmt::format("  \x1b[{}m{}\x1b[0m masked", sgr_color(38, kMaskedGrey, mode),
                                    kFullBlock)
                      : std::string("  / masked");
    text += '\n';
    if (grid_.averaged()) {
        std::string room = style_.height == 0 ? fmt::format("{} columns", style_.width)
                                              : fmt::format("{} x {}", style_.width, style_.height);
        if (style_.height == 0 && br > 1) room += fmt::format(" and {} lines", kMaxHeatmapRows);
        text += fmt::format("averaged in blocks of {} rows x {} columns to fit {}\n", br, bc, room);
    }
    out_.write(text);
}

}  // namespace attn::io
