// Label text shared by the writers that lay out labels for people (table, svg, heatmap).
#pragma once

#include <cstddef>
#include <string>

#include "io/array_sink.hpp"

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

/// Column j's label, or its index where the array names none.
inline std::string column_label(const ArrayInfo& info, std::size_t j) {
    return j < info.column_labels.size() ? info.column_labels[j] : std::to_string(j);
}

}  // namespace attn::io
