// The score specification (score.hpp) against closed forms on each path: the soft-cap
// cap tanh(s / cap) and the sliding window on the direct path, the fused kernel (every
// instruction set this CPU has) against the direct path with both, the reduced path's roundings,
// and the layer's two paths with a soft-cap and a window.
#include "attn/attention/score.hpp"

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>

#include "attn/attention/layer.hpp"
#include "attn/attention/reduced.hpp"
#include "attn/attention/reference.hpp"
#include "runtime/reduced_float.hpp"
#include "support/approx.hpp"

namespace {

template <class T>
using Matrix = xt::xtensor<T, 2>;

template <class T>
Matrix<T> uniform(std::size_t rows, std::size_t cols, unsigned seed, double lo = -1,
                  double hi = 1) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Matrix<T> m = xt::empty<T>({rows, cols});
    for (auto& x : m) x = static_cast<T>(dist(gen));
    return m;
}

}  // namespace

TEST_CASE("soft_cap: cap tanh(s / cap) at known points") {
    CHECK(attn::soft_cap(0.0, 50.0) == 0.0);
    // tanh(atanh(1/2)) = 1/2: s = cap atanh(1/2) = (cap / 2) ln 3 gives cap / 2
    const double cap = 30.0, s = cap / 2 * std::log(3.0);
    CHECK(attn::soft_cap(s, cap) == doctest::Approx(15.0).epsilon(1e-15));
    CHECK(attn::soft_cap(-s, cap) == doctest::Approx(-15.0).epsilon(1e-15));
    CHECK(attn::soft_cap(1e6, cap) == doctest::Approx(cap).epsilon(1e-15));    // saturates
    CHECK(attn::soft_cap(1e-8, cap) == doctest::Approx(1e-8).epsilon(1e-12));  // ~ identity
    CHECK_THROWS_AS(attn::check_softcap(0.0), std::invalid_argument);
    CHECK_THROWS_AS(attn::check_softcap(std::nan("")), std::invalid_argument);
    CHECK_NOTHROW(attn::check_softcap(50.0));
}

TEST_CASE("masked: a sliding window of W keeps keys i - W < j <= i") {
    attn::MaskOptions m;
    m.causal = true;
    m.sliding_window = 3;
    for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t j = 0; j < 8; ++j) CHECK(attn::masked(m, i, j) == !(j <= i && j + 3 > i));
}

TEST_CASE("direct path: the soft-cap after the scale, before the window and causal masks") {
    // q = k: omega = [[1, 2], [2, 4]] (rows q_0 = (1, 0), q_1 = (2, 0), keys the same), d_k = 2
    const Matrix<double> Q{{1.0, 0.0}, {2.0, 0.0}, {0.5, 0.0}};
    const Matrix<double> V{{1.0}, {10.0}, {100.0}};
    attn::MaskOptions mask;
    mask.causal = true;
    mask.sliding_window = 2;
    attn::ScoreOptions<double> score;
    score.softcap = 1.5;
    const auto r = attn::scaled_dot_product_attention(Q, Q, V, mask, score);
    const auto capped = [](double omega) { return 1.5 * std::tanh(omega / std::sqrt(2.0) / 1.5); };
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            CHECK(r.scaled(i, j) == doctest::Approx(capped(Q(i, 0) * Q(j, 0))).epsilon(1e-14));
    // row 2 sees keys 1 and 2 (key 0 is outside the window of 2)
    const double a = std::exp(capped(2.0 * 0.5)), b = std::exp(capped(0.25));
    CHECK(r.weights(2, 0) == 0.0);
    CHECK(r.weights(2, 1) == doctest::Approx(a / (a + b)).epsilon(1e-14));
    CHECK(r.context(2, 0) == doctest::Approx((10 * a + 100 * b) / (a + b)).epsilon(1e-14));
    CHECK(r.weights(0, 1) == 0.0);  // causal
}

