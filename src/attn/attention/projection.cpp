#include "attn/attention/projection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "runtime/parallel.hpp"
#include "xflens/cxxblas/drivers/cblas.h"

namespace attn {

namespace {

void gemm(bool trans_b, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
          float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a,
                lda, b, ldb, 0.0f, c, n);
}
void gemm(bool trans_b, int m, int n, int k, const double* a, int lda, const double* b, int ldb,
          double* c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a,
                lda, b, ldb, 0.0, c, n);
}

// Rows [lo, hi) of out (n, p) = x (n, m) w (m, p): out[i, c] = (..((0 + x[i,0] w[0,c]) +
// x[i,1] w[1,c]) + ..) + x[i,m-1] w[m-1,c], each product rounded before it is added (no FMA
// contraction: -ffp-contract=off), so the bits do not depend on the blocking. Blocks of R rows
// x C columns are summed in registers while k runs (R C / W vectors, W the vector width; one
// load of w per R products), the edges one row and one column at a time; cloned for AVX-512
// and AVX2. Rows go RB at a time through every column panel w[:, c0 .. c0 + C) (m C values,
// 16 KiB at m = 128 in float), so that the panel is read from L1 by RB rows, not by R.
#define ATTN_PROJECT_ROWS(T)                                                                       \
    __attribute__((target_clones("avx512f", "avx2", "default"))) void project_rows(                \
        const T* __restrict x, std::size_t sx, const T* __restrict w, std::size_t sw,              \
        T* __restrict out, std::size_t lo, std::size_t hi, std::size_t m, std::size_t p) {         \
        constexpr std::size_t R = 4, C = 128 / sizeof(T), RB = 16 * R;                             \
        const std::size_t blocked = lo + (hi - lo) / R * R;                                        \
        for (std::size_t i0 = lo; i0 < blocked; i0 += RB) {                                        \
            const std::size_t i1 = std::min(i0 + RB, blocked);                                     \
            std::size_t c0 = 0;                                                                    \
            for (; c0 + C <= p; c0 += C)                                                           \
                for (std::size_t i = i0; i < i1; i += R) {                                         \
                    T acc[R][C] = {};                                                              \
                    for (std::size_t k = 0; k < m; ++k) {                                          \
                        const T* wr = w + k * sw + c0;                                             \
                        _Pragma("GCC unroll 4") for (std::size_t r = 0; r < R; ++r) {              \
                            const T a = x[(i + r) * sx + k];                                       \
                            for (std::size_t c = 0; c < C; ++c) acc[r][c] += a * wr[c];            \
                        }                                                                          \
                    }                                                                              \
                    for (std::size_t r = 0; r < R; ++r)                                            \
                        for (std::size_t c = 0; c < C; ++c) out[(i + r) * p + c0 + c] = acc[r][c]; \
                }                                                                                  \
            for (std::size_t i = i0; i < i1; ++i)                                                  \
                for (std::size_t c = c0; c < p; ++c) {                                             \
                    T s = 0;                                                                       \
                    for (std::size_t k = 0; k < m; ++k) s += x[i * sx + k] * w[k * sw + c];        \
                    out[i * p + c] = s;                                                            \
                }                                                                                  \
        }                                                                                          \
        for (std::size_t i = blocked; i < hi; ++i) {                                               \
            T* o = out + i * p;                                                                    \
            std::fill_n(o, p, T(0));                                                               \
            for (std::size_t k = 0; k < m; ++k) {                                                  \
                const T a = x[i * sx + k];                                                         \
                const T* wr = w + k * sw;                                                          \
                for (std::size_t c = 0; c < p; ++c) o[c] += a * wr[c];                             \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* the same sums with w stored (p, m): out[i, c] = sum_k x[i, k] w[c, k] in order of k */      \
    void project_rows_t(const T* x, std::size_t sx, const T* w, std::size_t sw, T* out,            \
                        std::size_t lo, std::size_t hi, std::size_t m, std::size_t p) {            \
        for (std::size_t i = lo; i < hi; ++i)                                                      \
            for (std::size_t c = 0; c < p; ++c) {                                                  \
                T s = 0;                                                                           \
                for (std::size_t k = 0; k < m; ++k) s += x[i * sx + k] * w[c * sw + k];            \
                out[i * p + c] = s;                                                                \
            }                                                                                      \
    }
ATTN_PROJECT_ROWS(float)
ATTN_PROJECT_ROWS(double)
#undef ATTN_PROJECT_ROWS

}  // namespace

template <class T>
xt::xtensor<T, 2> project(MatrixRef<T> x, const Projection<T>& p, ProjectionSum sum) {
    const std::size_t n = x.rows, m = p.in(), d = p.out();
    const bool t = p.layout == WeightLayout::out_in;
    if (x.cols != m)
        throw std::invalid_argument(fmt::format(
            "projection: cannot multiply ({}, {}) by a ({} -> {}) weight", n, x.cols, m, d));
    // (n, d_out): zeroed for BLAS; the loops below write every element, each thread its own
    // rows, so their first touch of its pages is in parallel too
    xt::xtensor<T, 2> out =
        sum == ProjectionSum::blas ? xt::zeros<T>({n, d}) : xt::xtensor<T, 2>::from_shape({n, d});
    if (n == 0 || d == 0) return out;
    if (sum == ProjectionSum::blas) {
        gemm(t, static_cast<int>(n), static_cast<int>(d), static_cast<int>(m), x.data,
             static_cast<int>(x.stride), p.weight.data, static_cast<int>(p.weight.stride),
             out.data());
    } else {
        parallel_for(n, 256, [&](std::size_t lo, std::size_t hi) {
            if (t)
                project_rows_t(x.data, x.stride, p.weight.data, p.weight.stride, out.data(), lo, hi,
                               m, d);
            else
                project_rows(x.data, x.stride, p.weight.data, p.weight.stride, out.data(), lo, hi,
                             m, d);
        });
    }
    if (p.bias)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < d; ++c) out(i, c) += p.bias[c];
    return out;
}

template xt::xtensor<float, 2> project<float>(MatrixRef<float>, const Projection<float>&,
                                              ProjectionSum);
template xt::xtensor<double, 2> project<double>(MatrixRef<double>, const Projection<double>&,
                                                ProjectionSum);

}  // namespace attn
