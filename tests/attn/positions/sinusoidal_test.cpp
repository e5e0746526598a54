#include "attn/positions/sinusoidal.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "attn/positions/reference.hpp"

namespace {

// The closed form in quad precision (113 bits, libquadmath's own reduction): the reference
// every value is held to.
long double exact(std::int64_t i, std::size_t j, std::size_t d, bool cosine,
                  double base = 10000.0) {
    const attn_test::Quad w = attn_test::quad_frequency(base, 2 * j, d);
    return static_cast<long double>(cosine ? attn_test::quad_cos(i, w) : attn_test::quad_sin(i, w));
}

// Distance in float32 ulps between two floats (same sign handling as IEEE ordering).
std::int64_t ulp_distance(float a, float b) {
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    if (ia < 0) ia = std::int32_t(0x80000000u) - ia;
    if (ib < 0) ib = std::int32_t(0x80000000u) - ib;
    return std::llabs(std::int64_t(ia) - std::int64_t(ib));
}

}  // namespace

TEST_CASE("positions::positional_encoding: columns are sin/cos of i / base^(2j/d)") {
    const auto P = attn::positions::positional_encoding(4, 5);
    CHECK(P.shape(0) == 4);
    CHECK(P.shape(1) == 5);
    CHECK(P(0, 0) == 0.0);
    CHECK(P(0, 1) == 1.0);
    CHECK(P(1, 0) == doctest::Approx(std::sin(1.0)).epsilon(1e-15));
    CHECK(P(1, 1) == doctest::Approx(std::cos(1.0)).epsilon(1e-15));
    CHECK(P(3, 2) == doctest::Approx(std::sin(3 * std::pow(10000.0, -2.0 / 5))).epsilon(1e-15));
    SUBCASE("odd d ends with a sine column") {
        CHECK(P(0, 4) == 0.0);
        CHECK(P(3, 4) == doctest::Approx(std::sin(3 * std::pow(10000.0, -4.0 / 5))).epsilon(1e-15));
    }
}

TEST_CASE("positions::positional_encoding: within 1 float32 ulp of the long-double closed form") {
    // Positions up to 2e5 cross many blocks; every value is checked.
    for (std::size_t d : {1u, 7u, 32u, 128u}) {
        const std::int64_t start = d == 7 ? 199000 : 0;
        const std::size_t n = d == 128 ? 3000 : 1000;
        const auto P = attn::positions::positional_encoding(n, d, 10000.0, start);
        std::int64_t worst = 0;
        double worst_abs = 0;
        for (std::size_t r = 0; r < n; ++r)
            for (std::size_t c = 0; c < d; ++c) {
                const long double want = exact(start + std::int64_t(r), c / 2, d, c % 2 == 1);
                worst = std::max(worst, ulp_distance(float(P(r, c)), float(want)));
                worst_abs = std::max(worst_abs, double(std::fabs(P(r, c) - want)));
            }
        INFO("d = " << d << ", worst ulp = " << worst
                    << ", worst |double - exact| = " << worst_abs);
        CHECK(worst <= 1);
        CHECK(worst_abs < 1e-15);
    }
}

TEST_CASE(
    "positions::positional_encoding: split layout holds the same values, sines then cosines") {
    for (std::size_t d : {6u, 7u}) {
        const auto I = attn::positions::positional_encoding(50, d, 100.0, 3,
                                                            attn::positions::Layout::interleaved);
        const auto S =
            attn::positions::positional_encoding(50, d, 100.0, 3, attn::positions::Layout::split);
        const std::size_t pairs = (d + 1) / 2;
        for (std::size_t r = 0; r < 50; ++r)
            for (std::size_t j = 0; j < pairs; ++j) {
                CHECK(S(r, j) == I(r, 2 * j));
                CHECK(attn::positions::sine_column(j, d, attn::positions::Layout::split) == j);
                if (2 * j + 1 < d) {
                    CHECK(S(r, pairs + j) == I(r, 2 * j + 1));
                    CHECK(attn::positions::cosine_column(j, d, attn::positions::Layout::split) ==
                          pairs + j);
                }
            }
    }
}

