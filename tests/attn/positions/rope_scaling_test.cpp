// yarn's attention factor (given, or from mscale / mscale_all_dim), yarn without truncation,
// longrope's short and long factors, and a head rotated in part, against transformers'
// modeling_rope_utils.py formulas written out again in quad (reference.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/attention/reduced.hpp"
#include "attn/positions/reference.hpp"
#include "attn/positions/rope.hpp"
#include "attn/positions/scheme.hpp"

using attn::positions::Layout;
using attn::positions::Rope;
using attn::positions::RopeParameters;
using attn::positions::RopeScaling;
using attn_test::Quad;

namespace {

// inv_freq of yarn and longrope for sequence length L, from expq/logq.
std::vector<Quad> reference_inv_freq(const RopeParameters& p, double L) {
    const std::size_t h = p.d / 2;
    const Quad d = p.d, ln_base = logq(Quad(p.base)), pi = attn_test::quad_pi();
    std::vector<Quad> f(h);
    for (std::size_t j = 0; j < h; ++j) f[j] = expq(-Quad(2 * j) / d * ln_base);
    const Quad M = *p.original_max_position_embeddings;
    if (p.scaling == RopeScaling::longrope) {
        const auto& e = Quad(L) > M ? p.long_factor : p.short_factor;
        for (std::size_t j = 0; j < h; ++j) f[j] = f[j] / Quad(e[j]);
        return f;
    }
    const Quad F = *p.factor;
    const Quad bf = p.beta_fast.value_or(32), bs = p.beta_slow.value_or(1);
    Quad low = d * logq(M / (bf * 2 * pi)) / (2 * ln_base);
    Quad high = d * logq(M / (bs * 2 * pi)) / (2 * ln_base);
    if (p.truncate) low = floorq(low), high = ceilq(high);
    low = fmaxq(low, 0);
    high = fminq(high, d - 1);
    if (low == high) high = Quad(double(high) + 0.001);
    for (std::size_t j = 0; j < h; ++j) {
        const Quad ramp = fminq(fmaxq((Quad(j) - low) / (high - low), 0), 1);
        f[j] = f[j] / F * ramp + f[j] * (1 - ramp);
    }
    return f;
}

// get_mscale(s, m) = 0.1 m ln s + 1 (1 for s <= 1); longrope's sqrt(1 + ln F / ln M).
Quad reference_attention(const RopeParameters& p) {
    if (p.attention_factor) return *p.attention_factor;
    const Quad F = *p.factor, M = *p.original_max_position_embeddings;
    if (p.scaling == RopeScaling::longrope) return F <= 1 ? 1 : sqrtq(1 + logq(F) / logq(M));
    auto g = [&](Quad m) { return F <= 1 ? Quad(1) : m * logq(F) / 10 + 1; };
    if (p.mscale.value_or(0) != 0 && p.mscale_all_dim.value_or(0) != 0)
        return g(*p.mscale) / g(*p.mscale_all_dim);
    return g(1);
}

RopeParameters yarn(double factor, double original) {
    RopeParameters p;
    p.d = 64;
    p.scaling = RopeScaling::yarn;
    p.factor = factor;
    p.original_max_position_embeddings = original;
    return p;
}

// Phi-3-mini-128k's shape: d 96, M 4096, F 32; factors 1.0 .. ~1.9 (short), 1 .. ~48 (long).
RopeParameters longrope() {
    RopeParameters p;
    p.d = 96;
    p.scaling = RopeScaling::longrope;
    p.factor = 32.0;
    p.original_max_position_embeddings = 4096;
    for (std::size_t j = 0; j < 48; ++j) {
        p.short_factor.push_back(1.0 + 0.02 * double(j));
        p.long_factor.push_back(1.0 + double(j * j) / 47.0);
    }
    return p;
}

std::vector<RopeParameters> configurations() {
    std::vector<RopeParameters> all;
    RopeParameters p = yarn(40.0, 4096);  // DeepSeek-V2/V3: mscale 0.707, mscale_all_dim 0.707
    p.mscale = 0.707;
    p.mscale_all_dim = 0.707;
    all.push_back(p);
    p.mscale_all_dim = 1.0;  // ratio (0.0707 ln 40 + 1) / (0.1 ln 40 + 1)
    all.push_back(p);
    p.mscale_all_dim = 0.0;  // `if mscale and mscale_all_dim`: 0 falls back to g(F, 1)
    all.push_back(p);
    p = yarn(4.0, 32768);
    p.attention_factor = 1.25;  // given: used as it is
    p.beta_fast = 16.0;
    all.push_back(p);
    p = yarn(32.0, 4096);  // gpt-oss: truncate false, base 150000
    p.base = 150000.0;
    p.truncate = false;
    all.push_back(p);
    all.push_back(longrope());
    p = longrope();
    p.attention_factor = 1.5;
    all.push_back(p);
    return all;
}

}  // namespace

