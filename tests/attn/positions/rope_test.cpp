#include "attn/positions/rope.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/positions/reference.hpp"

using attn::positions::Layout;
using attn::positions::Rope;
using attn::positions::RopeParameters;
using attn::positions::RopeScaling;
using attn_test::Quad;

namespace {

// Hugging Face's formulas written out again in quad (modeling_rope_utils.py), from expq/logq.
std::vector<Quad> reference_inv_freq(const RopeParameters& p, double L) {
    const std::size_t h = p.d / 2;
    const Quad pi = attn_test::quad_pi(), d = p.d;
    Quad ln_base = logq(Quad(p.base));
    if (p.scaling == RopeScaling::dynamic && L > *p.original_max_position_embeddings) {
        const Quad F = *p.factor, M = *p.original_max_position_embeddings;
        ln_base += d / (d - 2) * logq(F * Quad(L) / M - (F - 1));
    }
    std::vector<Quad> f(h);
    for (std::size_t j = 0; j < h; ++j) f[j] = expq(-Quad(2 * j) / d * ln_base);
    if (p.scaling == RopeScaling::linear)
        for (Quad& v : f) v = v / Quad(*p.factor);
    if (p.scaling == RopeScaling::yarn) {
        const Quad F = *p.factor, M = *p.original_max_position_embeddings;
        const Quad bf = p.beta_fast.value_or(32), bs = p.beta_slow.value_or(1);
        Quad low = floorq(d * logq(M / (bf * 2 * pi)) / (2 * ln_base));
        Quad high = ceilq(d * logq(M / (bs * 2 * pi)) / (2 * ln_base));
        low = fmaxq(low, 0);
        high = fminq(high, d - 1);
        if (low == high) high = Quad(double(high) + 0.001);
        for (std::size_t j = 0; j < h; ++j) {
            const Quad ramp = fminq(fmaxq((Quad(j) - low) / (high - low), 0), 1);
            const Quad extrapolation = 1 - ramp;  // HF's inv_freq_extrapolation_factor
            f[j] = f[j] / F * (1 - extrapolation) + f[j] * extrapolation;
        }
    }
    if (p.scaling == RopeScaling::llama3) {
        const Quad F = *p.factor, M = *p.original_max_position_embeddings;
        const Quad lo = *p.low_freq_factor, hi = *p.high_freq_factor;
        for (Quad& v : f) {
            const Quad wl = 2 * pi / v;
            if (wl > M / lo)
                v = v / F;
            else if (!(wl < M / hi)) {
                const Quad s = (M / wl - lo) / (hi - lo);
                v = (1 - s) * v / F + s * v;
            }
        }
    }
    return f;
}

RopeParameters llama31() {  // Llama 3.1's rope_scaling: factor 8, 1, 4, 8192; theta 500000
    RopeParameters p;
    p.d = 128;
    p.base = 500000.0;
    p.scaling = RopeScaling::llama3;
    p.factor = 8.0;
    p.low_freq_factor = 1.0;
    p.high_freq_factor = 4.0;
    p.original_max_position_embeddings = 8192;
    return p;
}

std::vector<RopeParameters> configurations() {
    std::vector<RopeParameters> all;
    RopeParameters p;
    p.d = 64;
    all.push_back(p);  // none
    p.scaling = RopeScaling::linear;
    p.factor = 4.0;
    all.push_back(p);
    p.scaling = RopeScaling::dynamic;
    p.original_max_position_embeddings = 2048;
    all.push_back(p);
    p.scaling = RopeScaling::yarn;
    p.d = 128;
    p.factor = 40.0;
    p.original_max_position_embeddings = 4096;
    p.base = 10000.0;
    all.push_back(p);  // DeepSeek-like: factor 40, 4096
    p.beta_fast = 16.0;
    p.beta_slow = 2.0;
    p.factor = 4.0;
    all.push_back(p);
    all.push_back(llama31());
    return all;
}

}  // namespace

TEST_CASE("rope: inv_freq of every scaling within 1 ulp of Hugging Face's formula in quad") {
    for (const RopeParameters& p : configurations())
        for (std::int64_t start : {std::int64_t{0}, std::int64_t{100000}}) {
            const std::size_t n = 1000;
            const Rope rope(p, start, n);
            const auto want = reference_inv_freq(p, double(start) + double(n));
            const auto got = rope.inv_freq();
            REQUIRE(got.size() == p.d / 2);
            std::int64_t worst = 0;
            for (std::size_t j = 0; j < got.size(); ++j)
                worst = std::max(worst, attn_test::ulps(got[j], double(want[j])));
            INFO(attn::positions::scaling_name(p.scaling) << ", start " << start);
            CHECK(worst <= 1);
        }
}

