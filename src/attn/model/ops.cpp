#include "attn/model/ops.hpp"

#include <xflens/cxxblas/drivers/cblas.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "attn/attention/tiled.hpp"

namespace attn::model {

namespace {

// C (m, n) = A (m, k) op(B) + beta C: B (k, n) when !trans_b, else B (n, k) used transposed.
void gemm(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda,
          const float* b, std::size_t ldb, bool trans_b, float beta, float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                static_cast<CBLAS_INT>(m), static_cast<CBLAS_INT>(n), static_cast<CBLAS_INT>(k),
                1.0f, a, static_cast<CBLAS_INT>(lda), b, static_cast<CBLAS_INT>(ldb), beta, c,
                static_cast<CBLAS_INT>(n));
}
void gemm(std::size_t m, std::size_t n, std::size_t k, const double* a, std::size_t lda,
          const double* b, std::size_t ldb, bool trans_b, double beta, double* c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                static_cast<CBLAS_INT>(m), static_cast<CBLAS_INT>(n), static_cast<CBLAS_INT>(k),
                1.0, a, static_cast<CBLAS_INT>(lda), b, static_cast<CBLAS_INT>(ldb), beta, c,
                static_cast<CBLAS_INT>(n));
}

void gemv(std::size_t rows, std::size_t cols, const float* a, const float* x, float* y) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<CBLAS_INT>(rows),
                static_cast<CBLAS_INT>(cols), 1.0f, a, static_cast<CBLAS_INT>(cols), x, 1, 0.0f, y,
                1);
}
void gemv(std::size_t rows, std::size_t cols, const double* a, const double* x, double* y) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, static_cast<CBLAS_INT>(rows),
                static_cast<CBLAS_INT>(cols), 1.0, a, static_cast<CBLAS_INT>(cols), x, 1, 0.0, y,
                1);
}

// The element-wise loops below are compiled three times, for AVX-512, AVX2 and the baseline
// x86-64 (GCC's function multiversioning picks one by the CPU at load time): the default build
// would run them 4 floats at a time.
#define ATTN_VECTOR_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

// y[i] = (x[i] - mean_i) / sqrt(var_i + eps) * w + b for rows i < n of x (n, d); mean and
// biased variance summed in double, kLanes partial sums (one vector's lanes) then the tail.
template <class T>
inline void layer_norm_rows_of(const T* x, std::size_t n, std::size_t d, const T* w, const T* b,
                               double eps, T* y) {
    constexpr std::size_t kLanes = 8;
    const std::size_t body = d / kLanes * kLanes;
    for (std::size_t i = 0; i < n; ++i) {
        const T* r = x + i * d;
        double s[kLanes] = {}, mean = 0, var = 0;
        for (std::size_t j = 0; j < body; j += kLanes)
            for (std::size_t l = 0; l < kLanes; ++l) s[l] += r[j + l];
        for (std::size_t l = 0; l < kLanes; ++l) mean += s[l], s[l] = 0;
        for (std::size_t j = body; j < d; ++j) mean += r[j];
        mean /= static_cast<double>(d);
        for (std::size_t j = 0; j < body; j += kLanes)
            for (std::size_t l = 0; l < kLanes; ++l) {
                const double c = r[j + l] - mean;
                s[l] += c * c;
            }
        for (std::size_t l = 0; l < kLanes; ++l) var += s[l];
        for (std::size_t j = body; j < d; ++j) var += (r[j] - mean) * (r[j] - mean);
        var /= static_cast<double>(d);
        const T inv = static_cast<T>(1.0 / std::sqrt(var + eps)), m = static_cast<T>(mean);
        T* out = y + i * d;
        for (std::size_t j = 0; j < d; ++j) out[j] = (r[j] - m) * inv * w[j];
        if (b)
            for (std::size_t j = 0; j < d; ++j) out[j] += b[j];
    }
}
ATTN_VECTOR_CLONES void layer_norm_rows(const float* x, std::size_t n, std::size_t d,
                                        const float* w, const float* b, double eps, float* y) {
    layer_norm_rows_of(x, n, d, w, b, eps, y);
}
ATTN_VECTOR_CLONES void layer_norm_rows(const double* x, std::size_t n, std::size_t d,
                                        const double* w, const double* b, double eps, double* y) {
    layer_norm_rows_of(x, n, d, w, b, eps, y);
}

