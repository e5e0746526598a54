// attn::ScoreOptions: the scale and the position bias of the scores (alibi's slope, a table),
// and a head's projection biases and rotation of q and k (attn::forward), against a long-double
// reference computed here, and against the fused kernel given the same AttentionBias.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xadapt.hpp>

#include "attn/attention/layer.hpp"
#include "attn/attention/reference.hpp"
#include "attn/attention/tiled.hpp"
#include "support/approx.hpp"

namespace {

using attn::test::require_allclose;

template <class T>
xt::xtensor<T, 2> uniform(std::size_t r, std::size_t c, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-2, 2);
    xt::xtensor<T, 2> m = xt::xtensor<T, 2>::from_shape({r, c});
    for (auto& x : m) x = static_cast<T>(u(gen));
    return m;
}

// table(i, j) = 0.25 (j - i) + 0.5: a signed, asymmetric bias, given as a BiasTile.
template <class T>
attn::AttentionBias<T> table_bias(std::optional<double> slope) {
    attn::AttentionBias<T> b;
    b.alibi_slope = slope;
    b.add = [](std::size_t row0, std::size_t col0, std::size_t rows, std::size_t cols, T* tile,
               std::size_t stride) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c)
                tile[r * stride + c] += static_cast<T>(
                    0.25 * (static_cast<double>(col0 + c) - static_cast<double>(row0 + r)) + 0.5);
    };
    return b;
}

// scaled, weights, context in long double: s = scale * Q K^T - slope |i - j| + table, masks.
struct Reference {
    std::vector<long double> scaled, weights, context;
};
template <class T>
Reference reference(const xt::xtensor<T, 2>& q, const xt::xtensor<T, 2>& k,
                    const xt::xtensor<T, 2>& v, long double scale, long double slope, bool table,
                    bool causal) {
    const std::size_t n = q.shape(0), m = k.shape(0), d = q.shape(1), dv = v.shape(1);
    Reference r{std::vector<long double>(n * m), std::vector<long double>(n * m),
                std::vector<long double>(n * dv, 0.0L)};
    for (std::size_t i = 0; i < n; ++i) {
        long double mx = -std::numeric_limits<long double>::infinity(), sum = 0;
        for (std::size_t j = 0; j < m; ++j) {
            long double s = 0;
            for (std::size_t c = 0; c < d; ++c) s += (long double)q(i, c) * k(j, c);
            s = s * scale - slope * std::fabs((long double)i - (long double)j);
            if (table) s += 0.25L * ((long double)j - (long double)i) + 0.5L;
            r.scaled[i * m + j] = s;
            if (!(causal && j > i)) mx = std::max(mx, s);
        }
        for (std::size_t j = 0; j < m; ++j) {
            const long double e = causal && j > i ? 0.0L : std::exp(r.scaled[i * m + j] - mx);
            r.weights[i * m + j] = e;
            sum += e;
        }
        for (std::size_t j = 0; j < m; ++j) {
            r.weights[i * m + j] /= sum;
            for (std::size_t c = 0; c < dv; ++c)
                r.context[i * dv + c] += r.weights[i * m + j] * v(j, c);
        }
    }
    return r;
}

}  // namespace

TEST_CASE_TEMPLATE("scores with a scale and a position bias, as the fused kernel", T, float,
                   double) {
    const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    const auto q = uniform<T>(9, 4, 1), k = uniform<T>(9, 4, 2), v = uniform<T>(9, 3, 3);
    for (const bool causal : {false, true})
        for (const std::optional<double> scale : {std::optional<double>(), std::optional(1.0)})
            for (const std::optional<double> slope :
                 {std::optional<double>(), std::optional(0.375)})
                for (const bool table : {false, true}) {
                    CAPTURE(causal);
                    CAPTURE(table);
                    attn::MaskOptions mask;
                    mask.causal = causal;
                    attn::ScoreOptions<T> score;
                    score.scale = scale;
                    score.bias = table ? table_bias<T>(slope) : attn::AttentionBias<T>{slope, {}};
                    const auto r = attn::scaled_dot_product_attention(q, k, v, mask, score);
                    const Reference want =
                        reference(q, k, v, scale ? 1.0L : 0.5L, slope.value_or(0.0), table, causal);
                    require_allclose(r.scaled, xt::adapt(want.scaled, r.scaled.shape()), 0, tol,
                                     "scaled");
                    require_allclose(r.weights, xt::adapt(want.weights, r.weights.shape()), 0, tol,
                                     "weights");
                    require_allclose(r.context, xt::adapt(want.context, r.context.shape()), 0, tol,
                                     "context");
                    attn::TiledOptions t;
                    t.scale = scale;
                    t.causal = causal;
                    require_allclose(attn::tiled_attention(q, k, v, t, score.bias), r.context, 0,
                                     tol, "tiled context");
                    // masked_scores: -inf above the diagonal under causal, else the scaled scores.
                    const auto masked = attn::masked_scores(r.scaled, mask);
                    for (std::size_t i = 0; i < 9; ++i)
                        for (std::size_t j = 0; j < 9; ++j)
                            CHECK(masked(i, j) == (causal && j > i
                                                       ? -std::numeric_limits<T>::infinity()
                                                       : r.scaled(i, j)));
                }
}