TEST_CASE("positions::positional_encoding: start shifts the rows, blocks do not change values") {
    const auto P = attn::positions::positional_encoding(600, 16);
    const auto Q = attn::positions::positional_encoding(100, 16, 10000.0, 500);
    for (std::size_t r = 0; r < 100; ++r)
        for (std::size_t c = 0; c < 16; ++c) CHECK(std::fabs(Q(r, c) - P(500 + r, c)) < 1e-15);
    const attn::positions::PositionalEncoder small(16, 10000.0,
                                                   attn::positions::Layout::interleaved, 7);
    CHECK(small.block_rows() == 7);
    std::vector<double> rows(7 * 16);
    small.fill(500, 7, rows.data());
    for (std::size_t k = 0; k < 7; ++k)
        for (std::size_t c = 0; c < 16; ++c)
            CHECK(std::fabs(rows[k * 16 + c] - P(500 + k, c)) < 1e-15);
}

TEST_CASE("positions::positional_encoding: negative positions are odd in sine, even in cosine") {
    const auto P = attn::positions::positional_encoding(10, 8, 10000.0, -5);
    const auto Q = attn::positions::positional_encoding(6, 8, 10000.0, 0);
    for (std::size_t k = 0; k <= 5; ++k)
        for (std::size_t j = 0; j < 4; ++j) {
            CHECK(std::fabs(P(5 - k, 2 * j) + Q(k, 2 * j)) < 1e-15);
            CHECK(std::fabs(P(5 - k, 2 * j + 1) - Q(k, 2 * j + 1)) < 1e-15);
        }
}

TEST_CASE("positions::positional_encoding: bad parameters are refused") {
    CHECK_THROWS_AS(attn::positions::PositionalEncoder(0), std::invalid_argument);
    CHECK_THROWS_AS(attn::positions::PositionalEncoder(4, 1.0), std::invalid_argument);
    CHECK_THROWS_AS(attn::positions::PositionalEncoder(4, std::nan("")), std::invalid_argument);
    CHECK_THROWS_AS(attn::positions::PositionalEncoder(4, INFINITY), std::invalid_argument);
    const attn::positions::PositionalEncoder e(4);
    std::vector<double> out(4 * 300);
    CHECK_THROWS_AS(e.fill(0, e.block_rows() + 1, out.data()), std::invalid_argument);
}

TEST_CASE(
    "positions::positional_encoding: the extended combination is float64 within 1 ulp everywhere") {
    // Rows at positions 0.., near 3,000 and 1e5 (where double angles were hundreds to
    // thousands of ulps off) and up to 2^31; d up to 512; several bases. Every value is held
    // to the quad closed form, in float64 (extended) and float32 (fast).
    struct Grid {
        std::int64_t start;
        std::size_t n, d;
        double base;
    };
    const Grid grids[] = {{0, 300, 64, 10000.0},        {2900, 300, 32, 10000.0},
                          {99900, 200, 128, 10000.0},   {0, 60, 32, 10000.0},
                          {1 << 20, 40, 512, 500000.0}, {2147483000, 600, 16, 10000.0},
                          {-2147483000, 40, 7, 3.0},    {123456789, 300, 10, 1e6}};
    for (const Grid& g : grids) {
        const auto P = attn::positions::positional_encoding(g.n, g.d, g.base, g.start,
                                                            attn::positions::Layout::interleaved,
                                                            attn::positions::Combine::extended);
        const auto F = attn::positions::positional_encoding(g.n, g.d, g.base, g.start);
        std::int64_t worst64 = 0, worst32 = 0, rounded = 0;
        for (std::size_t r = 0; r < g.n; ++r)
            for (std::size_t c = 0; c < g.d; ++c) {
                const attn_test::Quad w = attn_test::quad_frequency(g.base, 2 * (c / 2), g.d);
                const std::int64_t i = g.start + std::int64_t(r);
                const attn_test::Quad want =
                    c % 2 == 1 ? attn_test::quad_cos(i, w) : attn_test::quad_sin(i, w);
                const std::int64_t e = attn_test::ulps(P(r, c), static_cast<double>(want));
                worst64 = std::max(worst64, e);
                rounded += e == 0;
                worst32 =
                    std::max(worst32, attn_test::ulps(float(F(r, c)), static_cast<float>(want)));
            }
        INFO("start " << g.start << ", d " << g.d << ": worst float64 ulp " << worst64
                      << ", float32 (fast) " << worst32 << ", correctly rounded " << rounded
                      << " of " << g.n * g.d);
        CHECK(worst64 <= 1);
        CHECK(worst32 <= 1);
        CHECK(rounded == std::int64_t(g.n * g.d));  // 2^-100 before rounding: no near-ties here
    }
}

