#include "attn/rotation.hpp"

#include <doctest/doctest.h>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

using attn::Precision;

namespace {

// The book's claim in long double, for one pair: R p_i vs p_(i+delta).
long double pair_value(std::int64_t i, std::size_t j, std::size_t d, bool cosine) {
    const long double w = std::pow(10000.0L, -static_cast<long double>(2 * j) / d);
    return cosine ? std::cos(i * w) : std::sin(i * w);
}

double max_error(const std::vector<attn::OffsetResult>& rs) {
    double m = 0;
    for (const auto& r : rs) m = std::max(m, r.max_error);
    return m;
}

}  // namespace

TEST_CASE("rotation: closed forms of R_j, M_delta and sum_j cos(delta w_j)") {
    const std::size_t d = 8;
    for (std::int64_t delta : {0, 1, 7, -3}) {
        for (std::size_t j = 0; j < d / 2; ++j) {
            const double w = std::pow(10000.0, -2.0 * j / d);
            const auto R = attn::pair_rotation(delta, j, d, 10000.0, Precision::float64);
            CHECK(R.cos == doctest::Approx(std::cos(delta * w)).epsilon(1e-15));
            CHECK(R.sin == doctest::Approx(std::sin(delta * w)).epsilon(1e-15));
            // R maps (sin iw, cos iw) to (sin (i+delta)w, cos (i+delta)w): the chapter's algebra.
            const std::int64_t i = 11;
            const double y0 =
                R.cos * pair_value(i, j, d, false) + R.sin * pair_value(i, j, d, true);
            const double y1 =
                -R.sin * pair_value(i, j, d, false) + R.cos * pair_value(i, j, d, true);
            CHECK(std::fabs(y0 - double(pair_value(i + delta, j, d, false))) < 1e-15);
            CHECK(std::fabs(y1 - double(pair_value(i + delta, j, d, true))) < 1e-15);
        }
        long double want = 0;
        for (std::size_t j = 0; j < d / 2; ++j)
            want += std::cos(delta * std::pow(10000.0L, -2.0L * j / d));
        CHECK(attn::dot_closed_form(delta, d, 10000.0) ==
              doctest::Approx(double(want)).epsilon(1e-15));
    }
    CHECK(attn::dot_closed_form(0, 512, 10000.0) == 256.0);

    const auto M = attn::offset_matrix(2, 4, 10000.0, Precision::float64);
    const auto R0 = attn::pair_rotation(2, 0, 4, 10000.0, Precision::float64);
    const auto R1 = attn::pair_rotation(2, 1, 4, 10000.0, Precision::float64);
    const xt::xtensor<double, 2> want = {{R0.cos, R0.sin, 0, 0},
                                         {-R0.sin, R0.cos, 0, 0},
                                         {0, 0, R1.cos, R1.sin},
                                         {0, 0, -R1.sin, R1.cos}};
    CHECK(xt::amax(xt::abs(M - want))() == 0.0);
}

TEST_CASE("rotation: M_delta applied to P reproduces the shifted P") {
    const std::size_t n = 300, d = 64;
    for (std::int64_t delta : {1, 5, 37}) {
        const xt::xtensor<double, 2> P = attn::positions::positional_encoding(
            n, d, 10000.0, 0, attn::positions::Layout::interleaved,
            attn::positions::Combine::extended);
        const xt::xtensor<double, 2> M = attn::offset_matrix(delta, d, 10000.0, Precision::float64);
        const std::size_t m = n - static_cast<std::size_t>(delta);
        const xt::xtensor<double, 2> head =
            xt::view(P, xt::range(0, m), xt::all());  // P[i], owning
        const xt::xtensor<double, 2> shifted = xt::view(P, xt::range(delta, n), xt::all());
        const xt::xtensor<double, 2> MT = xt::transpose(M);
        const xt::xtensor<double, 2> got =
            xt::linalg::dot(head, MT);  // (m, d) x (d, d): rows M P[i]
        const double diff = xt::amax(xt::abs(got - shifted))();
        INFO("delta = " << delta << ", max |P[:m] M^T - P[delta:]| = " << diff);
        CHECK(diff < 1e-13);
    }
}

