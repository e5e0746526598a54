#include "attn/positional_encoding.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attn {

namespace {

long double pair_frequency_l(std::size_t j, std::size_t d, double base) {
    return std::pow(static_cast<long double>(base),
                    -static_cast<long double>(2 * j) / static_cast<long double>(d));
}

}  // namespace

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
                                     std::size_t max_block)
    : d_(d), pairs_((d + 1) / 2), layout_(layout) {
    if (d < 1) throw std::invalid_argument("d must be at least 1");
    if (!(base > 1.0) || !std::isfinite(base))
        throw std::invalid_argument("base must be a finite number greater than 1");
    // Tables of block x pairs doubles, two of them: at most ~32 MiB whatever d is.
    block_ = std::clamp<std::size_t>((std::size_t{1} << 21) / pairs_, 1, std::max<std::size_t>(1, max_block));
    freq_.resize(pairs_);
    for (std::size_t j = 0; j < pairs_; ++j) freq_[j] = pair_frequency_l(j, d, base);
    sin_k_.resize(block_ * pairs_);
    cos_k_.resize(block_ * pairs_);
    for (std::size_t k = 0; k < block_; ++k)
        for (std::size_t j = 0; j < pairs_; ++j) {
            const long double a = static_cast<long double>(k) * freq_[j];
            sin_k_[k * pairs_ + j] = static_cast<double>(std::sin(a));
            cos_k_[k * pairs_ + j] = static_cast<double>(std::cos(a));
        }
}

void PositionalEncoder::fill(std::int64_t first, std::size_t count, double* out) const {
    if (count > block_) throw std::invalid_argument("PositionalEncoder::fill: count > block_rows()");
    // sin/cos of the block's first angle, i0 * w_j.
    std::vector<double> s0(pairs_), c0(pairs_);
    for (std::size_t j = 0; j < pairs_; ++j) {
        const long double a = static_cast<long double>(first) * freq_[j];
        s0[j] = static_cast<double>(std::sin(a));
        c0[j] = static_cast<double>(std::cos(a));
    }
    const bool odd = d_ % 2 == 1;
    const std::size_t full = d_ / 2;  // pairs that have both a sine and a cosine
    for (std::size_t k = 0; k < count; ++k) {
        const double* sk = &sin_k_[k * pairs_];
        const double* ck = &cos_k_[k * pairs_];
        double* row = out + k * d_;
        // sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b - sin a sin b
        if (layout_ == Layout::interleaved) {
            for (std::size_t j = 0; j < full; ++j) {
                row[2 * j] = s0[j] * ck[j] + c0[j] * sk[j];
                row[2 * j + 1] = c0[j] * ck[j] - s0[j] * sk[j];
            }
        } else {
            const std::size_t half = pairs_;
            for (std::size_t j = 0; j < full; ++j) {
                row[j] = s0[j] * ck[j] + c0[j] * sk[j];
                row[half + j] = c0[j] * ck[j] - s0[j] * sk[j];
            }
        }
        if (odd) row[layout_ == Layout::interleaved ? d_ - 1 : pairs_ - 1] =
                     s0[full] * ck[full] + c0[full] * sk[full];
    }
}

xt::xtensor<double, 2> positional_encoding(std::size_t n, std::size_t d, double base,
                                           std::int64_t start, Layout layout) {
    const PositionalEncoder encoder(d, base, layout, std::max<std::size_t>(n, 1));
    xt::xtensor<double, 2> P = xt::zeros<double>({n, d});
    for (std::size_t r = 0; r < n; r += encoder.block_rows()) {
        const std::size_t count = std::min(encoder.block_rows(), n - r);
        encoder.fill(start + static_cast<std::int64_t>(r), count, P.data() + r * d);
    }
    return P;
}

}  // namespace attn
