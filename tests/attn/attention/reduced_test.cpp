// The direct path in bfloat16 and float16 (attention/reduced.hpp) against closed forms: each
// op's result is the float32 (here: double) value rounded once to the dtype, computed from the
// rounded operands, a Python scalar rounded first; overflow gives NaN rows as PyTorch's softmax.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/attention/reduced.hpp"
#include "runtime/reduced_float.hpp"

namespace {

using attn::runtime::Reduced;

double fl(Reduced f, double v) {
    return attn::runtime::round_to(f, v);
}

}  // namespace

TEST_CASE("reduced_attention: scores, scale, softmax and context each rounded once") {
    for (const Reduced f : {Reduced::bfloat16, Reduced::float16}) {
        // Q (1, 2), K (2, 2), V (2, 1): omega = [1.5, 0.25]
        const xt::xtensor<double, 2> Q = {{1.0, 0.5}};
        const xt::xtensor<double, 2> K = {{1.0, 1.0}, {0.25, 0.0}};
        const xt::xtensor<double, 2> V = {{3.0}, {-1.0}};
        const auto r = attn::reduced_attention(Q, K, V, {}, {}, f);
        const double root2 = fl(f, std::sqrt(2.0));  // the scalar, rounded to the dtype
        const double s0 = fl(f, 1.5 / root2), s1 = fl(f, 0.25 / root2);
        CHECK(r.scores(0, 0) == 1.5);
        CHECK(r.scaled(0, 0) == s0);
        CHECK(r.scaled(0, 1) == s1);
        const double e = std::exp(s1 - s0);
        const double w0 = fl(f, 1 / (1 + e)), w1 = fl(f, e / (1 + e));
        CHECK(r.weights(0, 0) == w0);
        CHECK(r.weights(0, 1) == w1);
        CHECK(r.context(0, 0) == fl(f, 3 * w0 - w1));
        CHECK(r.weights(0, 0) != doctest::Approx(1 / (1 + e)).epsilon(1e-12));  // rounded
    }
}

TEST_CASE("reduced_attention: a bias rounded to the dtype, then the sum rounded") {
    const Reduced f = Reduced::bfloat16;
    const xt::xtensor<double, 2> Q = {{1.0}}, K = {{1.0}, {2.0}}, V = {{1.0}, {1.0}};
    attn::ScoreOptions<double> score;
    score.scale = 1.0;
    score.bias.add = [](std::size_t, std::size_t, std::size_t rows, std::size_t cols, double* t,
                        std::size_t stride) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) t[r * stride + c] += 1.0 / 3.0;
    };
    const auto r = attn::reduced_attention(Q, K, V, {}, score, f);
    CHECK(r.scaled(0, 1) == fl(f, 2.0 + fl(f, 1.0 / 3.0)));
    CHECK(r.scaled(0, 0) == fl(f, 1.0 + fl(f, 1.0 / 3.0)));
}

TEST_CASE("reduced_attention: float16 overflow gives NaN weights; masked rows stay zero") {
    const xt::xtensor<double, 2> Q = {{300.0, 300.0}, {1.0, 1.0}};
    const xt::xtensor<double, 2> K = {{300.0, 300.0}, {1.0, 1.0}};
    const xt::xtensor<double, 2> V = {{1.0}, {2.0}};
    const auto r = attn::reduced_attention(Q, K, V, {}, {}, Reduced::float16);
    CHECK(std::isinf(r.scores(0, 0)));  // 180000 > 65504
    CHECK(std::isnan(r.weights(0, 0)));
    CHECK(std::isnan(r.weights(0, 1)));
    CHECK(r.weights(1, 0) == 1.0);  // row 1: omega 600 and 2, finite
    attn::MaskOptions none;
    none.valid_len = 0;
    const auto m = attn::reduced_attention(Q, K, V, none, {}, Reduced::float16);
    CHECK(m.weights(0, 0) == 0.0);
    CHECK(m.weights(1, 1) == 0.0);
}

TEST_CASE("rotate_reduced: fl(fl(q cos) - fl(q' sin)) with cos and sin rounded") {
    attn::positions::SchemeConfig config;
    config.scheme = attn::positions::Scheme::rope;
    config.rope.d = 2;
    const attn::positions::PositionScheme<double> scheme(config, 2);
    xt::xtensor<double, 2> m = {{0.3, 0.7}, {0.3, 0.7}};  // positions 0 and 1
    const Reduced f = Reduced::bfloat16;
    attn::rotate_reduced(scheme, f, m.data(), 2, 2);
    CHECK(m(0, 0) == fl(f, 0.3));
    const double c = fl(f, std::cos(1.0)), s = fl(f, std::sin(1.0));
    const double a = fl(f, 0.3), b = fl(f, 0.7);
    CHECK(m(1, 0) == fl(f, fl(f, a * c) - fl(f, b * s)));
    CHECK(m(1, 1) == fl(f, fl(f, b * c) + fl(f, a * s)));
}

TEST_CASE("forward: a reduced dtype on the tiled path is refused") {
    const xt::xtensor<float, 2> x = {{1.0f, 2.0f}};
    const xt::xtensor<float, 2> w = {{1.0f}, {1.0f}};
    attn::LayerWeights<float> weights;
    const attn::Projection<float> p{{w.data(), 2, 1, 1}};
    weights.query = weights.key = weights.value = {p};
    attn::LayerInput<float> in;
    in.x = {x.data(), 1, 2, 2};
    attn::LayerOptions o;
    o.dtype = Reduced::bfloat16;
    o.path = attn::AttentionPath::tiled;
    CHECK_THROWS_AS(attn::forward(in, weights, {}, o), std::invalid_argument);
    o.path = attn::AttentionPath::direct;
    const auto r = attn::forward(in, weights, {}, o);
    CHECK(r.queries[0](0, 0) == 3.0f);
    CHECK(r.weights[0](0, 0) == 1.0f);
}
