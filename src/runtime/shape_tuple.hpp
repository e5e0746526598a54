// A shape as numpy prints it, in messages of every layer: (2, 3), (4,), ().
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <string>
#include <vector>

namespace attn::runtime {

inline std::string shape_tuple(const std::vector<std::size_t>& shape) {
    return fmt::format("({}{})", fmt::join(shape, ", "), shape.size() == 1 ? "," : "");
}

}  // namespace attn::runtime
