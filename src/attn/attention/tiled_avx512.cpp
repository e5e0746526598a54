// The tiled attention kernels for AVX-512 (F only), chosen at run time when the CPU has it.
// Standard headers come before the target pragma so that no inline library code is compiled
// for AVX-512 (the linker could otherwise keep that copy for every caller).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "attn/attention/tiled.hpp"

#pragma GCC push_options
#pragma GCC target("avx512f,fma")
// GCC 12's avx512fintrin.h seeds masked builtins with _mm512_undefined_*(), which
// -Wmaybe-uninitialized reports in every caller (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

namespace attn::tiled_detail {
namespace {

struct F512 {
    using T = float;
    using reg = __m512;
    static constexpr std::size_t W = 16;
    static constexpr int R = 6, NV = 4;  // 24 accumulators of 32
    static reg zero() { return _mm512_setzero_ps(); }
    static reg load(const T* p) { return _mm512_loadu_ps(p); }
    static void store(T* p, reg x) { _mm512_storeu_ps(p, x); }
    static reg set1(T x) { return _mm512_set1_ps(x); }
    static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
    static reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
    static reg sub(reg a, reg b) { return _mm512_sub_ps(a, b); }
    static reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
    static reg div(reg a, reg b) { return _mm512_div_ps(a, b); }
    static reg max(reg a, reg b) { return _mm512_max_ps(a, b); }
    static reg min(reg a, reg b) { return _mm512_min_ps(a, b); }
    static bool any_greater(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ) != 0; }
    static bool any_not_below(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_NLT_UQ) != 0; }
    static T hmax(reg x) { return _mm512_reduce_max_ps(x); }
    static T hsum(reg x) { return _mm512_reduce_add_ps(x); }
    static reg round(reg x) {
        return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    // y 2^n by scalef (one instruction; overflow to inf, underflow rounded), 0 where x < lo.
    static reg ldexp_or_zero(reg x, reg lo, reg y, reg n) {
        return _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ), y, n);
    }
};

struct D512 {
    using T = double;
    using reg = __m512d;
    static constexpr std::size_t W = 8;
    static constexpr int R = 6, NV = 4;
    static reg zero() { return _mm512_setzero_pd(); }
    static reg load(const T* p) { return _mm512_loadu_pd(p); }
    static void store(T* p, reg x) { _mm512_storeu_pd(p, x); }
    static reg set1(T x) { return _mm512_set1_pd(x); }
    static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
    static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
    static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
    static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
    static reg div(reg a, reg b) { return _mm512_div_pd(a, b); }
    static reg max(reg a, reg b) { return _mm512_max_pd(a, b); }
    static reg min(reg a, reg b) { return _mm512_min_pd(a, b); }
    static bool any_greater(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ) != 0; }
    static bool any_not_below(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_NLT_UQ) != 0; }
    static T hmax(reg x) { return _mm512_reduce_max_pd(x); }
    static T hsum(reg x) { return _mm512_reduce_add_pd(x); }
    static reg round(reg x) {
        return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    static reg ldexp_or_zero(reg x, reg lo, reg y, reg n) {
        return _mm512_maskz_scalef_pd(_mm512_cmp_pd_mask(x, lo, _CMP_NLT_UQ), y, n);
    }
};

#include "attn/attention/tiled_kernel.inc"

}  // namespace

// 768 query rows a tile in float: every key and value tile is read from L3, or from memory
// where K and V outgrow it (64 MiB at n = 65,536, d = 128), once per 768 rows rather than 384
// (n = 65,536, d = 128, 2 threads: 4.81-4.87 s against 4.92-5.00 s).
const Kernels<float>* avx512_float() {
    return Kernel<F512>::table("avx512", 768, 128);
}
const Kernels<double>* avx512_double() {
    return Kernel<D512>::table("avx512", 384, 128);
}

}  // namespace attn::tiled_detail

#pragma GCC diagnostic pop
#pragma GCC pop_options