TEST_CASE_TEMPLATE("fused kernel: a soft-cap and a window as the direct path", T, float, double) {
    const std::size_t n = 77, dk = 16, dv = 24;  // several tiles, a partial last one
    const Matrix<T> q = uniform<T>(n, dk, 1, -3, 3), k = uniform<T>(n, dk, 2, -3, 3);
    const Matrix<T> v = uniform<T>(n, dv, 3);
    for (const bool alibi : {false, true}) {
        attn::MaskOptions mask;
        mask.causal = true;
        mask.sliding_window = 9;
        attn::ScoreOptions<T> score;
        score.softcap = 2.5;
        if (alibi) score.bias.alibi_slope = 0.25;
        const auto want = attn::scaled_dot_product_attention(q, k, v, mask, score);
        for (const char* kernel : {"portable", "avx2", "avx512"}) {
            if (!attn::select_tiled_kernel(kernel)) continue;
            CAPTURE(kernel);
            CAPTURE(alibi);
            const attn::TiledAttention<T> att(
                {q.data(), n, dk, dk}, {k.data(), n, dk, dk}, {v.data(), n, dv, dv},
                attn::fused_options(score, mask), attn::fused_bias(score, mask));
            Matrix<T> got = xt::zeros<T>({n, dv});
            att.context(got.data(), dv);
            const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-13;
            attn::test::require_allclose(got, want.context, tol, tol);
            Matrix<T> scores = xt::zeros<T>({n, n}), weights = xt::zeros<T>({n, n});
            att.rows(0, n, attn::ScoreRows<T>{nullptr, scores.data(), nullptr, weights.data(), n});
            attn::test::require_allclose(weights, want.weights, tol, tol);
            for (std::size_t i = 0; i < n; ++i)  // the capped scores of the keys the window keeps
                for (std::size_t j = 0; j <= i; ++j)
                    if (j + 9 > i)
                        CHECK(scores(i, j) == doctest::Approx(want.scaled(i, j)).epsilon(tol));
        }
        attn::select_tiled_kernel("auto");
    }
}

TEST_CASE("reduced path: the soft-cap's three ops each rounded to bfloat16") {
    using attn::runtime::Reduced;
    const auto fl = [](double x) {
        return static_cast<float>(attn::runtime::round_to(Reduced::bfloat16, x));
    };
    const Matrix<float> Q{{1.0f, 2.0f}, {-3.0f, 0.5f}};
    const Matrix<float> V{{1.0f}, {2.0f}};
    attn::ScoreOptions<float> score;
    score.softcap = 3.0;
    const auto r = attn::reduced_attention(Q, Q, V, {}, score, Reduced::bfloat16);
    const float c = fl(3.0), root = fl(std::sqrt(2.0f));
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 2; ++j) {
            const float omega = fl(Q(i, 0) * Q(j, 0) + Q(i, 1) * Q(j, 1));
            const float s = fl(omega / root);
            CHECK(r.scaled(i, j) == fl(fl(std::tanh(fl(s / c))) * c));
        }
}

TEST_CASE_TEMPLATE("forward: a soft-cap and a window give the same layer on both paths", T, float,
                   double) {
    const std::size_t n = 40, H = 4, G = 2, hd = 8;
    std::vector<Matrix<T>> q, k, v;
    for (std::size_t h = 0; h < H; ++h) q.push_back(uniform<T>(n, hd, 10 + h, -2, 2));
    for (std::size_t g = 0; g < G; ++g) {
        k.push_back(uniform<T>(n, hd, 20 + g, -2, 2));
        v.push_back(uniform<T>(n, hd, 30 + g));
    }
    attn::LayerInput<T> in;
    for (const auto& m : q) in.q.push_back({m.data(), n, hd, hd});
    for (const auto& m : k) in.k.push_back({m.data(), n, hd, hd});
    for (const auto& m : v) in.v.push_back({m.data(), n, hd, hd});
    attn::LayerOptions o;
    o.mask.causal = true;
    o.mask.sliding_window = 6;
    o.softcap = 1.25;
    o.path = attn::AttentionPath::direct;
    const attn::positions::PositionScheme<T> none;
    const auto direct = attn::forward(in, attn::LayerWeights<T>{}, none, o);
    o.path = attn::AttentionPath::tiled;
    const auto tiled = attn::forward(in, attn::LayerWeights<T>{}, none, o);
    const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-13;
    attn::test::require_allclose(tiled.output, direct.output, tol, tol);
    // head 3's row 30 sees keys 25..30 only, its scores capped below 1.25 in magnitude
    Matrix<T> w = xt::zeros<T>({std::size_t{1}, n});
    tiled.rows->rows(3, 30, 1, attn::ScoreRows<T>{nullptr, nullptr, nullptr, w.data(), n});
    for (std::size_t j = 0; j < n; ++j) {
        CAPTURE(j);
        CHECK((w(0, j) > 0) == (j >= 25 && j <= 30));
        CHECK(std::abs(static_cast<double>(direct.scaled_scores[3](30, j))) < 1.25);
    }
}
