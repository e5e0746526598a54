#include "attn/positions/sinusoidal.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attn {

namespace {

constexpr std::size_t kMaxBlockRows = 256;

}  // namespace

long double pair_frequency_l(std::size_t j, std::size_t d, double base) {
    return std::pow(static_cast<long double>(base),
                    -static_cast<long double>(2 * j) / static_cast<long double>(d));
}

double pair_frequency(std::size_t j, std::size_t d, double base) {
    return static_cast<double>(pair_frequency_l(j, d, base));
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
    block_ = std::clamp<std::size_t>((std::size_t{1} << 21) / pairs_, 1,
                                     std::clamp<std::size_t>(max_block, 1, kMaxBlockRows));
    freq_.resize(pairs_);
    for (std::size_t j = 0; j < pairs_; ++j) freq_[j] = pair_frequency_l(j, d, base);
    sin_kl_.resize(block_ * pairs_);
    cos_kl_.resize(block_ * pairs_);
    for (std::size_t k = 0; k < block_; ++k)
        for (std::size_t j = 0; j < pairs_; ++j) {
            const long double a = static_cast<long double>(k) * freq_[j];
            sin_kl_[k * pairs_ + j] = std::sin(a);
            cos_kl_[k * pairs_ + j] = std::cos(a);
        }
    if (combine_ == Combine::fast) {
        sin_k_.assign(sin_kl_.begin(), sin_kl_.end());
        cos_k_.assign(cos_kl_.begin(), cos_kl_.end());
        sin_kl_ = {};
        cos_kl_ = {};
    }
}

template <typename T>
void PositionalEncoder::combine_rows(const std::vector<T>& sin_k, const std::vector<T>& cos_k,
                                     std::int64_t first, std::size_t count, double* out) const {
    // sin/cos of the block's first angle, a = i0 * w_j.
    std::vector<T> s0(pairs_), c0(pairs_);
    for (std::size_t j = 0; j < pairs_; ++j) {
        const long double a = static_cast<long double>(first) * freq_[j];
        s0[j] = static_cast<T>(std::sin(a));
        c0[j] = static_cast<T>(std::cos(a));
    }
    const std::size_t full = d_ / 2;  // pairs that have both a sine and a cosine
    // Column of sine j is sin_at + j * step, of cosine j cos_at + j * step.
    const bool interleaved = layout_ == Layout::interleaved;
    const std::size_t step = interleaved ? 2 : 1;
    const std::size_t cos_at = interleaved ? 1 : pairs_;
    for (std::size_t k = 0; k < count; ++k) {
        const T* sk = &sin_k[k * pairs_];  // sin(b), b = k * w_j
        const T* ck = &cos_k[k * pairs_];
        double* row = out + k * d_;
        // sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b - sin a sin b
        for (std::size_t j = 0; j < full; ++j) {
            row[j * step] = static_cast<double>(s0[j] * ck[j] + c0[j] * sk[j]);
            row[cos_at + j * step] = static_cast<double>(c0[j] * ck[j] - s0[j] * sk[j]);
        }
        if (d_ % 2 == 1)  // the last sine has no cosine
            row[full * step] = static_cast<double>(s0[full] * ck[full] + c0[full] * sk[full]);
    }
}

void PositionalEncoder::fill(std::int64_t first, std::size_t count, double* out) const {
    if (count > block_)
        throw std::invalid_argument("PositionalEncoder::fill: count > block_rows()");
    if (combine_ == Combine::fast)
        combine_rows(sin_k_, cos_k_, first, count, out);
    else
        combine_rows(sin_kl_, cos_kl_, first, count, out);
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