// e[i] = k (v[i] + 0.044715 v[i]^3), the exponent of gelu_tanh below (k = -2 sqrt(2/pi))
template <class T>
inline void gelu_exponent_of(const T* v, std::size_t n, T* e) {
    const T k = -2 * std::sqrt(T(2) / T(M_PI));
    for (std::size_t i = 0; i < n; ++i) e[i] = k * (v[i] + T(0.044715) * v[i] * v[i] * v[i]);
}
ATTN_VECTOR_CLONES void gelu_exponent(const float* v, std::size_t n, float* e) {
    gelu_exponent_of(v, n, e);
}
ATTN_VECTOR_CLONES void gelu_exponent(const double* v, std::size_t n, double* e) {
    gelu_exponent_of(v, n, e);
}
// v[i] = v[i] / (1 + e[i])
ATTN_VECTOR_CLONES void times_logistic(float* v, std::size_t n, const float* e) {
    for (std::size_t i = 0; i < n; ++i) v[i] = v[i] / (1.0f + e[i]);
}
ATTN_VECTOR_CLONES void times_logistic(double* v, std::size_t n, const double* e) {
    for (std::size_t i = 0; i < n; ++i) v[i] = v[i] / (1.0 + e[i]);
}

// x[i] = act(x[i]) for the activations that are x times a logistic function,
//   gelu_tanh  x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3)))   = 0.5 x (1 + tanh(u))
//   silu       x / (1 + exp(-x))
// with the fused kernel's vector exp (tiled_exp, about 1 ulp), kBlock values at a time.
template <class T>
void logistic_times_x(T* x, std::size_t n, Activation act) {
    constexpr std::size_t kBlock = 1024;
    T e[kBlock];
    for (std::size_t i0 = 0; i0 < n; i0 += kBlock) {
        const std::size_t len = std::min(kBlock, n - i0);
        T* v = x + i0;
        if (act == Activation::silu)
            for (std::size_t i = 0; i < len; ++i) e[i] = -v[i];
        else
            gelu_exponent(v, len, e);
        tiled_exp(e, len);
        times_logistic(v, len, e);
    }
}

// relu and erf gelu, one value at a time (the others: logistic_times_x)
template <class T>
T apply(T x, Activation act) {
    return act == Activation::relu ? std::max(x, T(0))
                                   : T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2)));
}

}  // namespace

template <class T>
Matrix<T> layer_norm(const Matrix<T>& x, const T* w, const T* b, double eps) {
    const std::size_t n = x.shape(0), d = x.shape(1);
    Matrix<T> y = Matrix<T>::from_shape({n, d});
    layer_norm_rows(x.data(), n, d, w, b, eps, y.data());
    return y;
}

template <class T>
Matrix<T> rms_norm(const Matrix<T>& x, const T* w, double eps) {
    const std::size_t n = x.shape(0), d = x.shape(1);
    Matrix<T> y({n, d});
    for (std::size_t i = 0; i < n; ++i) {
        const T* r = &x(i, 0);
        double sq = 0;
        for (std::size_t j = 0; j < d; ++j) sq += static_cast<double>(r[j]) * r[j];
        const T inv = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(d) + eps));
        for (std::size_t j = 0; j < d; ++j) y(i, j) = w[j] * (r[j] * inv);
    }
    return y;
}

template <class T>
Matrix<T> gemma_rms_norm(const Matrix<T>& x, const T* w, double eps) {
    const std::size_t n = x.shape(0), d = x.shape(1);
    Matrix<T> y({n, d});
    for (std::size_t i = 0; i < n; ++i) {
        const T* r = &x(i, 0);
        double sq = 0;
        for (std::size_t j = 0; j < d; ++j) sq += static_cast<double>(r[j]) * r[j];
        const T inv = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(d) + eps));
        for (std::size_t j = 0; j < d; ++j) y(i, j) = (r[j] * inv) * (T(1) + w[j]);
    }
    return y;
}

template <class T>
Matrix<T> norm(const ModelConfig& c, const Matrix<T>& x, const T* w, const T* b) {
    switch (c.norm) {
        case Norm::rms_norm:
        case Norm::rms_norm_rounded_once:
            return rms_norm(x, w, c.norm_eps);
        case Norm::gemma_rms_norm:
            return gemma_rms_norm(x, w, c.norm_eps);
        case Norm::layer_norm:
            break;
    }
    return layer_norm(x, w, b, c.norm_eps);
}

template <class T>
Projection<T> dense(const T* w, std::size_t rows, std::size_t cols, WeightLayout layout,
                    const T* bias) {
    return Projection<T>{MatrixRef<T>{w, rows, cols, cols}, layout, bias};
}

