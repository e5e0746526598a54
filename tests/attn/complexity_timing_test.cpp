#include "attn/complexity_timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include "attn/attention/tiled.hpp"
#include "support/text.hpp"
#include "support/throws.hpp"

namespace {

using attn::test::contains;
using attn::test::invalid_argument_of;

using attn::Layer;
using attn::LayerSizes;
using u64 = std::uint64_t;

LayerSizes sizes(u64 n, u64 d, u64 k = 3, u64 r = 2, bool projections = false) {
    return LayerSizes{n, d, k, r, projections};
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Kernels against direct loops in double, and measurement on tiny sizes.

namespace {

using Matrix = xt::xtensor<float, 2>;

// Deterministic small values: M(i, j) = sin(seed + 0.7 i + 1.3 j).
Matrix filled(std::size_t rows, std::size_t cols, double seed) {
    Matrix M({rows, cols});
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            M(i, j) = float(std::sin(seed + 0.7 * double(i) + 1.3 * double(j)));
    return M;
}

// max |got - want| over all entries; shapes must agree.
double max_abs_diff(const Matrix& got, const std::vector<std::vector<double>>& want) {
    REQUIRE(got.shape(0) == want.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        REQUIRE(got.shape(1) == want[i].size());
        for (std::size_t j = 0; j < want[i].size(); ++j)
            worst = std::max(worst, std::abs(double(got(i, j)) - want[i][j]));
    }
    return worst;
}

// softmax(Q K^T / sqrt(d)) V over the keys j with -left <= j - i <= right, in double.
std::vector<std::vector<double>> attention_reference(const Matrix& Q, const Matrix& K,
                                                     const Matrix& V, std::int64_t left,
                                                     std::int64_t right) {
    const std::size_t n = Q.shape(0), d = Q.shape(1), m = K.shape(0), dv = V.shape(1);
    std::vector<std::vector<double>> Y(n, std::vector<double>(dv, 0.0));
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> w(m, 0.0);
        std::vector<bool> in(m, false);
        double max = -INFINITY;
        for (std::size_t j = 0; j < m; ++j) {
            const std::int64_t off = std::int64_t(j) - std::int64_t(i);
            if (off < -left || off > right) continue;
            in[j] = true;
            for (std::size_t c = 0; c < d; ++c) w[j] += double(Q(i, c)) * double(K(j, c));
            w[j] /= std::sqrt(double(d));
            max = std::max(max, w[j]);
        }
        double sum = 0.0;
        for (std::size_t j = 0; j < m; ++j) sum += in[j] ? (w[j] = std::exp(w[j] - max)) : 0.0;
        for (std::size_t j = 0; j < m; ++j)
            if (in[j])
                for (std::size_t c = 0; c < dv; ++c) Y[i][c] += w[j] / sum * double(V(j, c));
    }
    return Y;
}

}  // namespace

TEST_CASE("complexity kernels: im2col convolution equals the direct sum") {
    const std::size_t n = 6, d = 3, d_out = 2;
    const Matrix X = filled(n, d, 0.1);
    for (std::size_t k : {1, 2, 3, 4, 7})
        for (std::size_t dilation : {1, 2, 3}) {
            const Matrix W = filled(k * d, d_out, 2.0);
            // Y[i][o] = sum_t sum_c X[i - floor((k-1) dil / 2) + t dil][c] W[t d + c][o]
            const auto pad = std::int64_t((k - 1) * dilation / 2);
            std::vector<std::vector<double>> want(n, std::vector<double>(d_out, 0.0));
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t t = 0; t < k; ++t) {
                    const std::int64_t src = std::int64_t(i) - pad + std::int64_t(t * dilation);
                    if (src < 0 || src >= std::int64_t(n)) continue;
                    for (std::size_t c = 0; c < d; ++c)
                        for (std::size_t o = 0; o < d_out; ++o)
                            want[i][o] += double(X(std::size_t(src), c)) * double(W(t * d + c, o));
                }
            CAPTURE(k);
            CAPTURE(dilation);
            CHECK(max_abs_diff(attn::convolution_forward(X, W, k, dilation), want) < 1e-5);
        }
    CHECK_THROWS_AS(attn::convolution_forward(X, filled(5, 2, 0.0), 2), std::invalid_argument);
}

TEST_CASE("complexity kernels: recurrent steps equal h_t = tanh(W h_{t-1} + U x_t)") {
    const std::size_t n = 5, d = 4;
    const Matrix X = filled(n, d, 0.3), W = filled(d, d, 1.1), U = filled(d, d, 2.9);
    std::vector<std::vector<double>> want;
    std::vector<double> h(d, 0.0);
    for (std::size_t t = 0; t < n; ++t) {
        std::vector<double> next(d, 0.0);
        for (std::size_t i = 0; i < d; ++i) {
            double a = 0.0;
            for (std::size_t j = 0; j < d; ++j)
                a += double(W(i, j)) * h[j] + double(U(i, j)) * double(X(t, j));
            next[i] = std::tanh(a);
        }
        h = next;
        want.push_back(h);
    }
    CHECK(max_abs_diff(attn::recurrent_forward(X, W, U), want) < 1e-5);
    CHECK_THROWS_AS(attn::recurrent_forward(X, filled(3, 3, 0.0), U), std::invalid_argument);
}

