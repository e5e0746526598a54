#include "attn/complexity_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor-blas/xlinalg.hpp>

#include "attn/attention/reference.hpp"
#include "runtime/memory_budget.hpp"

namespace attn {

namespace {

using u64 = std::uint64_t;
using Matrix = xt::xtensor<float, 2>;
constexpr auto mul = runtime::checked_mul;
constexpr auto add = runtime::checked_add;

// xt::blas passes dimensions as int (blas_index_t).
void check_blas_dim(std::uint64_t value, std::string_view what) {
    if (value > u64(std::numeric_limits<int>::max()))
        throw std::invalid_argument(std::string(what) + " = " + std::to_string(value) +
                                    " exceeds the BLAS limit 2^31-1");
}

}  // namespace

xt::xtensor<float, 2> convolution_forward(const xt::xtensor<float, 2>& X,
                                          const xt::xtensor<float, 2>& W, std::size_t k,
                                          std::size_t dilation) {
    const std::size_t n = X.shape(0), d = X.shape(1);
    if (k == 0 || dilation == 0)
        throw std::invalid_argument("convolution_forward: k and dilation must be at least 1");
    const u64 kd = mul(k, d, "convolution_forward: k * d");
    if (W.shape(0) != kd)
        throw std::invalid_argument("convolution_forward: W has " + std::to_string(W.shape(0)) +
                                    " rows, k * d = " + std::to_string(kd));
    check_blas_dim(n, "n");
    check_blas_dim(kd, "k * d");
    check_blas_dim(W.shape(1), "output channels");
    const u64 reach = mul(k - 1, dilation, "convolution_forward: (k-1) * dilation");
    if (reach > u64(std::numeric_limits<std::int64_t>::max() / 2))
        throw std::invalid_argument("convolution_forward: (k-1) * dilation is too large");
    const std::int64_t pad = std::int64_t(reach / 2);  // "same": floor((k-1) dilation / 2) left

    Matrix cols = xt::zeros<float>({n, std::size_t(kd)});  // (n, k*d), zeros = padding
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < k; ++t) {
            const std::int64_t src = std::int64_t(i) - pad + std::int64_t(t * dilation);
            if (src < 0 || src >= std::int64_t(n)) continue;
            const float* from = X.data() + std::size_t(src) * d;
            std::copy(from, from + d, cols.data() + i * kd + t * d);
        }
    Matrix Y = xt::linalg::dot(cols, W);  // (n, k*d) x (k*d, d_out) -> (n, d_out)
    return Y;
}

xt::xtensor<float, 2> recurrent_forward(const xt::xtensor<float, 2>& X,
                                        const xt::xtensor<float, 2>& W,
                                        const xt::xtensor<float, 2>& U) {
    const std::size_t n = X.shape(0), d = X.shape(1);
    if (W.shape(0) != d || W.shape(1) != d || U.shape(0) != d || U.shape(1) != d)
        throw std::invalid_argument("recurrent_forward: W and U must be d x d, d = " +
                                    std::to_string(d));
    check_blas_dim(d, "d");
    Matrix H({n, d});
    xt::xtensor<float, 1> h = xt::zeros<float>({d});  // h_0 = 0
    xt::xtensor<float, 1> x = xt::zeros<float>({d});
    xt::xtensor<float, 1> a = xt::zeros<float>({d});
    for (std::size_t t = 0; t < n; ++t) {
        std::copy(X.data() + t * d, X.data() + (t + 1) * d, x.data());  // owning x_t for gemv
        xt::blas::gemv(U, x, a);                                        // a = U x_t
        xt::blas::gemv(W, h, a, false, 1.0f, 1.0f);                     // a += W h_{t-1}
        for (std::size_t j = 0; j < d; ++j) h(j) = std::tanh(a(j));
        std::copy(h.data(), h.data() + d, H.data() + t * d);
    }
    return H;
}

