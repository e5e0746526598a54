// The tiled attention kernels for AVX2 with FMA, chosen at run time when the CPU has them
// and lacks AVX-512. Standard headers come before the target pragma (see the AVX-512 file).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "attn/attention/tiled.hpp"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include <immintrin.h>

namespace attn::tiled_detail {
namespace {

struct F256 {
    using T = float;
    using reg = __m256;
    static constexpr std::size_t W = 8;
    static constexpr int R = 6, NV = 2;  // 12 accumulators of 16
    static reg zero() { return _mm256_setzero_ps(); }
    static reg load(const T* p) { return _mm256_loadu_ps(p); }
    static void store(T* p, reg x) { _mm256_storeu_ps(p, x); }
    static reg set1(T x) { return _mm256_set1_ps(x); }
    static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
    static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
    static reg sub(reg a, reg b) { return _mm256_sub_ps(a, b); }
    static reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
    static reg div(reg a, reg b) { return _mm256_div_ps(a, b); }
    static reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
    static reg min(reg a, reg b) { return _mm256_min_ps(a, b); }
    static bool any_greater(reg a, reg b) {
        return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ)) != 0;
    }
    static bool any_not_below(reg a, reg b) {
        return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_NLT_UQ)) != 0;
    }
    static T hmax(reg x) {
        __m128 m = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        m = _mm_max_ss(m, _mm_movehdup_ps(m));
        return _mm_cvtss_f32(m);
    }
    static T hsum(reg x) {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    static reg round(reg x) {
        return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    static reg pow2(reg n) {
        const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
        return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
    }
    static reg zero_below(reg x, reg lo, reg y) {
        return _mm256_blendv_ps(y, zero(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
    }
    static reg ldexp_or_zero(reg x, reg lo, reg y, reg n) {
        return zero_below(x, lo, mul(y, pow2(n)));
    }
};

struct D256 {
    using T = double;
    using reg = __m256d;
    static constexpr std::size_t W = 4;
    static constexpr int R = 6, NV = 2;
    static reg zero() { return _mm256_setzero_pd(); }
    static reg load(const T* p) { return _mm256_loadu_pd(p); }
    static void store(T* p, reg x) { _mm256_storeu_pd(p, x); }
    static reg set1(T x) { return _mm256_set1_pd(x); }
    static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
    static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
    static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
    static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
    static reg div(reg a, reg b) { return _mm256_div_pd(a, b); }
    static reg max(reg a, reg b) { return _mm256_max_pd(a, b); }
    static reg min(reg a, reg b) { return _mm256_min_pd(a, b); }
    static bool any_greater(reg a, reg b) {
        return _mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_GT_OQ)) != 0;
    }
    static bool any_not_below(reg a, reg b) {
        return _mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_NLT_UQ)) != 0;
    }
    static T hmax(reg x) {
        __m128d m = _mm_max_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
        m = _mm_max_sd(m, _mm_unpackhi_pd(m, m));
        return _mm_cvtsd_f64(m);
    }
    static T hsum(reg x) {
        __m128d s = _mm_add_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
        s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
        return _mm_cvtsd_f64(s);
    }
    static reg round(reg x) {
        return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    static reg pow2(reg n) {
        const __m256i i = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n));
        const __m256i e = _mm256_add_epi64(i, _mm256_set1_epi64x(1023));
        return _mm256_castsi256_pd(_mm256_slli_epi64(e, 52));
    }
    static reg zero_below(reg x, reg lo, reg y) {
        return _mm256_blendv_pd(y, zero(), _mm256_cmp_pd(x, lo, _CMP_LT_OQ));
    }
    static reg ldexp_or_zero(reg x, reg lo, reg y, reg n) {
        return zero_below(x, lo, mul(y, pow2(n)));
    }
};

#include "attn/attention/tiled_kernel.inc"

}  // namespace

const Kernels<float>* avx2_float() {
    return Kernel<F256>::table("avx2", 384, 256);
}
const Kernels<double>* avx2_double() {
    return Kernel<D256>::table("avx2", 384, 128);
}

}  // namespace attn::tiled_detail

#pragma GCC pop_options