TEST_CASE("rotation: float64 residuals below 1e-12 for n = 1000, d = 512") {
    attn::ScanSpec spec;
    spec.n = 1000;
    spec.d = 512;
    spec.precision = Precision::float64;
    const auto rs = attn::scan_offsets(spec, {1, 2, 10, 50, 999, -1, -500});
    INFO("max error " << max_error(rs));
    CHECK(max_error(rs) < 1e-12);
    for (const auto& r : rs) {
        CHECK(r.passed());
        CHECK(r.checked == 1000 - static_cast<std::size_t>(std::llabs(r.delta)));
    }
    CHECK(rs[4].checked == 1);
    CHECK(rs[4].at_i == 0);
    CHECK(rs[6].at_i >= 500);  // negative offsets check i from 500 on
}

TEST_CASE("rotation: float32 residuals above float64's, below the documented tolerance") {
    attn::ScanSpec spec;
    spec.n = 1000;
    spec.d = 512;
    spec.precision = Precision::float32;
    const auto rs = attn::scan_offsets(spec, {1, 2, 3, 10, 50, -7});
    double worst_ratio = 0;
    for (const auto& r : rs) worst_ratio = std::max(worst_ratio, r.max_ratio);
    INFO("max error " << max_error(rs) << ", worst error / tolerance " << worst_ratio);
    CHECK(max_error(rs) > 1e-12);
    CHECK(max_error(rs) > 1e-8);  // float32 angles: visibly worse
    CHECK(worst_ratio < 0.5);     // with a margin of 2 at least

    SUBCASE("and far out, where the tolerance is still below 1") {
        spec.start = 1000000;
        const auto far = attn::scan_offsets(spec, {1, 17, -300});
        double far_ratio = 0;
        for (const auto& r : far) far_ratio = std::max(far_ratio, r.max_ratio);
        INFO("max error near 1e6 " << max_error(far) << ", ratio " << far_ratio);
        CHECK(max_error(far) > 1e-3);  // the error grows with the position
        CHECK(far_ratio < 1.0);
        CHECK(attn::rotation_tolerance(Precision::float32, 1000000, 17) < 0.25);
    }
}

TEST_CASE("rotation: the tolerance formula") {
    const double u32 = std::ldexp(1.0, -24), u64 = std::ldexp(1.0, -53);
    CHECK(attn::rotation_tolerance(Precision::float32, 0, 0) == 16 * u32);
    CHECK(attn::rotation_tolerance(Precision::float32, -10, 5) == u32 * (16 + 60));
    CHECK(attn::rotation_tolerance(Precision::float64, 1000, 1) == u64 * (16 + 4004));
    CHECK(attn::rotation_tolerance(Precision::float64, 100000000, 1) < 1e-7);
}

TEST_CASE("rotation: a deliberately perturbed P fails the default tolerance") {
    // One value off by a little, near position 0 (where a fixed 1e-5 would hide it in float32)
    // and further out.
    for (Precision p : {Precision::float32, Precision::float64}) {
        for (std::int64_t at : {5, 200}) {
            attn::ScanSpec spec;
            spec.n = 400;
            spec.d = 32;
            spec.precision = p;
            const double bump = 2 * attn::rotation_tolerance(p, at, 3);
            const auto planted = [bump, at](std::int64_t first, std::size_t count, double* rows) {
                if (first <= at && at < first + std::int64_t(count))
                    rows[(at - first) * 32 + 6] += bump;
            };
            const auto clean = attn::scan_offsets(spec, {1, 3});
            const auto bad = attn::scan_offsets(spec, {1, 3}, planted);
            CAPTURE(at);
            CAPTURE(bump);
            CHECK(clean[0].passed());
            CHECK(clean[1].passed());
            for (const auto& r : bad) {
                CHECK_FALSE(r.passed());
                CHECK(r.max_error >= 0.9 * bump);
                CHECK(r.pairs[3].max_error >= 0.9 * bump);  // column 6 is the sine of pair 3
                CHECK((r.ratio_i == at || r.ratio_i == at - r.delta));  // found where it is
            }
            if (p == Precision::float32 && at == 5) {
                CHECK(bump < 1e-5);  // what a fixed 1e-5 would let through
                spec.tol = 1e-5;
                CHECK(attn::scan_offsets(spec, {1, 3}, planted)[0].passed());
            }
        }
    }
}