TEST_CASE("complexity kernels: full and restricted attention equal the direct softmax") {
    const std::size_t n = 7, d = 3;
    const Matrix Q = filled(n, d, 0.5), K = filled(n, d, 1.7), V = filled(n, 2, 3.1);
    const std::int64_t all = std::int64_t(n);
    CHECK(max_abs_diff(attn::self_attention_forward(Q, K, V),
                       attention_reference(Q, K, V, all, all)) < 1e-5);
    SUBCASE("the same matrix as queries and keys (a SYRK-shaped product) is still (n, n)") {
        CHECK(max_abs_diff(attn::self_attention_forward(Q, Q, V),
                           attention_reference(Q, Q, V, all, all)) < 1e-5);
    }
    SUBCASE("windows [i - floor(r/2), i + ceil(r/2)]") {
        for (std::uint64_t r : {0, 1, 2, 3, 5, 11, 12, 100}) {
            const auto left = std::int64_t(r / 2), right = std::int64_t(r - r / 2);
            CAPTURE(r);
            CHECK(max_abs_diff(attn::restricted_attention_forward(Q, K, V, r),
                               attention_reference(Q, K, V, left, right)) < 1e-5);
        }
    }
    SUBCASE("r = 0 sees only itself: the output is V") {
        const Matrix Y = attn::restricted_attention_forward(Q, K, V, 0);
        for (std::size_t i = 0; i < n; ++i) CHECK(Y(i, 1) == V(i, 1));
    }
}

TEST_CASE("complexity timing: measure_layer runs every row on tiny sizes") {
    for (bool projections : {false, true})
        for (Layer layer : attn::kLayers) {
            for (const LayerSizes& s :
                 {sizes(8, 4, 3, 2, projections), sizes(1, 1, 1, 0, projections),
                  sizes(5, 3, 9, 7, projections)}) {
                CAPTURE(attn::layer_name(layer));
                CAPTURE(projections);
                CAPTURE(s.n);
                const attn::Measurement m = attn::measure_layer(layer, s, 3);
                CHECK(std::isfinite(m.seconds));
                CHECK(m.seconds > 0.0);
                CHECK(std::isfinite(m.gflops));
                CHECK(m.gflops >= 0.0);
                CHECK(m.multiply_adds == attn::multiply_adds(layer, s));
            }
        }
    CHECK(attn::measure_layer(Layer::self_attention, sizes(4, 2), 2).seconds > 0.0);  // even count
    // The kernels attn runs: attend's fused attention (tiled_attention.hpp), BLAS for the rest.
    CHECK(attn::measure_layer(Layer::self_attention, sizes(8, 4), 1).kernel ==
          "fused tiled attention (" + attn::tiled_kernel() + ")");
    CHECK(attn::measure_layer(Layer::convolution, sizes(8, 4), 1).kernel == "im2col + sgemm");
    CHECK(attn::measure_layer(Layer::recurrent, sizes(8, 4), 1).kernel == "sgemv per step");

    CHECK(
        contains(invalid_argument_of([] { attn::measure_layer(Layer::recurrent, sizes(4, 4), 0); }),
                 "repeat"));
    // n^2 floats of scores alone: 65536^2 * 4 bytes = 16 GiB > 1 GiB.
    CHECK(contains(invalid_argument_of(
                       [] { attn::measure_layer(Layer::self_attention, sizes(65536, 64), 1); }),
                   "more than the limit"));
    CHECK(contains(invalid_argument_of(
                       [] { attn::measure_layer(Layer::convolution, sizes(u64{1} << 31, 1), 1); }),
                   "2^31-1"));
}

TEST_CASE("complexity timing: measurement_bytes is the working set measure_layer checks") {
    // self_attention, n = 4, d = 2: X, Q, K, V, output, projected output (6 n d = 48),
    // scores n^2 = 16, four d x d weights = 16: 80 floats = 320 bytes.
    CHECK(attn::measurement_bytes(Layer::self_attention, sizes(4, 2)) == 320);
    // convolution, n = 4, d = 2, k = 3: X and Y (2 n d = 16), cols n k d = 24, W (k d, d) = 12.
    CHECK(attn::measurement_bytes(Layer::convolution, sizes(4, 2)) == 4 * 52);
    // The limit compares with exactly this number.
    const u64 bytes = attn::measurement_bytes(Layer::recurrent, sizes(8, 4));
    CHECK(attn::measure_layer(Layer::recurrent, sizes(8, 4), 1, bytes).seconds > 0.0);
    CHECK(contains(invalid_argument_of(
                       [&] { attn::measure_layer(Layer::recurrent, sizes(8, 4), 1, bytes - 1); }),
                   "more than the limit"));
    CHECK_THROWS_AS(attn::measurement_bytes(Layer::self_attention, sizes(u64{1} << 40, 1)),
                    std::overflow_error);
}
