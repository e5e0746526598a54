#include "attn/positions/alibi.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "attn/positions/reference.hpp"

using attn_test::Quad;

namespace {

// The slopes as BLOOM's build_alibi_tensor writes them, in quad: base = 2^(-(2^-(log2 P - 3))),
// slopes base^1..base^P, then extra_base = 2^(-(2^-(log2 2P - 3))) to the odd powers.
std::vector<Quad> bloom_slopes(std::size_t H) {
    const std::size_t P = std::size_t{1} << static_cast<int>(std::floor(std::log2(double(H))));
    const Quad base = powq(2, -powq(2, -(log2q(Quad(P)) - 3)));
    std::vector<Quad> s;
    for (std::size_t h = 1; h <= P; ++h) s.push_back(powq(base, Quad(h)));
    const Quad extra = powq(2, -powq(2, -(log2q(Quad(2 * P)) - 3)));
    const std::size_t remaining = std::min(P, H - P);
    for (std::size_t k = 0; k < remaining; ++k) s.push_back(powq(extra, Quad(2 * k + 1)));
    return s;
}

}  // namespace

TEST_CASE("alibi: H = 8 and H = 12 slopes are the paper's and BLOOM's") {
    const auto s8 = attn::positions::alibi_slopes(8);
    REQUIRE(s8.size() == 8);
    for (std::size_t h = 0; h < 8; ++h) CHECK(s8[h] == std::ldexp(1.0, -int(h) - 1));
    const auto s12 = attn::positions::alibi_slopes(12);
    REQUIRE(s12.size() == 12);
    for (std::size_t h = 0; h < 8; ++h) CHECK(s12[h] == s8[h]);
    const double root_half = 0.70710678118654752440;  // 2^-0.5 rounded
    CHECK(s12[8] == root_half);
    CHECK(s12[9] == root_half / 2);
    CHECK(s12[10] == root_half / 4);
    CHECK(s12[11] == root_half / 8);
}

TEST_CASE("alibi: slopes for every H up to 300 within 1 ulp (double and float)") {
    for (std::size_t H = 1; H <= 300; ++H) {
        const auto got = attn::positions::alibi_slopes(H);
        const auto want = bloom_slopes(H);
        REQUIRE(got.size() == H);
        REQUIRE(want.size() == H);
        std::int64_t worst = 0, worst32 = 0;
        for (std::size_t h = 0; h < H; ++h) {
            worst = std::max(worst, attn_test::ulps(got[h], double(want[h])));
            worst32 = std::max(worst32, attn_test::ulps(float(got[h]), float(want[h])));
        }
        INFO("H = " << H);
        CHECK(worst <= 1);
        CHECK(worst32 <= 1);
    }
}

TEST_CASE("alibi: bias rows are -m_h |i - j|, head by head") {
    const std::size_t H = 3, n = 5;
    const attn::positions::AlibiBias bias(H, n);
    CHECK(bias.rows() == 15);
    const auto m = bloom_slopes(H);  // 2^-4, 2^-8, then 2^-2
    std::vector<double> all(bias.rows() * n);
    bias.fill(0, 7, all.data());  // streamed in two pieces
    bias.fill(7, 8, all.data() + 7 * n);
    for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                const double want = double(-m[h] * Quad(i > j ? i - j : j - i));
                const double got = all[(h * n + i) * n + j];
                CHECK(got == want);
                if (i == j) CHECK(!std::signbit(got));  // +0 on the diagonal
            }
    CHECK(all[(0 * n + 0) * n + 4] == -4.0 / 16);
    CHECK(all[(2 * n + 4) * n + 0] == -4.0 / 4);
    // H = 6 at a long distance: m = 2^-1.5 etc., products within 1 ulp.
    const attn::positions::AlibiBias wide(6, 100000);
    std::vector<double> row(100000);
    wide.fill(5 * 100000 + 99999, 1, row.data());
    const Quad m5 = bloom_slopes(6)[5];
    std::int64_t worst = 0;
    for (std::size_t j = 0; j < row.size(); ++j)
        worst = std::max(worst, attn_test::ulps(row[j], double(-m5 * Quad(99999 - j))));
    CHECK(worst <= 1);
    CHECK_THROWS_AS(attn::positions::alibi_slopes(0), std::invalid_argument);
    CHECK_THROWS_AS(attn::positions::AlibiBias(4, 0), std::invalid_argument);
    CHECK_THROWS_AS(bias.fill(14, 2, all.data()), std::invalid_argument);
}
