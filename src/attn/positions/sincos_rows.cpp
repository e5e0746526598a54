#include "attn/positions/sincos_rows.hpp"

#include <algorithm>
#include <stdexcept>

namespace attn::positions {

namespace {

template <bool Fma>
[[gnu::always_inline]] inline DoubleDouble product(double a, double b) {
    if constexpr (Fma) {
        const double p = a * b;
        return {p, __builtin_fma(a, b, -p)};
    } else {
        return two_product(a, b);
    }
}

// a * b + c * d of double-doubles rounded once (exact leading products, cross terms and the
// leading sum's error added before the rounding): error below 2^-100 for |values| <= 2.
template <bool Fma>
[[gnu::always_inline]] inline double dot2(double ah, double al, double bh, double bl, double ch,
                                          double cl, double dh, double dl) {
    const DoubleDouble p = product<Fma>(ah, bh), q = product<Fma>(ch, dh);
    const DoubleDouble s = two_sum(p.hi, q.hi);
    return s.hi + (((p.lo + q.lo) + s.lo) + ((ah * bl + al * bh) + (ch * dl + cl * dh)));
}

struct Block {
    const double *sh, *sl, *ch, *cl;      // s * sin/cos(first f_j), (m,)
    const double *skh, *skl, *ckh, *ckl;  // sin/cos(k f_j), (block, m)
    std::size_t m, count;
    double *sines, *cosines;  // (count, m)
};

// sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b - sin a sin b.
template <bool Fma>
[[gnu::always_inline]] inline void combine(const Block& b) {
    const double* __restrict sh = b.sh, * __restrict sl = b.sl;
    const double* __restrict ch = b.ch, * __restrict cl = b.cl;
    for (std::size_t k = 0; k < b.count; ++k) {
        const double* __restrict skh = b.skh + k * b.m, * __restrict skl = b.skl + k * b.m;
        const double* __restrict ckh = b.ckh + k * b.m, * __restrict ckl = b.ckl + k * b.m;
        double* __restrict vs = b.sines + k * b.m;
        double* __restrict vc = b.cosines + k * b.m;
#pragma GCC ivdep
        for (std::size_t j = 0; j < b.m; ++j) {
            vs[j] = dot2<Fma>(sh[j], sl[j], ckh[j], ckl[j], ch[j], cl[j], skh[j], skl[j]);
            vc[j] = dot2<Fma>(ch[j], cl[j], ckh[j], ckl[j], -sh[j], -sl[j], skh[j], skl[j]);
        }
    }
}

// The same bits either way (the products are exact): AVX2 and FMA where the processor has them.
__attribute__((target("avx2,fma"))) void combine_fma(const Block& b) {
    combine<true>(b);
}
void combine_generic(const Block& b) {
    combine<false>(b);
}

bool has_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}

}  // namespace

SinCosRows::SinCosRows(std::vector<DoubleDouble> freq, DoubleDouble scale, std::size_t max_block)
    : freq_(std::move(freq)), scale_(scale) {
    const std::size_t m = std::max<std::size_t>(freq_.size(), 1);
    block_ = std::clamp<std::size_t>((std::size_t{1} << 20) / m, 1,
                                     std::clamp<std::size_t>(max_block, 1, 256));
    const std::size_t cells = block_ * freq_.size();
    sin_hi_.resize(cells);
    sin_lo_.resize(cells);
    cos_hi_.resize(cells);
    cos_lo_.resize(cells);
    for (std::size_t k = 0; k < block_; ++k)
        for (std::size_t j = 0; j < freq_.size(); ++j) {
            const SinCos v = sincos(static_cast<std::int64_t>(k), freq_[j]);
            const std::size_t at = k * freq_.size() + j;
            sin_hi_[at] = v.sin.hi;
            sin_lo_[at] = v.sin.lo;
            cos_hi_[at] = v.cos.hi;
            cos_lo_[at] = v.cos.lo;
        }
}

void SinCosRows::start(std::int64_t first, std::vector<double>& sh, std::vector<double>& sl,
                       std::vector<double>& ch, std::vector<double>& cl) const {
    const std::size_t m = freq_.size();
    sh.resize(m);
    sl.resize(m);
    ch.resize(m);
    cl.resize(m);
    const bool scaled = scale_.hi != 1.0 || scale_.lo != 0.0;
    for (std::size_t j = 0; j < m; ++j) {
        SinCos v = sincos(first, freq_[j]);
        if (scaled) v = {multiply(scale_, v.sin), multiply(scale_, v.cos)};
        sh[j] = v.sin.hi;
        sl[j] = v.sin.lo;
        ch[j] = v.cos.hi;
        cl[j] = v.cos.lo;
    }
}

void SinCosRows::fill_fast(std::int64_t first, std::size_t count, double* sines,
                           double* cosines) const {
    if (count > block_) throw std::invalid_argument("SinCosRows::fill: count > block_rows()");
    const std::size_t m = freq_.size();
    std::vector<double> sh, sl, ch, cl;
    start(first, sh, sl, ch, cl);
    for (std::size_t k = 0; k < count; ++k) {
        const double* skh = &sin_hi_[k * m];
        const double* ckh = &cos_hi_[k * m];
        double* vs = sines + k * m;
        double* vc = cosines + k * m;
        for (std::size_t j = 0; j < m; ++j) {
            vs[j] = sh[j] * ckh[j] + ch[j] * skh[j];
            vc[j] = ch[j] * ckh[j] - sh[j] * skh[j];
        }
    }
}

void SinCosRows::fill(std::int64_t first, std::size_t count, double* sines, double* cosines) const {
    if (count > block_) throw std::invalid_argument("SinCosRows::fill: count > block_rows()");
    const std::size_t m = freq_.size();
    std::vector<double> sh, sl, ch, cl;
    start(first, sh, sl, ch, cl);
    const Block b{sh.data(),      sl.data(),      ch.data(),      cl.data(), sin_hi_.data(),
                  sin_lo_.data(), cos_hi_.data(), cos_lo_.data(), m,         count,
                  sines,          cosines};
    if (has_fma())
        combine_fma(b);
    else
        combine_generic(b);
}

}  // namespace attn::positions
