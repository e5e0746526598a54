#include "runtime/finite.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::runtime {

namespace {

// numpy's index of flat position `at` in `shape` (the last axis fastest), "(1, 0)", or "(at,)"
// when the shape does not hold `count` values.
std::string numpy_index(std::span<const std::size_t> shape, std::size_t count, std::size_t at) {
    std::vector<std::size_t> index(shape.size());
    if (!shape.empty() &&
        std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>()) == count) {
        std::size_t rest = at;
        for (std::size_t a = shape.size(); a-- > 0;) index[a] = rest % shape[a], rest /= shape[a];
    } else {
        index = {at};
    }
    return fmt::format("({}{})", fmt::join(index, ", "), index.size() == 1 ? "," : "");
}

}  // namespace

std::optional<std::size_t> first_non_finite(std::span<const double> values) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) return i;
    return std::nullopt;
}

void check_finite(std::span<const double> values, std::span<const std::size_t> shape,
                  std::string_view name) {
    const auto at = first_non_finite(values);
    if (!at) return;
    const double v = values[*at];
    throw std::invalid_argument(fmt::format("{}: element {} is {}; attention needs finite numbers",
                                            name, numpy_index(shape, values.size(), *at),
                                            std::isnan(v) ? "nan"
                                            : v > 0       ? "inf"
                                                          : "-inf"));
}

void check_within(std::span<const double> values, std::span<const std::size_t> shape,
                  std::string_view name, double largest, std::string_view dtype) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!(std::fabs(values[i]) <= largest))
            throw std::invalid_argument(
                fmt::format("{}: element {} is {}, above {}'s largest value {}", name,
                            numpy_index(shape, values.size(), i), values[i], dtype, largest));
}

}  // namespace attn::runtime
