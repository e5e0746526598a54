#include "runtime/finite.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace attn::runtime {

std::optional<std::size_t> first_non_finite(std::span<const double> values) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) return i;
    return std::nullopt;
}

void throw_non_finite(std::span<const double> values, std::span<const std::size_t> shape,
                      std::size_t at, std::string_view name) {
    // numpy's index of flat position `at`: the last axis varies fastest
    std::vector<std::size_t> index(shape.size());
    const bool indexable = std::accumulate(shape.begin(), shape.end(), std::size_t{1},
                                           std::multiplies<>()) == values.size();
    if (indexable && !shape.empty()) {
        std::size_t rest = at;
        for (std::size_t a = shape.size(); a-- > 0;) index[a] = rest % shape[a], rest /= shape[a];
    } else {
        index = {at};
    }
    const double v = values[at];
    throw std::invalid_argument(
        fmt::format("{}: element ({}{}) is {}; attention needs finite numbers", name,
                    fmt::join(index, ", "), index.size() == 1 ? "," : "",
                    std::isnan(v) ? "nan"
                    : v > 0       ? "inf"
                                  : "-inf"));
}

void check_finite(std::span<const double> values, std::span<const std::size_t> shape,
                  std::string_view name) {
    if (const auto at = first_non_finite(values)) throw_non_finite(values, shape, *at, name);
}

}  // namespace attn::runtime