TEST_CASE("rope: yarn and longrope inv_freq, A, cos and sin within 1 ulp of the quad formulas") {
    for (const RopeParameters& p : configurations())
        // longrope: 4090 + 6 = M (short factors), 4090 + 7 > M (long ones)
        for (std::int64_t start : {std::int64_t{0}, std::int64_t{4090}, std::int64_t{2147483000}})
            for (std::size_t n : {std::size_t{6}, std::size_t{7}}) {
                const Rope rope(p, start, n);
                const double L = double(start) + double(n);
                const auto f = reference_inv_freq(p, L);
                const Quad A = reference_attention(p);
                INFO(attn::positions::scaling_name(p.scaling)
                     << ", start " << start << ", n " << n);
                CHECK(attn_test::ulps(rope.attention_factor(), double(A)) <= 1);
                const auto got = rope.inv_freq();
                REQUIRE(got.size() == f.size());
                std::int64_t worst = 0;
                for (std::size_t j = 0; j < f.size(); ++j)
                    worst = std::max(worst, attn_test::ulps(got[j], double(f[j])));
                const std::size_t h = p.d / 2;
                std::vector<double> c(n * p.d), s(n * p.d), ang(n * h);
                rope.cos_sin(start, n, Layout::split, c.data(), s.data());
                rope.angles(start, n, ang.data());
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t j = 0; j < h; ++j) {
                        const Quad a = Quad(start + std::int64_t(i)) * f[j];
                        worst =
                            std::max({worst, attn_test::ulps(ang[i * h + j], double(a)),
                                      attn_test::ulps(c[i * p.d + j], double(A * cosq(a))),
                                      attn_test::ulps(c[i * p.d + j + h], double(A * cosq(a))),
                                      attn_test::ulps(s[i * p.d + j], double(A * sinq(a))),
                                      attn_test::ulps(s[i * p.d + j + h], double(A * sinq(a)))});
                    }
                CHECK(worst <= 1);
            }
}

TEST_CASE("rope: longrope divides by short_factor up to M positions, by long_factor beyond") {
    const RopeParameters p = longrope();
    const auto short_f = Rope(p, 4000, 96).inv_freq();  // L = 4096 = M
    const auto long_f = Rope(p, 4000, 97).inv_freq();   // L = 4097
    for (std::size_t j : {std::size_t{0}, std::size_t{1}, std::size_t{47}}) {
        const double f = double(attn_test::quad_frequency(10000.0, 2 * j, 96));
        CHECK(std::fabs(short_f[j] - f / p.short_factor[j]) <= 2e-16 * f);
        CHECK(std::fabs(long_f[j] - f / p.long_factor[j]) <= 2e-16 * f);
    }
    CHECK(short_f[0] == 1.0);
    // A = sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12), whatever the length
    CHECK(std::fabs(Rope(p, 0, 1).attention_factor() - std::sqrt(17.0 / 12.0)) <= 2e-16);
}

TEST_CASE("rope: yarn's attention factor: given, mscale ratio, one tenth of ln F plus 1") {
    RopeParameters p = yarn(4.0, 64);
    p.attention_factor = 0.75;
    CHECK(Rope(p, 0, 1).attention_factor() == 0.75);
    p.attention_factor.reset();
    p.mscale = 1.0;
    p.mscale_all_dim = 1.0;
    CHECK(Rope(p, 0, 1).attention_factor() == 1.0);  // equal mscales cancel
    p.mscale.reset();                                // mscale_all_dim alone: ignored
    CHECK(std::fabs(Rope(p, 0, 1).attention_factor() - (0.1 * std::log(4.0) + 1)) <= 2e-16);
    p.factor = 1.0;  // g(1, m) = 1: A = 1, inv_freq unscaled
    const Rope one(p, 0, 1);
    CHECK(one.attention_factor() == 1.0);
    CHECK(one.inv_freq()[1] == double(attn_test::quad_frequency(10000.0, 2, 64)));
}