xt::xtensor<float, 2> self_attention_forward(const xt::xtensor<float, 2>& Q,
                                             const xt::xtensor<float, 2>& K,
                                             const xt::xtensor<float, 2>& V) {
    const std::size_t n = Q.shape(0), d = Q.shape(1), m = K.shape(0);
    if (K.shape(1) != d || V.shape(0) != m || m == 0)
        throw std::invalid_argument(
            "self_attention_forward: Q (n, d), K (m, d), V (m, d_v), m >= 1");
    check_blas_dim(n, "n");
    check_blas_dim(m, "m");
    check_blas_dim(d, "d");
    check_blas_dim(V.shape(1), "d_v");
    // dot(A, transpose(A)) takes a SYRK path sized from A alone: give K its own
    // storage when the caller passed the same matrix twice.
    const Matrix K_copy = Q.data() == K.data() ? K : Matrix{};
    const Matrix& K_ = Q.data() == K.data() ? K_copy : K;
    Matrix S = xt::linalg::dot(Q, xt::transpose(K_));  // (n, d) x (d, m) -> (n, m)
    S *= 1.0f / std::sqrt(float(d));
    for (std::size_t i = 0; i < n; ++i) {  // row-wise softmax in place; no masks
        float* row = S.data() + i * m;
        masked_softmax_row<float>(
            m, [row](std::size_t j) { return row[j]; }, [](std::size_t) { return false; },
            std::nullopt, row);
    }
    Matrix Y = xt::linalg::dot(S, V);  // (n, m) x (m, d_v) -> (n, d_v)
    return Y;
}

xt::xtensor<float, 2> restricted_attention_forward(const xt::xtensor<float, 2>& Q,
                                                   const xt::xtensor<float, 2>& K,
                                                   const xt::xtensor<float, 2>& V,
                                                   std::uint64_t r) {
    const std::size_t n = Q.shape(0), d = Q.shape(1), dv = V.shape(1);
    if (K.shape(0) != n || K.shape(1) != d || V.shape(0) != n)
        throw std::invalid_argument("restricted_attention_forward: Q, K (n, d), V (n, d_v)");
    const u64 left = r / 2, right = r - left;  // window [i - left, i + right] within [0, n)
    const float scale = 1.0f / std::sqrt(float(d));
    Matrix Y = xt::zeros<float>({n, dv});
    std::vector<float> w;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t lo = i >= left ? i - std::size_t(left) : 0;
        const std::size_t hi = right >= n - 1 - i ? n - 1 : i + std::size_t(right);
        w.assign(hi - lo + 1, 0.0f);
        const float* q = Q.data() + i * d;
        for (std::size_t j = lo; j <= hi; ++j) {
            const float* kj = K.data() + j * d;
            float dot = 0.0f;
            for (std::size_t c = 0; c < d; ++c) dot += q[c] * kj[c];
            w[j - lo] = dot * scale;
        }
        masked_softmax_row<float>(
            w.size(), [&w](std::size_t j) { return w[j]; }, [](std::size_t) { return false; },
            std::nullopt, w.data());
        float* y = Y.data() + i * dv;
        for (std::size_t j = lo; j <= hi; ++j) {
            const float p = w[j - lo];
            const float* vj = V.data() + j * dv;
            for (std::size_t c = 0; c < dv; ++c) y[c] += p * vj[c];
        }
    }
    return Y;
}

// ---------------------------------------------------------------------------------------
// The timing loop

namespace {

// Deterministic fill: splitmix64, top 24 bits -> uniform in [-scale, scale).
Matrix random_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed, float scale) {
    Matrix M({rows, cols});
    std::uint64_t state = seed;
    for (float& x : M) {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x = scale * (float(z >> 40) * (2.0f / 16777216.0f) - 1.0f);
    }
    return M;
}

// Floats the kernel of `layer` holds at once (inputs, weights, intermediates, output).
u64 working_floats(Layer layer, const LayerSizes& s) {
    const std::string what = "working set of " + std::string(layer_name(layer));
    const u64 nd = mul(s.n, s.d, what), dd = mul(s.d, s.d, what);
    const u64 x5 = mul(5, nd, what);  // X, Q, K, V, attention output
    switch (layer) {
        case Layer::convolution:
        case Layer::dilated_convolution: {  // X, cols (n, k d), W (k d, d), Y
            const u64 kd = mul(s.k, s.d, what);
            return add(add(mul(2, nd, what), mul(s.n, kd, what), what), mul(kd, s.d, what), what);
        }
        case Layer::recurrent:
            return add(mul(2, nd, what), add(mul(2, dd, what), 3 * s.d, what), what);
        case Layer::self_attention:  // X, Q, K, V, S (n, n), output, projected output, 4 W
            return add(add(x5, nd, what), add(mul(s.n, s.n, what), mul(4, dd, what), what), what);
        case Layer::restricted_self_attention:
            return add(add(x5, nd, what), add(std::min(s.n, s.r + 1), mul(4, dd, what), what),
                       what);
    }
    throw std::invalid_argument("working_floats: unknown layer value");
}

}  // namespace

