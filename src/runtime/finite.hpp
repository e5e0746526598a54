// Numbers an attention computes with must be finite: one nan or inf in X, in a weight or in a
// table turns whole rows of the result into nan, or, through the softmax's guards, into rows
// of silent zeros. Readers of such numbers refuse them, naming the first one; so does a run in
// a narrower dtype for a finite value that would be inf there.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

namespace attn::runtime {

/// The flat index of the first nan or +-inf in values, nullopt when every value is finite.
std::optional<std::size_t> first_non_finite(std::span<const double> values);

/// std::invalid_argument for the first value that is not finite or, given the largest finite
/// value of a narrower `dtype`, is above it in magnitude; its index numpy's for `shape`
/// (row-major; the flat index when shape's product differs):
///   X.npy: element (1, 0) is nan; attention needs finite numbers
///   X.npy: element (1, 0) is 1e+39, above float32's largest value 3.4028234663852886e+38
void check_finite(std::span<const double> values, std::span<const std::size_t> shape,
                  std::string_view name, double largest = std::numeric_limits<double>::max(),
                  std::string_view dtype = "float64");

}  // namespace attn::runtime
