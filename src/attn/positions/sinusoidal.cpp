#include "attn/positions/sinusoidal.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

namespace attn::positions {

namespace {

constexpr std::size_t kMaxBlockRows = 256;

std::vector<DoubleDouble> frequencies(std::size_t d, double base) {
    if (d < 1) throw std::invalid_argument("d must be at least 1");
    if (!(base > 1.0) || !std::isfinite(base))
        throw std::invalid_argument("base must be a finite number greater than 1");
    std::vector<DoubleDouble> f((d + 1) / 2);
    for (std::size_t j = 0; j < f.size(); ++j) f[j] = inverse_power(base, 2 * j, d);
    return f;
}

}  // namespace

long double pair_frequency_l(std::size_t j, std::size_t d, double base) {
    const DoubleDouble f = inverse_power(base, 2 * j, d);
    return static_cast<long double>(f.hi) + static_cast<long double>(f.lo);
}

double pair_frequency(std::size_t j, std::size_t d, double base) {
    return to_double(inverse_power(base, 2 * j, d));
}

std::size_t sine_column(std::size_t j, std::size_t /*d*/, Layout layout) {
    return layout == Layout::interleaved ? 2 * j : j;
}

std::size_t cosine_column(std::size_t j, std::size_t d, Layout layout) {
    return layout == Layout::interleaved ? 2 * j + 1 : (d + 1) / 2 + j;
}

PositionalEncoder::PositionalEncoder(std::size_t d, double base, Layout layout,
                                     std::size_t max_block, Combine combine)
    : d_(d),
      pairs_((d + 1) / 2),
      layout_(layout),
      combine_(combine),
      rows_(frequencies(d, base), {1.0, 0.0}, std::min(max_block, kMaxBlockRows)) {}

void PositionalEncoder::fill(std::int64_t first, std::size_t count, double* out) const {
    if (count > block_rows())
        throw std::invalid_argument("PositionalEncoder::fill: count > block_rows()");
    // sin/cos of (first + k) w_j, (count, pairs) each, then laid out in the rows.
    const auto sines = std::make_unique_for_overwrite<double[]>(count * pairs_);
    const auto cosines = std::make_unique_for_overwrite<double[]>(count * pairs_);
    if (combine_ == Combine::extended)
        rows_.fill(first, count, sines.get(), cosines.get());
    else
        rows_.fill_fast(first, count, sines.get(), cosines.get());
    const std::size_t full = d_ / 2;  // pairs that have both a sine and a cosine
    const bool interleaved = layout_ == Layout::interleaved;
    const std::size_t step = interleaved ? 2 : 1;         // column of sine j: j * step
    const std::size_t cos_at = interleaved ? 1 : pairs_;  // of cosine j: cos_at + j * step
    for (std::size_t k = 0; k < count; ++k) {
        const double* s = &sines[k * pairs_];
        const double* c = &cosines[k * pairs_];
        double* row = out + k * d_;
        for (std::size_t j = 0; j < full; ++j) {
            row[j * step] = s[j];
            row[cos_at + j * step] = c[j];
        }
        if (full < pairs_) row[full * step] = s[full];  // odd d: the last sine has no cosine
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

}  // namespace attn::positions