TEST_CASE("rotation: P[i]·P[i+delta] depends on delta alone") {
    attn::ScanSpec spec;
    spec.n = 2000;
    spec.d = 128;
    spec.precision = Precision::float64;
    const auto rs = attn::scan_offsets(spec, {0, 1, 10, 100});
    for (const auto& r : rs) {
        INFO("delta = " << r.delta << ", spread " << r.dot_max - r.dot_min);
        CHECK(r.dot_max - r.dot_min < 1e-12);
        CHECK(r.dot_max_error < 1e-12);
        CHECK(r.dot_min <= r.dot_closed + 1e-12);
        CHECK(r.dot_max >= r.dot_closed - 1e-12);
    }
    CHECK(rs[0].dot_closed == 64.0);
    spec.precision = Precision::float32;
    const auto rs32 = attn::scan_offsets(spec, {1, 10});
    for (const auto& r : rs32) {
        CHECK(r.dot_max - r.dot_min > 1e-9);  // float32 angles make it wobble...
        CHECK(r.dot_max - r.dot_min < 1e-3);  // ...a little
    }
}

TEST_CASE("rotation: odd d leaves the lone sine out") {
    const std::size_t d = 7;
    const auto M = attn::offset_matrix(3, d, 10000.0, Precision::float64);
    for (std::size_t c = 0; c < d; ++c) CHECK(std::isnan(M(d - 1, c)));  // no linear map
    for (std::size_t r = 0; r + 1 < d; ++r) CHECK(M(r, d - 1) == 0.0);   // and nothing uses it
    attn::ScanSpec spec;
    spec.n = 100;
    spec.d = d;
    spec.precision = Precision::float64;
    const auto rs = attn::scan_offsets(spec, {3});
    CHECK(rs[0].pairs.size() == 3);
    CHECK(rs[0].passed());
    CHECK(rs[0].dot_max - rs[0].dot_min < 1e-13);  // the lone sine is not in the dot product
    const long double want = std::cos(3.0L) + std::cos(3 * std::pow(10000.0L, -2.0L / 7)) +
                             std::cos(3 * std::pow(10000.0L, -4.0L / 7));
    CHECK(rs[0].dot_closed == doctest::Approx(double(want)).epsilon(1e-15));
    CHECK_THROWS_AS(attn::scan_offsets(spec, {100}), std::invalid_argument);
    spec.d = 1;
    CHECK_THROWS_AS(attn::scan_offsets(spec, {1}), std::invalid_argument);
}

TEST_CASE("rotation: float32 P is d2l's PyTorch recipe") {
    const attn::EncodingRows rows(6, 10000.0, Precision::float32);
    double r[2 * 6];
    rows.fill(1000, 2, r);
    const float D1 = std::pow(10000.0f, 2.0f / 6.0f);
    CHECK(r[2] == double(std::sin(1000.0f / D1)));
    CHECK(r[6 + 3] == double(std::cos(1001.0f / D1)));
    CHECK(r[0] == double(std::sin(1000.0f)));
    for (double v : r) CHECK(double(float(v)) == v);
}

TEST_CASE("rotation: sweep grid and rows") {
    using V = std::vector<std::int64_t>;
    CHECK(attn::magnitude_grid(1000) == V{0, 10, 20, 50, 100, 200, 500, 1000});
    CHECK(attn::magnitude_grid(300) == V{0, 10, 20, 50, 100, 200, 300});
    attn::ScanSpec spec;
    spec.n = 50;
    spec.d = 16;
    const auto sweep = attn::sweep_positions(spec, {1}, 100000);
    REQUIRE(sweep.size() == 14);
    CHECK(sweep.back().position == 100000);
    CHECK(sweep.back().float32.max_error > sweep.front().float32.max_error);
    for (const auto& row : sweep) {
        CHECK(row.float64.max_error < 1e-12);
        CHECK(row.float32.max_ratio < 1.0);
    }
}