template <class T>
Matrix<T> linear(const Matrix<T>& x, const Projection<T>& p) {
    const std::size_t n = x.shape(0), in = p.in(), out = p.out();
    if (x.shape(1) != in) throw std::invalid_argument("linear: input width differs from weight");
    Matrix<T> y = Matrix<T>::from_shape({n, out});
    if (n == 0) return y;
    // y = b (each row), then y = x W + y in the one pass of the product
    if (p.bias)
        for (std::size_t i = 0; i < n; ++i) std::copy_n(p.bias, out, &y(i, 0));
    gemm(n, out, in, x.data(), in, p.weight.data, p.weight.stride, p.layout == WeightLayout::out_in,
         p.bias ? T(1) : T(0), y.data());
    return y;
}

template <class T>
void matvec(const T* a, std::size_t rows, std::size_t cols, const T* x, T* y) {
    if (rows > 0) gemv(rows, cols, a, x, y);
}

template <class T>
void activate(Matrix<T>& x, Activation act) {
    if (act == Activation::gelu_tanh || act == Activation::silu)
        return logistic_times_x(x.data(), x.size(), act);
    for (T& v : x) v = apply(v, act);
}

template <class T>
void gate(Matrix<T>& a, const Matrix<T>& b, Activation act) {
    activate(a, act);
    auto ia = a.begin();
    for (auto ib = b.begin(); ib != b.end(); ++ia, ++ib) *ia *= *ib;
}

template <class T>
void add_linear(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& p) {
    const std::size_t n = x.shape(0), in = p.in(), out = p.out();
    if (x.shape(1) != in || y.shape(0) != n || y.shape(1) != out)
        throw std::invalid_argument("add_linear: shapes differ from the weight's");
    if (n == 0) return;
    if (p.bias)
        for (std::size_t i = 0; i < n; ++i) {
            T* row = y.data() + i * out;
            for (std::size_t j = 0; j < out; ++j) row[j] += p.bias[j];
        }
    gemm(n, out, in, x.data(), in, p.weight.data, p.weight.stride, p.layout == WeightLayout::out_in,
         T(1), y.data());
}

std::size_t mlp_block_rows(std::size_t n) {
    const std::size_t blocks = (n + kMlpRows - 1) / kMlpRows;  // of about equal rows
    return blocks <= 1 ? n : (n + blocks - 1) / blocks;
}

template <class T>
void feed_forward(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& up, Activation act,
                  const Projection<T>& down) {
    Matrix<T> a = linear(x, up);  // (n, I)
    activate(a, act);
    add_linear(y, a, down);  // (n, d)
}

template <class T>
void gated_feed_forward(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& gate_w,
                        const Projection<T>& up, Activation act, const Projection<T>& down) {
    Matrix<T> a = linear(x, gate_w);  // (n, I)
    gate(a, linear(x, up), act);
    add_linear(y, a, down);  // (n, d)
}

template <class T>
void add(Matrix<T>& a, const Matrix<T>& b) {
    auto ia = a.begin();
    for (auto ib = b.begin(); ib != b.end(); ++ia, ++ib) *ia += *ib;
}

#define ATTN_MODEL_OPS(T)                                                                      \
    template Matrix<T> layer_norm(const Matrix<T>&, const T*, const T*, double);               \
    template Matrix<T> rms_norm(const Matrix<T>&, const T*, double);                           \
    template Matrix<T> gemma_rms_norm(const Matrix<T>&, const T*, double);                     \
    template Matrix<T> norm(const ModelConfig&, const Matrix<T>&, const T*, const T*);         \
    template Projection<T> dense(const T*, std::size_t, std::size_t, WeightLayout, const T*);  \
    template Matrix<T> linear(const Matrix<T>&, const Projection<T>&);                         \
    template void matvec(const T*, std::size_t, std::size_t, const T*, T*);                    \
    template void activate(Matrix<T>&, Activation);                                            \
    template void gate(Matrix<T>&, const Matrix<T>&, Activation);                              \
    template void add_linear(Matrix<T>&, const Matrix<T>&, const Projection<T>&);              \
    template void feed_forward(Matrix<T>&, const Matrix<T>&, const Projection<T>&, Activation, \
                               const Projection<T>&);                                          \
    template void gated_feed_forward(Matrix<T>&, const Matrix<T>&, const Projection<T>&,       \
                                     const Projection<T>&, Activation, const Projection<T>&);  \
    template void add(Matrix<T>&, const Matrix<T>&);
ATTN_MODEL_OPS(float)
ATTN_MODEL_OPS(double)
#undef ATTN_MODEL_OPS

}  // namespace attn::model
