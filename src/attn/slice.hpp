// Python-style half-open slices "A:B" over an axis of a given length.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn {

/// [begin, end) after normalization.
struct Slice {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t size() const { return end - begin; }
};

/// Parses "A:B", "A:", ":B", ":" or "A" (one index) against an axis of `length`.
/// Negative A or B count from the end, as in Python. Unlike Python, an index outside
/// [-length, length] or an empty result is an error (std::invalid_argument saying the
/// accepted range), since silently printing nothing helps nobody.
Slice parse_slice(std::string_view text, std::size_t length);

}  // namespace attn
