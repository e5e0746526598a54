// runtime::check_finite: the first nan or inf of a tensor, or the first value above a narrower
// dtype's largest, named by numpy's index.
#include "runtime/finite.hpp"

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/throws.hpp"

using attn::test::invalid_argument_of;

TEST_CASE("check_finite: the first value that is nan, inf or -inf, by its index") {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> fine = {1, -2, 1e308, -1e-320, 0};
    CHECK(!attn::runtime::first_non_finite(fine));
    attn::runtime::check_finite(fine, std::vector<std::size_t>{5}, "v");

    // (2, 3, 2): flat 9 is (1, 1, 1), the last axis fastest; the first one found is named
    std::vector<double> v(12, 0.5);
    v[9] = -inf, v[11] = nan;
    CHECK(attn::runtime::first_non_finite(v) == std::optional<std::size_t>(9));
    const std::vector<std::size_t> shape = {2, 3, 2};
    CHECK(invalid_argument_of([&] { attn::runtime::check_finite(v, shape, "X.npy"); }) ==
          "X.npy: element (1, 1, 1) is -inf; attention needs finite numbers");
    v[9] = 0.5;
    CHECK(invalid_argument_of([&] { attn::runtime::check_finite(v, shape, "X.npy"); }) ==
          "X.npy: element (1, 2, 1) is nan; attention needs finite numbers");
    v[11] = inf;
    const std::vector<std::size_t> flat = {12};
    CHECK(invalid_argument_of([&] { attn::runtime::check_finite(v, flat, "t"); }) ==
          "t: element (11,) is inf; attention needs finite numbers");
    // a shape that does not hold the values: the flat index
    CHECK(invalid_argument_of([&] {
              attn::runtime::check_finite(v, std::vector<std::size_t>{5, 2}, "t");
          }) == "t: element (11,) is inf; attention needs finite numbers");
}

TEST_CASE("check_finite in a dtype: the first value above its largest, by its index") {
    const std::vector<double> v = {1, -65504, 65504.5, 1e39};
    const std::vector<std::size_t> shape = {2, 2};
    attn::runtime::check_finite(v, shape, "x", 1e39, "float64");
    CHECK(invalid_argument_of([&] {
              attn::runtime::check_finite(v, shape, "X.npy", 3.4028234663852886e+38, "float32");
          }) ==
          "X.npy: element (1, 1) is 1e+39, above float32's largest value "
          "3.4028234663852886e+38");
    CHECK(invalid_argument_of([&] {
              attn::runtime::check_finite(v, shape, "w", 65504, "float16");
          }) == "w: element (1, 0) is 65504.5, above float16's largest value 65504");
}
