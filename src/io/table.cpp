#include "io/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "io/labels.hpp"
#include "io/number_format.hpp"

namespace attn::io {

namespace {

// Display width of UTF-8 text: code points, not bytes (no East Asian wide handling).
void pad_to(std::string& line, const std::string& text, std::size_t width, bool right) {
    const std::size_t w = display_width(text);
    const std::string pad(width > w ? width - w : 0, ' ');
    line += right ? pad + text : text + pad;
}

}  // namespace

TableWriter::TableWriter(OutputFile& out, const TextStyle& style) : out_(out), style_(style) {}

void TableWriter::begin(const ArrayInfo& info) {
    info_ = info;
    kept_rows_.clear();
    kept_values_.clear();
    const std::size_t n = info_.rows();
    // Title, header and the "..." line take 3 of the lines available.
    const std::size_t room = style_.height > 4 ? style_.height - 3 : 1;
    if (style_.height == 0 || n <= room + 1) {
        head_ = n;
        tail_ = 0;
    } else {
        head_ = (room + 1) / 2;
        tail_ = room - head_;
    }
}

void TableWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    const std::size_t d = info_.columns();
    for (std::size_t r = 0; r < n_rows; ++r) {
        if (!kept(first_row + r)) continue;
        kept_rows_.push_back(first_row + r);
        kept_values_.insert(kept_values_.end(), values + r * d, values + (r + 1) * d);
    }
}

void TableWriter::end() {
    const std::size_t d = info_.columns();
    const std::size_t n_labels = info_.labels.size();
    // Each value column picks its notation from the values shown: whole numbers (bits,
    // counts, positions) without decimals; magnitudes below 1e-3 or from 1e5 up in
    // scientific notation; otherwise fixed, 4 decimals as PyTorch. --precision sets the
    // digits after the point.
    std::vector<std::string> notation(d);
    for (std::size_t j = 0; j < d; ++j) {
        bool whole = true;
        double largest = 0;
        for (std::size_t r = 0; r < kept_rows_.size(); ++r) {
            const double v = kept_values_[r * d + j];
            if (!std::isfinite(v)) continue;
            whole = whole && v == std::trunc(v) && std::fabs(v) < 1e15;
            largest = std::max(largest, std::fabs(v));
        }
        const int digits = style_.precision.value_or(4);
        if (whole && !style_.precision)
            notation[j] = "{:.0f}";
        else if (!whole && (largest >= 1e5 || (largest > 0 && largest < 1e-3)))
            notation[j] = fmt::format("{{:.{}e}}", digits);
        else
            notation[j] = fmt::format("{{:.{}f}}", digits);
    }

    // Cells as text: label fields first, then values.
    std::vector<std::vector<std::string>> cells(kept_rows_.size());
    for (std::size_t r = 0; r < kept_rows_.size(); ++r) {
        for (const auto& label : info_.labels) cells[r].push_back(label.value(kept_rows_[r]));
        for (std::size_t j = 0; j < d; ++j) {
            double v = kept_values_[r * d + j];
            if (info_.dtype == Dtype::float32) v = static_cast<float>(v);
            cells[r].push_back(fmt::vformat(notation[j], fmt::make_format_args(v)));
        }
    }
    std::vector<std::string> header;
    for (const auto& label : info_.labels) header.push_back(label.name);
    for (const auto& c : info_.column_labels) header.push_back(c);

    std::vector<std::size_t> width(n_labels + d, 0);
    for (std::size_t c = 0; c < header.size() && c < width.size(); ++c)
        width[c] = display_width(header[c]);
    for (const auto& row : cells)
        for (std::size_t c = 0; c < row.size(); ++c)
            width[c] = std::max(width[c], display_width(row[c]));

    // Columns that fit: all, or the first `left` and the last `right` around "...",
    // taken from both ends in turn.
    std::size_t label_width = 0, total = 0;
    for (std::size_t c = 0; c < n_labels; ++c) label_width += width[c] + 2;
    for (std::size_t j = 0; j < d; ++j) total += width[n_labels + j] + 2;
    std::size_t left = d, right = 0;
    if (label_width + total > style_.width) {
        std::size_t room = style_.width > label_width + 5 ? style_.width - label_width - 5 : 0;
        left = 0;
        for (bool from_left = true; left + right < d; from_left = !from_left) {
            const std::size_t j = from_left ? left : d - 1 - right;
            const std::size_t need = width[n_labels + j] + 2;
            if (need > room && left + right > 0) break;
            room -= std::min(room, need);
            (from_left ? left : right) += 1;
        }
    }
    const bool cols_elided = left + right < d;

    auto render = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t c = 0; c < n_labels; ++c) {
            pad_to(line, row[c], width[c], info_.labels[c].numeric);
            line += "  ";
        }
        for (std::size_t j = 0; j < d; ++j) {
            if (cols_elided && j == left) {
                line += "...  ";
                j = d - right - 1;
                continue;
            }
            pad_to(line, row[n_labels + j], width[n_labels + j], true);
            line += "  ";
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        line += '\n';
        return line;
    };

    std::string text;
    if (arrays_++ > 0) text += '\n';
    std::string shape;
    for (std::size_t k = 0; k < info_.shape.size(); ++k)
        shape += (k ? " x " : "") + std::to_string(info_.shape[k]);
    const std::string& title = info_.title.empty() ? info_.name : info_.title;
    if (d == 0)  // labels only (text and exact numbers): no element type to show
        text += title + '\n';
    else
        text += fmt::format("{} ({}, {})\n", title, shape, dtype_name(info_.dtype));
    if (!info_.column_labels.empty() || n_labels > 0) text += render(header);
    for (std::size_t r = 0; r < cells.size(); ++r) {
        if (tail_ > 0 && r == head_) text += "...\n";
        text += render(cells[r]);
    }
    out_.write(text);
}

}  // namespace attn::io
