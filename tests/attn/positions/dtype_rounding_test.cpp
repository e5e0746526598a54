#include "attn/positions/dtype_rounding.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace pos = attn::positions;
using pos::AngleDtype;
using pos::DoubleDouble;

TEST_CASE("dtype_angle: fl(fl(i) fl(f)) in bfloat16, float16 and float32") {
    const DoubleDouble one{1.0, 0.0};
    // bfloat16 integers are exact to 256; 257 is a tie between 256 and 258: to even, 256.
    CHECK(pos::dtype_angle(AngleDtype::bfloat16, 256, one) == 256);
    CHECK(pos::dtype_angle(AngleDtype::bfloat16, 257, one) == 256);
    CHECK(pos::dtype_angle(AngleDtype::bfloat16, 259, one) == 260);
    // float16: 2049 is a tie (to 2048); past 65504 the position is inf.
    CHECK(pos::dtype_angle(AngleDtype::float16, 2049, one) == 2048);
    CHECK(std::isinf(pos::dtype_angle(AngleDtype::float16, 65520, one)));
    CHECK(pos::dtype_angle(AngleDtype::float16, 65519, one) == 65504);
    // The product is rounded once: 3 * fl(0.1) in bfloat16 is fl(0.30029296875) = 0.30078125.
    CHECK(pos::dtype_angle(AngleDtype::bfloat16, 3, {0.1, 0.0}) == 0.30078125);
    CHECK(pos::dtype_angle(AngleDtype::float32, 3, {0.1, 0.0}) == static_cast<double>(3.0f * 0.1f));
}

TEST_CASE("dtype_sincos: the exact sin and cos of the angle, rounded; NaN for inf") {
    double s = 0, c = 0;
    pos::dtype_sincos(AngleDtype::float16, 1.0, s, c);
    CHECK(s == 0.84130859375);  // sin 1 = 0.841470..., float16 step 2^-11 there
    CHECK(c == 0.54052734375);
    pos::dtype_sincos(AngleDtype::float16, INFINITY, s, c);
    CHECK((std::isnan(s) && std::isnan(c)));
}

TEST_CASE("round_values: a value near a midpoint is rounded from its exact form") {
    // v lies on the bfloat16 midpoint 1 + 2^-8; the exact value is a hair above or below.
    for (const double lo : {1e-20, -1e-20}) {
        std::vector<double> v{1 + 0x1p-8, 0.3};
        int asked = 0;
        pos::round_values(attn::runtime::Reduced::bfloat16, v.data(), v.size(), 1e-15, 0,
                          [&](std::size_t k) {
                              ++asked;
                              CHECK(k == 0);
                              return DoubleDouble{1 + 0x1p-8, lo};
                          });
        CHECK(asked == 1);  // 0.3 is far from every midpoint
        CHECK(v[0] == (lo > 0 ? 1 + 0x1p-7 : 1.0));
        CHECK(v[1] == 0.30078125);
    }
    // Near zero the sign of the zero comes from the exact value.
    std::vector<double> z{1e-30};
    pos::round_values(attn::runtime::Reduced::float16, z.data(), 1, 1e-15, 0, [](std::size_t) {
        return DoubleDouble{-1e-30, 0};
    });
    CHECK((z[0] == 0 && std::signbit(z[0])));
}
