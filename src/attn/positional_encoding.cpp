#include "attn/positional_encoding.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attn {

namespace {

using positions::DoubleDouble;

constexpr std::size_t kMaxBlockRows = 256;

// a * b exactly: with an FMA instruction, or Dekker's product.
template <bool Fma>
[[gnu::always_inline]] inline DoubleDouble product(double a, double b) {
    if constexpr (Fma) {
        const double p = a * b;
        return {p, __builtin_fma(a, b, -p)};
    } else {
        return positions::two_product(a, b);
    }
}

// a * b + c * d of double-doubles, rounded once: the leading products are exact, the cross
// terms and the leading sum's error are added before the last rounding. Error before rounding
// below 2^-100 for |a|, |b|, |c|, |d| <= 1.
template <bool Fma>
[[gnu::always_inline]] inline double dot2(double ah, double al, double bh, double bl, double ch,
                                          double cl, double dh, double dl) {
    const DoubleDouble p = product<Fma>(ah, bh), q = product<Fma>(ch, dh);
    const DoubleDouble s = positions::two_sum(p.hi, q.hi);
    return s.hi + (((p.lo + q.lo) + s.lo) + ((ah * bl + al * bh) + (ch * dl + cl * dh)));
}

// Rows k < count of one block in double-double: row k, pair j from sin/cos(a_j) = (s, c)
// (hi and lo arrays, (pairs,)) and sin/cos(k w_j) from the tables (block, pairs).
struct ExtendedBlock {
    const double *sh, *sl, *ch, *cl;      // (pairs,)
    const double *skh, *skl, *ckh, *ckl;  // (block, pairs)
    std::size_t pairs, full, d, step, cos_at, count;
    double* out;  // (count, d)
};

template <bool Fma>
[[gnu::always_inline]] inline void combine_extended(const ExtendedBlock& b) {
    std::vector<double> sines(b.pairs), cosines(b.pairs);
    double* __restrict vs = sines.data();
    double* __restrict vc = cosines.data();
    const double* __restrict sh = b.sh, * __restrict sl = b.sl;
    const double* __restrict ch = b.ch, * __restrict cl = b.cl;
    for (std::size_t k = 0; k < b.count; ++k) {
        const double* __restrict skh = b.skh + k * b.pairs, * __restrict skl = b.skl + k * b.pairs;
        const double* __restrict ckh = b.ckh + k * b.pairs, * __restrict ckl = b.ckl + k * b.pairs;
#pragma GCC ivdep
        for (std::size_t j = 0; j < b.pairs; ++j) {
            vs[j] = dot2<Fma>(sh[j], sl[j], ckh[j], ckl[j], ch[j], cl[j], skh[j], skl[j]);
            vc[j] = dot2<Fma>(ch[j], cl[j], ckh[j], ckl[j], -sh[j], -sl[j], skh[j], skl[j]);
        }
        double* row = b.out + k * b.d;
        for (std::size_t j = 0; j < b.full; ++j) {
            row[j * b.step] = vs[j];
            row[b.cos_at + j * b.step] = vc[j];
        }
        if (b.full < b.pairs) row[b.full * b.step] = vs[b.full];  // odd d: a sine alone
    }
}

// The same arithmetic (the products are exact either way), vectorised with AVX2 and FMA where
// the processor has them.
__attribute__((target("avx2,fma"))) void combine_extended_fma(const ExtendedBlock& b) {
    combine_extended<true>(b);
}
void combine_extended_generic(const ExtendedBlock& b) {
    combine_extended<false>(b);
}

bool has_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}

}  // namespace

double pair_frequency(std::size_t j, std::size_t d, double base) {
    return positions::to_double(positions::inverse_power(base, 2 * j, d));
}

std::size_t sine_column(std::size_t j, std::size_t /*d*/, Layout layout) {
    return layout == Layout::interleaved ? 2 * j : j;
}

std::size_t cosine_column(std::size_t j, std::size_t d, Layout layout) {
    return layout == Layout::interleaved ? 2 * j + 1 : (d + 1) / 2 + j;
}