// The book's matrices, from tests/data/d2l (README there).
#include "io/npy.hpp"
#include "support/reference_data.hpp"

TEST_CASE("positions::positional_encoding: the book's 60 x 32 exact P, to 1 float32 ulp") {
    const auto exact_p = attn::io::read_npy(attn::test::data_path("d2l/exact_P_60x32_float64.npy"));
    REQUIRE(exact_p.shape == std::vector<std::size_t>{60, 32});
    const auto P = attn::positions::positional_encoding(60, 32);
    std::int64_t worst = 0;
    double worst_abs = 0;
    for (std::size_t k = 0; k < 60 * 32; ++k) {
        worst = std::max(worst, ulp_distance(float(P.data()[k]), float(exact_p.values[k])));
        worst_abs = std::max(worst_abs, std::fabs(P.data()[k] - exact_p.values[k]));
    }
    INFO("worst float32 ulp " << worst << ", worst |P - exact| " << worst_abs);
    CHECK(worst <= 1);
    // The file's angles i * w_j are rounded in double (x < 60): |error| <= 60 * 2^-52.
    CHECK(worst_abs < 60 * std::ldexp(1.0, -52));
}

TEST_CASE(
    "positions::positional_encoding: the book's PyTorch P (float32 angles) within its own error "
    "bound") {
    // The book computes X = i / 10000^(2j/d) in float32 (pow and divide: two roundings of
    // relative size 2^-24 each, so |X - x| <= 2 * 2^-24 * x) and takes float32 sin/cos (one
    // more rounding, <= 2^-24 absolute for |values| <= 1). Since |d sin/dx| <= 1:
    //   |P_book - P| <= 2^-24 * (2 x + 1) + 2^-24 (our float32 rounding),  x = i * w_j.
    for (const std::string file : {"book_P_60x32_float32.npy", "book_P_1000x32_float32.npy"}) {
        const auto book = attn::io::read_npy(attn::test::data_path("d2l/" + file));
        REQUIRE(book.shape.size() == 2);
        const std::size_t n = book.shape[0], d = book.shape[1];
        const auto P = attn::positions::positional_encoding(n, d);
        double worst = 0, worst_ratio = 0;
        std::size_t violations = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < d; ++c) {
                const double x = double(i) * attn::positions::pair_frequency(c / 2, d, 10000.0);
                const double bound = std::ldexp(1.0, -24) * (2 * x + 2);
                const double diff = std::fabs(double(float(P(i, c))) - book.values[i * d + c]);
                worst = std::max(worst, diff);
                worst_ratio = std::max(worst_ratio, diff / bound);
                violations += diff > bound;
            }
        INFO(file << ": worst |diff| " << worst << ", worst diff / bound " << worst_ratio);
        CHECK(violations == 0);
        CHECK(worst > 0);  // the book really is off: this is not the same computation
    }
}
