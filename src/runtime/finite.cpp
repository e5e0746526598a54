#include "runtime/finite.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "runtime/shape_tuple.hpp"

namespace attn::runtime {

namespace {

// The flat index of the first value that is nan or of magnitude above `largest`.
std::optional<std::size_t> first_outside(std::span<const double> values, double largest) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!(std::fabs(values[i]) <= largest)) return i;
    return std::nullopt;
}

}  // namespace

std::optional<std::size_t> first_non_finite(std::span<const double> values) {
    return first_outside(values, std::numeric_limits<double>::max());
}

void check_finite(std::span<const double> values, std::span<const std::size_t> shape,
                  std::string_view name, double largest, std::string_view dtype) {
    const auto at = first_outside(values, largest);
    if (!at) return;
    // numpy's index of the flat position (the last axis fastest), else the flat index
    std::vector<std::size_t> index(shape.size());
    if (!shape.empty() && std::accumulate(shape.begin(), shape.end(), std::size_t{1},
                                          std::multiplies<>()) == values.size()) {
        std::size_t rest = *at;
        for (std::size_t a = shape.size(); a-- > 0;) index[a] = rest % shape[a], rest /= shape[a];
    } else {
        index = {*at};
    }
    const double v = values[*at];
    if (!std::isfinite(v))
        throw std::invalid_argument(fmt::format(
            "{}: element {} is {}; attention needs finite numbers", name, shape_tuple(index),
            std::isnan(v) ? "nan"
            : v > 0       ? "inf"
                          : "-inf"));
    throw std::invalid_argument(fmt::format("{}: element {} is {}, above {}'s largest value {}",
                                            name, shape_tuple(index), v, dtype, largest));
}

}  // namespace attn::runtime