PositionalEncoder::PositionalEncoder(std::size_t d, double base, Layout layout,
                                     std::size_t max_block, Combine combine)
    : d_(d), pairs_((d + 1) / 2), layout_(layout), combine_(combine) {
    if (d < 1) throw std::invalid_argument("d must be at least 1");
    if (!(base > 1.0) || !std::isfinite(base))
        throw std::invalid_argument("base must be a finite number greater than 1");
    // Up to 256 rows a block, and tables of block x pairs values of at most ~32 MiB.
    block_ = std::clamp<std::size_t>((std::size_t{1} << 20) / pairs_, 1,
                                     std::clamp<std::size_t>(max_block, 1, kMaxBlockRows));
    freq_.resize(pairs_);
    for (std::size_t j = 0; j < pairs_; ++j) freq_[j] = positions::inverse_power(base, 2 * j, d);
    const bool extended = combine_ == Combine::extended;
    sin_hi_.resize(block_ * pairs_);
    cos_hi_.resize(block_ * pairs_);
    if (extended) {
        sin_lo_.resize(block_ * pairs_);
        cos_lo_.resize(block_ * pairs_);
    }
    for (std::size_t k = 0; k < block_; ++k)
        for (std::size_t j = 0; j < pairs_; ++j) {
            const auto v = positions::sincos(static_cast<std::int64_t>(k), freq_[j]);
            const std::size_t at = k * pairs_ + j;
            sin_hi_[at] = v.sin.hi;
            cos_hi_[at] = v.cos.hi;
            if (extended) {
                sin_lo_[at] = v.sin.lo;
                cos_lo_[at] = v.cos.lo;
            }
        }
}

void PositionalEncoder::fill(std::int64_t first, std::size_t count, double* out) const {
    if (count > block_)
        throw std::invalid_argument("PositionalEncoder::fill: count > block_rows()");
    // sin/cos of the block's first angle a = i0 * w_j, (pairs,) each; -sin a for the cosines.
    std::vector<double> sh(pairs_), sl(pairs_), ch(pairs_), cl(pairs_);
    for (std::size_t j = 0; j < pairs_; ++j) {
        const auto v = positions::sincos(first, freq_[j]);
        sh[j] = v.sin.hi;
        sl[j] = v.sin.lo;
        ch[j] = v.cos.hi;
        cl[j] = v.cos.lo;
    }
    const std::size_t full = d_ / 2;  // pairs that have both a sine and a cosine
    // Column of sine j is j * step, of cosine j cos_at + j * step.
    const bool interleaved = layout_ == Layout::interleaved;
    const std::size_t step = interleaved ? 2 : 1;
    const std::size_t cos_at = interleaved ? 1 : pairs_;
    // sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b - sin a sin b,
    // b = k * w_j from the tables.
    for (std::size_t k = 0; combine_ == Combine::fast && k < count; ++k) {
        const double* skh = &sin_hi_[k * pairs_];
        const double* ckh = &cos_hi_[k * pairs_];
        double* row = out + k * d_;
        for (std::size_t j = 0; j < full; ++j) {
            row[j * step] = sh[j] * ckh[j] + ch[j] * skh[j];
            row[cos_at + j * step] = ch[j] * ckh[j] - sh[j] * skh[j];
        }
        if (d_ % 2 == 1) row[full * step] = sh[full] * ckh[full] + ch[full] * skh[full];
    }
    if (combine_ == Combine::extended) {
        const ExtendedBlock b{sh.data(),
                              sl.data(),
                              ch.data(),
                              cl.data(),
                              sin_hi_.data(),
                              sin_lo_.data(),
                              cos_hi_.data(),
                              cos_lo_.data(),
                              pairs_,
                              full,
                              d_,
                              step,
                              cos_at,
                              count,
                              out};
        if (has_fma())
            combine_extended_fma(b);
        else
            combine_extended_generic(b);
    }
}

xt::xtensor<double, 2> positional_encoding(std::size_t n, std::size_t d, double base,
                                           std::int64_t start, Layout layout, Combine combine) {
    const PositionalEncoder encoder(d, base, layout, std::max<std::size_t>(n, 1), combine);
    xt::xtensor<double, 2> P = xt::zeros<double>({n, d});
    for (std::size_t r = 0; r < n; r += encoder.block_rows()) {
        const std::size_t count = std::min(encoder.block_rows(), n - r);
        encoder.fill(start + static_cast<std::int64_t>(r), count, P.data() + r * d);
    }
    return P;
}

}  // namespace attn
