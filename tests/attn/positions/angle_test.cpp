#include "attn/positions/angle.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attn/positions/reference.hpp"

using attn::positions::DoubleDouble;
using attn_test::Quad;
using attn_test::ulps;

namespace {

// Positions: small ones, the ones where double angles fail (near 3,000, 1e5), and a sample up
// to 2^31.
std::vector<std::int64_t> positions() {
    std::vector<std::int64_t> xs;
    for (std::int64_t x = 0; x < 64; ++x) xs.push_back(x);
    for (std::int64_t x = 2990; x < 3010; ++x) xs.push_back(x);
    for (std::int64_t x = 99990; x < 100010; ++x) xs.push_back(x);
    xs.push_back((std::int64_t{1} << 31) - 1);
    xs.push_back(std::int64_t{1} << 31);
    xs.push_back(-(std::int64_t{1} << 31));
    attn_test::Lcg lcg;
    for (int s = 0; s < 120; ++s) xs.push_back(static_cast<std::int64_t>(lcg.next(1ULL << 31)));
    return xs;
}

}  // namespace

TEST_CASE("angle: inverse_power is base^(-num/den) to about 106 bits") {
    for (double base : {10000.0, 500000.0, 2.5, 1e6})
        for (std::size_t d : {2u, 7u, 64u, 512u})
            for (std::size_t num = 0; num < d; num += 1) {
                const DoubleDouble f = attn::positions::inverse_power(base, num, d);
                const Quad want = attn_test::quad_frequency(base, num, d);
                const Quad got = static_cast<Quad>(f.hi) + static_cast<Quad>(f.lo);
                CHECK(static_cast<double>(fabsq(got - want) / want) < 0x1p-104);
                CHECK(std::fabs(f.lo) <= std::ldexp(std::fabs(f.hi), -53));
            }
}

TEST_CASE("angle: sin/cos(x f) within 1 ulp in double and float, |x| <= 2^31, d <= 512") {
    const auto xs = positions();
    std::int64_t worst64 = 0, worst32 = 0, exact64 = 0, total = 0;
    for (double base : {10000.0, 500000.0, 3.0})
        for (std::size_t d : {2u, 32u, 128u, 512u})
            for (std::size_t j = 0; j < d / 2; j += (d == 512 ? 5 : 1)) {
                const DoubleDouble f = attn::positions::inverse_power(base, 2 * j, d);
                const Quad fq = attn_test::quad_frequency(base, 2 * j, d);
                for (std::int64_t x : xs) {
                    const auto v = attn::positions::sincos(x, f);
                    const Quad s = attn_test::quad_sin(x, fq), c = attn_test::quad_cos(x, fq);
                    const std::int64_t es = ulps(attn::positions::to_double(v.sin), double(s));
                    const std::int64_t ec = ulps(attn::positions::to_double(v.cos), double(c));
                    worst64 = std::max({worst64, es, ec});
                    exact64 += (es == 0) + (ec == 0);
                    total += 2;
                    worst32 = std::max({worst32, ulps(attn::positions::to_float(v.sin), float(s)),
                                        ulps(attn::positions::to_float(v.cos), float(c))});
                }
            }
    INFO("worst float64 ulp " << worst64 << ", float32 " << worst32 << ", correctly rounded "
                              << exact64 << " of " << total);
    CHECK(worst64 <= 1);
    CHECK(worst32 <= 1);
    CHECK(exact64 == total);  // quad is 7 bits beyond double-double: no case near a midpoint
}

TEST_CASE("angle: sincos of double-double angles near multiples of pi/2 and beyond 2^52") {
    // a = the double nearest k pi/2 (remainders near 2^-60), and large angles.
    for (double k : {1.0, 2.0, 3.0, 7.0, 1e6, 6381956970095103.0 /* 2^52.5 */}) {
        const Quad a = static_cast<Quad>(k) * attn_test::quad_pi() / 2;
        const double hi = static_cast<double>(a);
        for (double lo_scale : {0.0, 1e-20}) {
            const DoubleDouble x{hi, hi * lo_scale * 0x1p-60};
            const auto v = attn::positions::sincos(x);
            const Quad xq = static_cast<Quad>(x.hi) + static_cast<Quad>(x.lo);
            INFO("k = " << k);
            CHECK(ulps(attn::positions::to_double(v.sin), double(sinq(xq))) <= 1);
            CHECK(ulps(attn::positions::to_double(v.cos), double(cosq(xq))) <= 1);
        }
    }
}

TEST_CASE("angle: to_float rounds hi + lo once") {
    // 1 + 2^-24 is the midpoint of 1 and the next float: lo decides.
    CHECK(attn::positions::to_float({1.0 + 0x1p-24, 0x1p-80}) == 1.0f + 0x1p-23f);
    CHECK(attn::positions::to_float({1.0 + 0x1p-24, -0x1p-80}) == 1.0f);
    CHECK(attn::positions::to_float({1.0 + 0x1p-24, 0.0}) == 1.0f);  // tie to even
    CHECK(attn::positions::to_float({-1.0 - 0x1p-24, -0x1p-80}) == -1.0f - 0x1p-23f);
    CHECK(attn::positions::to_float({0.1, 0.0}) == 0.1f);
}
