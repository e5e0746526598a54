// Label text shared by the writers: laid out for people (table, svg, heatmap), or a field's
// text as the text formats write it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "io/array_sink.hpp"
#include "io/number_format.hpp"

namespace attn::io {

/// Columns a UTF-8 string takes on a terminal: its code points (no East Asian wide forms).
inline std::size_t display_width(const std::string& s) {
    std::size_t w = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++w;
    return w;
}

/// Row r's label fields joined by spaces, e.g. "3 eat".
inline std::string row_label(const ArrayInfo& info, std::size_t r) {
    std::string s;
    for (const auto& l : info.labels) {
        if (!s.empty()) s += ' ';
        s += l.value(r);
    }
    return s;
}

/// Row r's field of `label` as text: a label's number written as the writers write values
/// (precision significant digits, else the shortest text that reads back), else its text.
inline std::string label_text(const LabelColumn& label, std::size_t r,
                              std::optional<int> precision) {
    if (!label.number) return label.value(r);
    fmt::memory_buffer b;
    append_number(b, label.number(r), label.dtype, precision);
    return fmt::to_string(b);
}

/// Column j's label, or its index where the array names none.
inline std::string column_label(const ArrayInfo& info, std::size_t j) {
    return j < info.column_labels.size() ? info.column_labels[j] : std::to_string(j);
}

}  // namespace attn::io
