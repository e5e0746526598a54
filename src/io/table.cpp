#include "io/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "io/labels.hpp"

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
    laid_out_ = false;
    notation_.assign(info_.labels.size() + info_.columns(), Notation::whole);
    width_.assign(info_.labels.size() + info_.columns(), 0);
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
    // Without a height every row is shown: print in blocks. With one, at most `height` rows
    // are kept and printed at end(), when the tail is known.
    block_rows_ =
        style_.height == 0
            ? std::max<std::size_t>(1, kBlockValues / std::max<std::size_t>(1, info_.columns()))
            : n + 1;
}

void TableWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    const std::size_t d = info_.columns();
    for (std::size_t r = 0; r < n_rows; ++r) {
        if (!kept(first_row + r)) continue;
        kept_rows_.push_back(first_row + r);
        kept_values_.insert(kept_values_.end(), values + r * d, values + (r + 1) * d);
        if (kept_rows_.size() >= block_rows_) print_block();
    }
}

void TableWriter::end() {
    if (!kept_rows_.empty() || !laid_out_) print_block();
}

std::string TableWriter::cell(double v, Dtype dtype, std::size_t c) const {
    v = round_to_dtype(dtype, v);
    if (dtype == Dtype::int64 && std::fabs(v) < 9.2e18)
        return fmt::format("{}", static_cast<long long>(std::nearbyint(v)));
    const int digits = style_.precision.value_or(4);
    switch (notation_[c]) {
        case Notation::whole:
            return fmt::format("{:.0f}", v);
        case Notation::fixed:
            return fmt::format("{:.{}f}", v, digits);
        case Notation::scientific:
            break;
    }
    return fmt::format("{:.{}e}", v, digits);
}

std::string TableWriter::render(const std::vector<std::string>& row) const {
    const std::size_t d = info_.columns();
    const std::size_t n_labels = info_.labels.size();
    const bool cols_elided = left_ + right_ < d;
    std::string line;
    for (std::size_t c = 0; c < n_labels; ++c) {
        pad_to(line, row[c], width_[c], info_.labels[c].numeric);
        line += "  ";
    }
    for (std::size_t j = 0; j < d; ++j) {
        if (cols_elided && j == left_) {
            line += "...  ";
            j = d - right_ - 1;
            continue;
        }
        pad_to(line, row[n_labels + j], width_[n_labels + j], true);
        line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    line += '\n';
    return line;
}

void TableWriter::print_block() {
    const std::size_t d = info_.columns();
    const std::size_t n_labels = info_.labels.size();
    const std::size_t n_kept = kept_rows_.size();
    // Each value column picks its notation from the values shown: whole numbers (bits,
    // counts, positions) without decimals; scientific when the magnitudes reach 1e5, stay
    // below 1e-3, or when a non-zero value would keep fewer than two significant digits in
    // fixed notation (1.4e-5 or 5.85e-5 beside 0.5 at 4 decimals: 0.0000, 0.0001); otherwise
    // fixed, 4 decimals as PyTorch. --precision sets the digits after the point. A column
    // only moves towards scientific.
    // A label field that carries a number (a table's real column) is a column as these.
    const int digits = style_.precision.value_or(4);
    const double one_digit_left = std::pow(10.0, 1 - digits);
    const auto number = [&](std::size_t c, std::size_t r) {
        return c < n_labels ? info_.labels[c].number(kept_rows_[r])
                            : kept_values_[r * d + c - n_labels];
    };
    for (std::size_t c = 0; c < n_labels + d; ++c) {
        if (c < n_labels && !info_.labels[c].number) continue;
        bool whole = true;
        double largest = 0, smallest = INFINITY;  // of the finite non-zero magnitudes
        for (std::size_t r = 0; r < n_kept; ++r) {
            const double v = number(c, r);
            if (!std::isfinite(v)) continue;
            whole = whole && v == std::trunc(v) && std::fabs(v) < 1e15;
            if (v != 0) {
                largest = std::max(largest, std::fabs(v));
                smallest = std::min(smallest, std::fabs(v));
            }
        }
        Notation want = Notation::fixed;
        if (whole && !style_.precision)
            want = Notation::whole;
        else if (!whole &&
                 (largest >= 1e5 || (largest > 0 && largest < 1e-3) || smallest < one_digit_left))
            want = Notation::scientific;
        notation_[c] = std::max(notation_[c], want);
    }

    // Cells as text: label fields first, then values.
    std::vector<std::vector<std::string>> cells(n_kept);
    for (std::size_t r = 0; r < n_kept; ++r) {
        for (std::size_t c = 0; c < n_labels; ++c) {
            const LabelColumn& label = info_.labels[c];
            cells[r].push_back(label.number ? cell(number(c, r), label.dtype, c)
                                            : label.value(kept_rows_[r]));
        }
        for (std::size_t j = 0; j < d; ++j)
            cells[r].push_back(cell(kept_values_[r * d + j], info_.dtype, n_labels + j));
    }
    for (const auto& row : cells)
        for (std::size_t c = 0; c < row.size(); ++c)
            width_[c] = std::max(width_[c], display_width(row[c]));

    std::string text;
    if (!laid_out_) {
        std::vector<std::string> header;
        for (const auto& label : info_.labels) header.push_back(label.name);
        for (const auto& c : info_.column_labels) header.push_back(c);
        for (std::size_t c = 0; c < header.size() && c < width_.size(); ++c)
            width_[c] = std::max(width_[c], display_width(header[c]));
        // The last row's labels (positions grow in width) when the rows stream in blocks.
        if (info_.rows() > 0 && block_rows_ <= info_.rows())
            for (std::size_t c = 0; c < n_labels; ++c)
                width_[c] =
                    std::max(width_[c], display_width(info_.labels[c].value(info_.rows() - 1)));

        // Columns that fit: all, or the first `left` and the last `right` around "...",
        // taken from both ends in turn.
        std::size_t label_width = 0, total = 0;
        for (std::size_t c = 0; c < n_labels; ++c) label_width += width_[c] + 2;
        for (std::size_t j = 0; j < d; ++j) total += width_[n_labels + j] + 2;
        left_ = d;
        right_ = 0;
        if (label_width + total > style_.width) {
            std::size_t room = style_.width > label_width + 5 ? style_.width - label_width - 5 : 0;
            left_ = 0;
            for (bool from_left = true; left_ + right_ < d; from_left = !from_left) {
                const std::size_t j = from_left ? left_ : d - 1 - right_;
                const std::size_t need = width_[n_labels + j] + 2;
                if (need > room && left_ + right_ > 0) break;
                room -= std::min(room, need);
                (from_left ? left_ : right_) += 1;
            }
        }

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
        laid_out_ = true;
    }
    for (std::size_t r = 0; r < n_kept; ++r) {
        if (tail_ > 0 && kept_rows_[r] == info_.rows() - tail_) text += "...\n";
        text += render(cells[r]);
    }
    out_.write(text);
    kept_rows_.clear();
    kept_values_.clear();
}

}  // namespace attn::io