TEST_CASE("default score options keep the notebook's numbers bit for bit") {
    const auto q = uniform<float>(6, 2, 4), k = uniform<float>(6, 2, 5),
               v = uniform<float>(6, 4, 6);
    const auto r = attn::scaled_dot_product_attention(q, k, v);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 6; ++j)
            CHECK(r.scaled(i, j) ==
                  r.scores(i, j) / std::sqrt(2.0f));  // the division, not * 1/sqrt
}

TEST_CASE("a head's projection biases and a rotation of q and k, through attn::forward") {
    const auto x = uniform<double>(5, 3, 7);
    const auto w_query = uniform<double>(3, 2, 8), w_key = uniform<double>(3, 2, 9),
               w_value = uniform<double>(3, 4, 10);
    const xt::xtensor<double, 1> b_query{0.5, -1.0}, b_key{2.0, 0.25}, b_value{1.0, 2.0, 3.0, 4.0};
    const auto projection = [](const xt::xtensor<double, 2>& m, const xt::xtensor<double, 1>& b) {
        return attn::Projection<double>{
            {m.data(), m.shape(0), m.shape(1), m.shape(1)}, attn::WeightLayout::in_out, b.data()};
    };
    attn::LayerWeights<double> w;
    w.query = {projection(w_query, b_query)};
    w.key = {projection(w_key, b_key)};
    w.value = {projection(w_value, b_value)};
    // RoPE of d_k = 2, linear scaling 2: the only pair rotated by angle i / 2 at position i
    attn::positions::SchemeConfig c;
    c.scheme = attn::positions::Scheme::rope;
    c.rope.d = 2;
    c.rope.scaling = attn::positions::RopeScaling::linear;
    c.rope.factor = 2.0;
    const attn::positions::PositionScheme<double> rope(c, 5);
    const auto rotate = [](const xt::xtensor<double, 2>& m) {
        xt::xtensor<double, 2> r = m;
        for (std::size_t i = 0; i < m.shape(0); ++i) {
            const double c = std::cos(0.5 * i), s = std::sin(0.5 * i);
            r(i, 0) = m(i, 0) * c - m(i, 1) * s;
            r(i, 1) = m(i, 1) * c + m(i, 0) * s;
        }
        return r;
    };
    attn::LayerInput<double> in;
    in.x = {x.data(), 5, 3, 3};
    const auto h = attn::forward(in, w, rope, attn::LayerOptions{});
    xt::xtensor<double, 2> q = xt::linalg::dot(x, w_query);
    for (std::size_t i = 0; i < 5; ++i) q(i, 0) += 0.5, q(i, 1) -= 1.0;
    require_allclose(h.queries[0], q, 0, 1e-14, "X W_q + b_q (before rotation)");
    require_allclose(h.rotated_queries[0], rotate(q), 0, 1e-14, "rotated queries");
    const auto direct =
        attn::scaled_dot_product_attention(h.rotated_queries[0], h.rotated_keys[0], h.values[0]);
    require_allclose(h.context[0], direct.context, 0, 0, "context of the rotated q, k");
    // Rotations by position keep only offsets: scores depend on i - j, not on where both sit.
    const auto& r = h.rotated_queries[0];
    for (std::size_t i = 0; i + 1 < 5; ++i)
        CHECK(r(i, 0) * r(i, 0) + r(i, 1) * r(i, 1) ==
              doctest::Approx(q(i, 0) * q(i, 0) + q(i, 1) * q(i, 1)));
}