std::uint64_t measurement_bytes(Layer layer, const LayerSizes& s) {
    return mul(working_floats(layer, s), sizeof(float), "working set bytes");
}

Measurement measure_layer(Layer layer, const LayerSizes& s, std::size_t repeat,
                          std::uint64_t max_bytes) {
    validate_sizes(s);
    if (repeat == 0) throw std::invalid_argument("repeat must be at least 1 (got 0)");
    const u64 ma = multiply_adds(layer, s);
    check_blas_dim(s.n, "n");
    check_blas_dim(s.d, "d");
    if (layer == Layer::convolution || layer == Layer::dilated_convolution)
        check_blas_dim(mul(s.k, s.d, "k * d"), "k * d");
    const u64 bytes = measurement_bytes(layer, s);
    if (bytes > max_bytes)
        throw std::invalid_argument("measuring " + std::string(layer_name(layer)) + " needs " +
                                    std::to_string(bytes) + " bytes, more than the limit of " +
                                    std::to_string(max_bytes));

    const std::size_t n = s.n, d = s.d, k = s.k;
    const float w_scale = 1.0f / std::sqrt(float(d));  // keeps W x and tanh out of saturation
    const Matrix X = random_matrix(n, d, 1, 1.0f);
    std::function<float()> run;  // one forward pass; returns one output value to keep it live
    switch (layer) {
        case Layer::convolution:
        case Layer::dilated_convolution: {
            const std::size_t dilation = layer == Layer::dilated_convolution ? k : 1;
            const Matrix W = random_matrix(k * d, d, 2, w_scale / std::sqrt(float(k)));
            run = [X, W, k, dilation] { return convolution_forward(X, W, k, dilation)(0, 0); };
            break;
        }
        case Layer::recurrent: {
            const Matrix W = random_matrix(d, d, 3, w_scale);
            const Matrix U = random_matrix(d, d, 4, w_scale);
            run = [X, W, U] { return recurrent_forward(X, W, U)(0, 0); };
            break;
        }
        case Layer::self_attention:
        case Layer::restricted_self_attention: {
            const bool restricted = layer == Layer::restricted_self_attention;
            const std::uint64_t r = s.r;
            const auto attend = [restricted, r](const Matrix& Q, const Matrix& K, const Matrix& V) {
                return restricted ? restricted_attention_forward(Q, K, V, r)
                                  : self_attention_forward(Q, K, V);
            };
            if (s.with_projections) {
                const Matrix Wq = random_matrix(d, d, 5, w_scale),
                             Wk = random_matrix(d, d, 6, w_scale),
                             Wv = random_matrix(d, d, 7, w_scale),
                             Wo = random_matrix(d, d, 8, w_scale);
                run = [X, Wq, Wk, Wv, Wo, attend] {
                    const Matrix Q = xt::linalg::dot(X, Wq);  // (n, d) x (d, d) -> (n, d)
                    const Matrix K = xt::linalg::dot(X, Wk);
                    const Matrix V = xt::linalg::dot(X, Wv);
                    const Matrix A = attend(Q, K, V);
                    const Matrix Y = xt::linalg::dot(A, Wo);
                    return Y(0, 0);
                };
            } else {  // Q, K, V given: three distinct matrices
                const Matrix K = random_matrix(n, d, 9, 1.0f), V = random_matrix(n, d, 10, 1.0f);
                run = [X, K, V, attend] { return attend(X, K, V)(0, 0); };
            }
            break;
        }
    }

    volatile float sink = run();  // warm-up: page faults, BLAS thread start, caches
    std::vector<double> seconds(repeat);
    for (double& t : seconds) {
        const auto start = std::chrono::steady_clock::now();
        sink = sink + run();
        const auto stop = std::chrono::steady_clock::now();
        t = std::chrono::duration<double>(stop - start).count();
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = repeat % 2 == 1 ? seconds[repeat / 2]
                                          : 0.5 * (seconds[repeat / 2 - 1] + seconds[repeat / 2]);
    const double gflops = median > 0.0 ? 2.0 * double(ma) / median / 1e9 : 0.0;
    return {median, gflops, ma};
}

}  // namespace attn