TEST_CASE("rope: Llama 3.1's inv_freq keeps high frequencies, divides low ones by 8") {
    const Rope rope(llama31(), 0, 1);
    const auto f = rope.inv_freq();
    CHECK(f[0] == 1.0);
    CHECK(f[1] == std::pow(500000.0, -2.0 / 128));             // wavelength 6.6 < 8192/4: unchanged
    const double last = std::pow(500000.0, -126.0 / 128) / 8;  // wavelength > 8192
    CHECK(std::fabs(f[63] - last) <= 1e-15 * last);
    CHECK(rope.attention_factor() == 1.0);
}

TEST_CASE("rope: dynamic keeps the base up to M and raises it beyond") {
    RopeParameters p;
    p.d = 64;
    p.scaling = RopeScaling::dynamic;
    p.factor = 2.0;
    p.original_max_position_embeddings = 1000;
    CHECK(Rope(p, 0, 1000).effective_base() == 10000.0);
    // L = 3000: base * (2 * 3 - 1)^(64/62)
    const double want = 10000.0 * std::pow(5.0L, 64.0L / 62.0L);
    CHECK(std::fabs(Rope(p, 1000, 2000).effective_base() - want) <= 1e-12 * want);
}

TEST_CASE("rope: cos, sin and angles within 1 ulp at positions up to 2^31, both layouts") {
    for (const RopeParameters& p : configurations())
        for (std::int64_t start : {std::int64_t{0}, std::int64_t{2999}, std::int64_t{100000},
                                   std::int64_t{2147483000}}) {
            const std::size_t n = 40, h = p.d / 2;
            const Rope rope(p, start, n);
            const auto f = reference_inv_freq(p, double(start) + double(n));
            const Quad A = p.scaling == RopeScaling::yarn ? logq(Quad(*p.factor)) / 10 + 1 : 1;
            std::vector<double> cs(n * p.d), sn(n * p.d), ci(n * p.d), si(n * p.d), ang(n * h);
            rope.cos_sin(start, n, Layout::split, cs.data(), sn.data());
            rope.cos_sin(start, n, Layout::interleaved, ci.data(), si.data());
            rope.angles(start, n, ang.data());
            std::int64_t worst = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < h; ++j) {
                    const Quad a = Quad(start + std::int64_t(i)) * f[j];
                    const double c = double(A * cosq(a)), s = double(A * sinq(a));
                    worst = std::max({worst, attn_test::ulps(cs[i * p.d + j], c),
                                      attn_test::ulps(cs[i * p.d + j + h], c),
                                      attn_test::ulps(sn[i * p.d + j], s),
                                      attn_test::ulps(sn[i * p.d + j + h], s),
                                      attn_test::ulps(ci[i * p.d + 2 * j], c),
                                      attn_test::ulps(ci[i * p.d + 2 * j + 1], c),
                                      attn_test::ulps(si[i * p.d + 2 * j], s),
                                      attn_test::ulps(si[i * p.d + 2 * j + 1], s),
                                      attn_test::ulps(ang[i * h + j], double(a))});
                }
            INFO(attn::positions::scaling_name(p.scaling) << ", start " << start);
            CHECK(worst <= 1);
        }
}

TEST_CASE("rope: yarn's attention factor multiplies cos and sin") {
    RopeParameters p;
    p.d = 8;
    p.scaling = RopeScaling::yarn;
    p.factor = 4.0;
    p.original_max_position_embeddings = 64;
    const Rope rope(p, 0, 4);
    const double A = 0.1 * std::log(4.0) + 1.0;
    CHECK(std::fabs(rope.attention_factor() - A) <= 2e-16);
    std::vector<double> c(4 * 8), s(4 * 8);
    rope.cos_sin(0, 4, Layout::split, c.data(), s.data());
    CHECK(c[0] == rope.attention_factor());  // position 0: A cos 0
    for (std::size_t k = 0; k < c.size(); ++k)
        CHECK(std::fabs(c[k] * c[k] + s[k] * s[k] - A * A) < 1e-14);
}

