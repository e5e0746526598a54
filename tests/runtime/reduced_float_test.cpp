#include "runtime/reduced_float.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using attn::runtime::Reduced;
using attn::runtime::round_to;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Every finite non-negative value of the format in increasing order, from its bit patterns
// (the encoding, not the rounding, defines them).
std::vector<double> finite_values(Reduced f) {
    std::vector<double> out;
    for (std::uint32_t b = 0; b < 0x8000u; ++b) {
        const double v = f == Reduced::float16
                             ? attn::runtime::from_float16_bits(static_cast<std::uint16_t>(b))
                             : attn::runtime::from_bfloat16_bits(static_cast<std::uint16_t>(b));
        if (std::isfinite(v)) out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The nearest by search, ties to the value whose last significand bit is 0 (even index in
// the sorted list, as the encoding counts up by one per value), and inf beyond the largest
// finite value plus half a step: an independent definition of round to nearest even.
double nearest_by_search(const std::vector<double>& grid, double x) {
    const double a = std::fabs(x);
    const double top = grid.back(), step = top - grid[grid.size() - 2];
    if (a >= top + step / 2) return std::copysign(kInf, x);
    const auto hi = std::lower_bound(grid.begin(), grid.end(), a);
    if (hi == grid.end()) return std::copysign(top, x);
    if (*hi == a || hi == grid.begin()) return std::copysign(*hi, x);
    const auto lo = hi - 1;
    const double up = *hi - a, down = a - *lo;
    double r;
    if (up < down)
        r = *hi;
    else if (down < up)
        r = *lo;
    else
        r = (lo - grid.begin()) % 2 == 0 ? *lo : *hi;
    return std::copysign(r, x);
}

bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

}  // namespace

TEST_CASE("round_to: equals the nearest value found by search, ties to even") {
    for (const Reduced f : {Reduced::float16, Reduced::bfloat16}) {
        const std::vector<double> grid = finite_values(f);
        CAPTURE(static_cast<int>(f));
        std::size_t wrong = 0;
        // Every value, every midpoint and the doubles beside each midpoint.
        for (std::size_t k = 0; k + 1 < grid.size(); ++k) {
            const double mid = (grid[k] + grid[k + 1]) / 2;
            for (const double x : {grid[k], mid, std::nextafter(mid, 0.0),
                                   std::nextafter(mid, kInf), -mid, -grid[k]})
                if (!same(round_to(f, x), nearest_by_search(grid, x))) ++wrong;
        }
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> exponent(-140, 130), mantissa(1, 2);
        for (int k = 0; k < 200000; ++k) {
            const double x =
                std::ldexp(mantissa(rng), static_cast<int>(exponent(rng))) * (k % 2 ? -1 : 1);
            if (!same(round_to(f, x), nearest_by_search(grid, x))) ++wrong;
        }
        CHECK(wrong == 0);
    }
}

TEST_CASE("round_to: ties, subnormals, overflow, zeros") {
    // float16 ties: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 (to even: 1); 1 + 3 2^-11
    // is halfway between 1 + 2^-10 and 1 + 2^-9 (to even: 1 + 2^-9).
    CHECK(round_to(Reduced::float16, 1 + 0x1p-11) == 1.0);
    CHECK(round_to(Reduced::float16, 1 + 3 * 0x1p-11) == 1 + 0x1p-9);
    // The low part decides a tie of the high part: hi + lo is not a tie.
    CHECK(round_to(Reduced::float16, 1 + 0x1p-11, 1e-30) == 1 + 0x1p-10);
    CHECK(round_to(Reduced::float16, 1 + 3 * 0x1p-11, -1e-30) == 1 + 0x1p-10);
    CHECK(round_to(Reduced::bfloat16, 1 + 0x1p-8) == 1.0);
    CHECK(round_to(Reduced::bfloat16, 1 + 0x1p-8, 0x1p-80) == 1 + 0x1p-7);
    // Double rounding through float32 gets this one wrong: 1 + 2^-8 + 2^-30 rounds to the
    // float32 1 + 2^-8 (a tie for bfloat16, then to even: 1); once, it is 1 + 2^-7.
    const double x = 1 + 0x1p-8 + 0x1p-30;
    CHECK(round_to(Reduced::bfloat16, x) == 1 + 0x1p-7);
    CHECK(round_to(Reduced::bfloat16, static_cast<float>(x)) == 1.0);
    // float16 subnormals: steps of 2^-24; half of the smallest rounds to (signed) zero.
    CHECK(round_to(Reduced::float16, 0x1p-24) == 0x1p-24);
    CHECK(round_to(Reduced::float16, 3 * 0x1p-26) == 0x1p-24);
    CHECK(same(round_to(Reduced::float16, 0x1p-25), 0.0));
    CHECK(same(round_to(Reduced::float16, -0x1p-25), -0.0));
    CHECK(round_to(Reduced::float16, 1.5 * 0x1p-24) == 2 * 0x1p-24);
    CHECK(round_to(Reduced::float16, 5e-8) == 0x1p-24);
    // Overflow: 65504 is the largest float16; from 65520 (the midpoint to 65536) on, inf.
    CHECK(round_to(Reduced::float16, 65504) == 65504);
    CHECK(round_to(Reduced::float16, 65519.99) == 65504);
    CHECK(round_to(Reduced::float16, 65520) == kInf);
    CHECK(round_to(Reduced::float16, -1e6) == -kInf);
    CHECK(round_to(Reduced::bfloat16, 3.39e38) == 0x1.fep127);  // the largest bfloat16
    CHECK(round_to(Reduced::bfloat16, 3.4e38) == kInf);         // above the midpoint to 2^128
    // Zeros and non-finite values keep themselves.
    CHECK(same(round_to(Reduced::float16, -0.0), -0.0));
    CHECK(same(round_to(Reduced::bfloat16, -0.0), -0.0));
    CHECK(std::isnan(round_to(Reduced::float16, NAN)));
    CHECK(round_to(Reduced::bfloat16, -kInf) == -kInf);
}

TEST_CASE("float16 and bfloat16 bits: every pattern reads and writes back") {
    std::size_t wrong = 0;
    for (std::uint32_t b = 0; b <= 0xFFFFu; ++b) {
        const auto bits = static_cast<std::uint16_t>(b);
        const double h = attn::runtime::from_float16_bits(bits);
        const bool h_nan = ((b >> 10) & 0x1f) == 0x1f && (b & 0x3ff);
        if (!h_nan && attn::runtime::float16_bits(h) != bits) ++wrong;
        const double g = attn::runtime::from_bfloat16_bits(bits);
        if (!std::isnan(g) && attn::runtime::bfloat16_bits(g) != bits) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK(attn::runtime::float16_bits(65504) == 0x7bff);
    CHECK(attn::runtime::float16_bits(-0.0) == 0x8000);
    CHECK(attn::runtime::float16_bits(0x1p-24) == 0x0001);
    CHECK(attn::runtime::bfloat16_bits(1.0) == 0x3f80);
}

TEST_CASE("distance_to_tie: the distance to the nearest midpoint") {
    using attn::runtime::distance_to_tie;
    CHECK(distance_to_tie(Reduced::float16, 1 + 0x1p-11) == 0);
    CHECK(distance_to_tie(Reduced::float16, 1.0) == 0x1p-12);  // 1 - 2^-12 is the midpoint below
    CHECK(distance_to_tie(Reduced::float16, 1 + 0x1p-10) == 0x1p-11);
    CHECK(distance_to_tie(Reduced::bfloat16, 1 + 0x1p-8 + 0x1p-30) == 0x1p-30);
    CHECK(distance_to_tie(Reduced::float16, 0.0) == 0x1p-25);
    CHECK(distance_to_tie(Reduced::float16, 65520) == 0);
    CHECK(distance_to_tie(Reduced::float16, kInf) == kInf);
}

TEST_CASE("round_all: float values rounded on their bits as round_to rounds them") {
    for (const Reduced f : {Reduced::float16, Reduced::bfloat16}) {
        CAPTURE(static_cast<int>(f));
        std::vector<float> x;
        const std::vector<double> grid = finite_values(f);
        for (std::size_t k = 0; k + 1 < grid.size(); ++k) {
            const auto mid = static_cast<float>((grid[k] + grid[k + 1]) / 2);  // exact in float
            for (const float m : {static_cast<float>(grid[k]), mid, std::nextafter(mid, 0.0f),
                                  std::nextafter(mid, 1e38f)})
                x.insert(x.end(), {m, -m});
        }
        std::mt19937 gen(24);
        std::uniform_int_distribution<std::uint32_t> bits;
        for (int k = 0; k < 200000; ++k) x.push_back(std::bit_cast<float>(bits(gen)));
        for (const float s :
             {0.0f, -0.0f, 1e-45f, 65504.0f, 65519.99f, 65520.0f, 3.4e38f,
              std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
            x.insert(x.end(), {s, -s});
        std::vector<float> got = x;
        attn::runtime::round_all(f, got.data(), got.size());
        std::size_t wrong = 0;
        for (std::size_t k = 0; k < x.size(); ++k)
            if (!same(got[k], round_to(f, x[k])) && wrong++ < 5)
                CHECK_MESSAGE(false, x[k], " -> ", got[k], ", want ", round_to(f, x[k]));
        CHECK(wrong == 0);
    }
}
