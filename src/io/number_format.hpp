// How one value becomes text, shared by the text writers.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <optional>

#include "io/dtype.hpp"

namespace attn::io {

/// Appends v rounded once to dtype: the shortest text that reads back to the same
/// float32/float64 (0.1f -> "0.1"), or `precision` significant digits ("{:.Ng}").
inline void append_number(fmt::memory_buffer& out, double v, Dtype dtype,
                          std::optional<int> precision) {
    auto it = std::back_inserter(out);
    if (dtype == Dtype::float32) {
        const float f = static_cast<float>(v);
        if (precision)
            fmt::format_to(it, FMT_COMPILE("{:.{}g}"), f, *precision);
        else
            fmt::format_to(it, FMT_COMPILE("{}"), f);
    } else {
        if (precision)
            fmt::format_to(it, FMT_COMPILE("{:.{}g}"), v, *precision);
        else
            fmt::format_to(it, FMT_COMPILE("{}"), v);
    }
}

}  // namespace attn::io