TEST_CASE("rope: rotate turns each pair by its angle, split and interleaved") {
    RopeParameters p;
    p.d = 6;
    const Rope rope(p, 5, 3);
    std::vector<double> x(3 * 6);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::sin(1.0 + double(k));  // any values
    for (Layout layout : {Layout::split, Layout::interleaved}) {
        std::vector<double> y(x.size());
        rope.rotate(5, 3, layout, x.data(), y.data());
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 3; ++j) {
                const std::size_t a = layout == Layout::split ? j : 2 * j;
                const std::size_t b = layout == Layout::split ? j + 3 : 2 * j + 1;
                const long double t = (5.0L + i) * std::pow(10000.0L, -2.0L * j / 6);
                const long double xa = x[i * 6 + a], xb = x[i * 6 + b];
                CHECK(std::fabs(y[i * 6 + a] - double(xa * std::cos(t) - xb * std::sin(t))) <
                      1e-15);
                CHECK(std::fabs(y[i * 6 + b] - double(xb * std::cos(t) + xa * std::sin(t))) <
                      1e-15);
            }
        std::vector<double> z = x;  // in place
        rope.rotate(5, 3, layout, z.data(), z.data());
        CHECK(z == y);
    }
}

TEST_CASE("rope: rotate_all rotates every batch item at the same positions, in blocks") {
    RopeParameters p;
    p.d = 4;
    const std::size_t batch = 2, n = 600;  // more rows than one block
    const Rope rope(p, 7, n);
    REQUIRE(rope.block_rows() < n);
    std::vector<double> x(batch * n * 4);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = 1.0 + double(k % 5);
    std::vector<double> y(x.size());
    rope.rotate_all(7, batch, n, Layout::split, x.data(), y.data());
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t i = 0; i < n; i += 97)
            for (std::size_t j = 0; j < 2; ++j) {
                const std::size_t row = (b * n + i) * 4;
                const long double t = (7.0L + i) * std::pow(10000.0L, -2.0L * j / 4);
                const long double a = x[row + j], c = x[row + j + 2];
                CHECK(std::fabs(y[row + j] - double(a * std::cos(t) - c * std::sin(t))) < 1e-12);
                CHECK(std::fabs(y[row + j + 2] - double(c * std::cos(t) + a * std::sin(t))) <
                      1e-12);
            }
}

TEST_CASE("rope: invalid parameters name the parameter") {
    auto message = [](const RopeParameters& p) {
        try {
            attn::positions::validate(p);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    auto starts = [](const std::string& m, const std::string& name) {
        return m.rfind(name + ":", 0) == 0;
    };
    RopeParameters p;
    p.d = 7;
    CHECK(starts(message(p), "d"));
    p.d = 0;
    CHECK(starts(message(p), "d"));
    p.d = 8;
    CHECK(message(p) == "accepted");
    p.base = 1.0;
    CHECK(starts(message(p), "base"));
    p.base = 10000.0;
    p.factor = 2.0;
    CHECK(starts(message(p), "factor"));  // none takes no factor
    p.scaling = RopeScaling::linear;
    CHECK(message(p) == "accepted");
    p.factor.reset();
    CHECK(starts(message(p), "factor"));
    p.scaling = RopeScaling::yarn;
    p.factor = 0.0;
    p.original_max_position_embeddings = 4096;
    CHECK(starts(message(p), "factor"));  // F > 0 (F <= 1: A = 1, transformers' get_mscale)
    p.factor = 2.0;
    CHECK(message(p) == "accepted");
    p.beta_fast = 0.0;
    CHECK(starts(message(p), "beta_fast"));
    p.beta_fast.reset();
    p.original_max_position_embeddings.reset();
    CHECK(starts(message(p), "original_max_position_embeddings"));
    p = llama31();
    CHECK(message(p) == "accepted");
    p.high_freq_factor.reset();
    CHECK(starts(message(p), "high_freq_factor"));
    p.high_freq_factor = 1.0;
    CHECK(starts(message(p), "high_freq_factor"));  // not above low_freq_factor
    p = llama31();
    p.beta_slow = 1.0;
    CHECK(starts(message(p), "beta_slow"));  // not a llama3 parameter
    p = llama31();
    p.scaling = RopeScaling::dynamic;
    p.low_freq_factor.reset();
    p.high_freq_factor.reset();
    p.d = 2;
    CHECK(starts(message(p), "d"));
    CHECK_THROWS_AS(Rope(p, 0, 1), std::invalid_argument);
}
