// How one value becomes text, shared by the text writers.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>

#include "io/dtype.hpp"

namespace attn::io {

/// The shortest decimal text (at most 17 digits) that reads back, through the nearest double, to
/// the same value of the format: bfloat16 0.10009765625 -> "0.1". v is a value of the format.
inline char* shortest_reduced(char* text, double v, runtime::Reduced format) {
    if (!std::isfinite(v) || v == 0) return fmt::format_to(text, FMT_COMPILE("{}"), v);
    for (int digits = 1;; ++digits) {
        char* end = fmt::format_to(text, FMT_COMPILE("{:.{}g}"), v, digits);
        double back = 0;
        std::from_chars(text, end, back);
        // The decimal's double printed as fmt prints doubles: 65500, not 6.55e+04.
        if (runtime::round_to(format, back) == v)
            return fmt::format_to(text, FMT_COMPILE("{}"), back);
        if (digits >= 17) return end;
    }
}

/// Appends v rounded once to dtype: the shortest text that reads back to the same
/// float32/float64 (0.1f -> "0.1") or bfloat16/float16 value, or `precision` significant digits
/// ("{:.Ng}"); an int64 is written as an integer ("17", no decimal point), whatever the precision.
inline void append_number(fmt::memory_buffer& out, double v, Dtype dtype,
                          std::optional<int> precision) {
    // Formatting into a local array is fmt's fastest path (no per-character growth
    // checks); 32 characters hold any float or double up to 17 significant digits.
    char text[32];
    char* end;
    if (dtype == Dtype::int64 && std::fabs(v) < 9.2e18) {  // finite, fits in 64 bits
        end = fmt::format_to(text, FMT_COMPILE("{}"), static_cast<long long>(std::nearbyint(v)));
    } else if (dtype == Dtype::float32) {
        const float f = static_cast<float>(v);
        end = precision ? fmt::format_to(text, FMT_COMPILE("{:.{}g}"), f, *precision)
                        : fmt::format_to(text, FMT_COMPILE("{}"), f);
    } else if (const auto format = reduced_format(dtype)) {
        const double r = runtime::round_to(*format, v);
        end = precision ? fmt::format_to(text, FMT_COMPILE("{:.{}g}"), r, *precision)
                        : shortest_reduced(text, r, *format);
    } else {
        end = precision ? fmt::format_to(text, FMT_COMPILE("{:.{}g}"), v, *precision)
                        : fmt::format_to(text, FMT_COMPILE("{}"), v);
    }
    out.append(text, end);
}

}  // namespace attn::io