TEST_CASE("rope: yarn without truncation ramps between the unrounded correction dimensions") {
    RopeParameters p = yarn(32.0, 4096);
    p.base = 150000.0;
    const auto rounded = Rope(p, 0, 1).inv_freq();
    p.truncate = false;
    const auto exact = Rope(p, 0, 1).inv_freq();
    std::size_t differ = 0;
    for (std::size_t j = 0; j < exact.size(); ++j) differ += exact[j] != rounded[j];
    CHECK(differ > 0);
    CHECK(exact.front() == rounded.front());  // j = 0: f_0 = 1 either way
}

TEST_CASE("rope: a scheme of d rotated dimensions turns the first d columns of wider rows") {
    RopeParameters p;
    p.d = 4;  // partial rotary: head_dim 10, d = int(10 x 0.4)
    attn::positions::SchemeConfig config;
    config.scheme = attn::positions::Scheme::rope;
    config.rope = p;
    const std::size_t n = 5, width = 10;
    const attn::positions::PositionScheme<double> scheme(config, n);
    std::vector<double> m(n * width), want(n * 4);
    for (std::size_t k = 0; k < m.size(); ++k) m[k] = std::cos(0.3 * double(k));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < 4; ++c) want[i * 4 + c] = m[i * width + c];
    Rope(p, 0, n).rotate(0, n, Layout::split, want.data(), want.data());
    const std::vector<double> before = m;
    scheme.rotate(m.data(), 0, n, width);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c < 4; ++c) CHECK(m[i * width + c] == want[i * 4 + c]);
        for (std::size_t c = 4; c < width; ++c) CHECK(m[i * width + c] == before[i * width + c]);
    }
    CHECK(m[width + 0] != before[width + 0]);                                  // position 1 turned
    CHECK_THROWS_AS(scheme.rotate(m.data(), 0, n, 3), std::invalid_argument);  // rows too narrow
}

TEST_CASE("rope: in bfloat16, a head rotated in part turns its first d columns as a d-wide one") {
    attn::positions::SchemeConfig config;
    config.scheme = attn::positions::Scheme::rope;
    config.rope.d = 4;
    const std::size_t n = 6, width = 8;
    const attn::positions::PositionScheme<float> scheme(config, n);
    std::vector<float> m(n * width), narrow(n * 4);
    for (std::size_t k = 0; k < m.size(); ++k)
        m[k] = float(std::round(64 * std::sin(double(k))) / 16);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < 4; ++c) narrow[i * 4 + c] = m[i * width + c];
    const std::vector<float> before = m;
    const auto bf16 = attn::runtime::Reduced::bfloat16;
    attn::rotate_reduced(scheme, bf16, m.data(), n, width);
    attn::rotate_reduced(scheme, bf16, narrow.data(), n, 4);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c < 4; ++c) CHECK(m[i * width + c] == narrow[i * 4 + c]);
        for (std::size_t c = 4; c < width; ++c) CHECK(m[i * width + c] == before[i * width + c]);
    }
    CHECK(narrow[4] != before[width]);  // position 1 turned
}

TEST_CASE("rope: invalid yarn and longrope parameters name the parameter and the range") {
    auto message = [](const RopeParameters& p) {
        try {
            attn::positions::validate(p);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    RopeParameters p = yarn(4.0, 64);
    p.attention_factor = 0.0;
    CHECK(message(p) == "attention_factor: 0 is not greater than 0");
    p.attention_factor.reset();
    p.mscale = -1.0;
    CHECK(message(p) == "mscale: -1 is not a number >= 0");
    p.mscale.reset();
    p.mscale_all_dim = -0.5;
    CHECK(message(p) == "mscale_all_dim: -0.5 is not a number >= 0");
    p = longrope();
    CHECK(message(p) == "accepted");
    p.short_factor.pop_back();
    CHECK(message(p) == "short_factor: 47 numbers; longrope needs d/2 = 48");
    p = longrope();
    p.long_factor[3] = 0.0;
    CHECK(message(p) == "long_factor: element 3 is 0, not a finite number greater than 0");
    p = longrope();
    p.mscale = 1.0;
    CHECK(message(p) == "mscale: not a parameter of longrope scaling");
    p = longrope();
    p.truncate = false;
    CHECK(message(p) == "truncate: not a parameter of longrope scaling");
    p = longrope();
    p.long_factor.clear();
    CHECK(message(p) == "long_factor: 0 numbers; longrope needs d/2 = 48");
    p = longrope();
    p.original_max_position_embeddings = 1.0;
    CHECK(message(p).rfind("original_max_position_embeddings: 1 is not above 1", 0) == 0);
    RopeParameters none;
    none.d = 8;
    none.short_factor = {1, 1, 1, 1};
    CHECK(message(none) == "short_factor: not a parameter of default scaling");
}
