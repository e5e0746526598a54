#include "attn/positions/scheme.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "attn/positions/alibi.hpp"
#include "attn/positions/sinusoidal.hpp"
#include "runtime/parallel.hpp"

namespace attn::positions {

namespace {

const char* layout_name(Layout l) {
    return l == Layout::split ? "split" : "interleaved";
}

}  // namespace

template <class T>
struct PositionScheme<T>::Data {
    SchemeConfig config;
    std::vector<double> slopes;  // alibi (H)
    std::vector<T> relative;     // t5: H x (2n - 1), entry (h, j - i + n - 1)
    std::shared_ptr<const Rope> rope;
    xt::xtensor<T, 2> p;  // sinusoidal (n, hidden_size)
};

template <class T>
PositionScheme<T>::PositionScheme(const SchemeConfig& config, std::size_t n)
    : scheme_(config.scheme), n_(n) {
    auto d = std::make_shared<Data>();
    d->config = config;
    const std::size_t H = config.n_heads;
    switch (scheme_) {
        case Scheme::none:
            break;
        case Scheme::sinusoidal: {
            if (config.hidden_size == 0)
                throw std::invalid_argument("hidden_size: sinusoidal P needs a width >= 1");
            const xt::xtensor<double, 2> p = positional_encoding(n, config.hidden_size, config.base,
                                                                 config.start, config.layout);
            d->p = xt::cast<T>(p);  // (n, d_in)
            break;
        }
        case Scheme::rope:
            d->rope = std::make_shared<const Rope>(config.rope, config.start, n);  // validates
            break;
        case Scheme::alibi:
            if (H == 0) throw std::invalid_argument("n_head: ALiBi needs at least one head");
            d->slopes = alibi_slopes(H);
            break;
        case Scheme::t5: {
            validate(config.buckets);
            const auto B = static_cast<std::size_t>(config.buckets.num_buckets);
            if (config.t5_table.shape(0) != B || config.t5_table.shape(1) != H)
                throw std::invalid_argument(fmt::format(
                    "relative_attention_bias: table of shape ({}, {}); {} buckets and {} heads "
                    "need ({}, {})",
                    config.t5_table.shape(0), config.t5_table.shape(1), B, H, B, H));
            // bucket[k] of offset r = k - (n - 1), once for every head. A bucket depends on
            // r's sign and distance |r| only and never falls as |r| grows (each step of
            // t5_bucket is monotone): once a side reaches its farthest offset's bucket, the
            // rest of that side shares it, with no logarithm.
            std::vector<std::size_t> bucket(2 * n - 1);
            const auto last = static_cast<std::int64_t>(n - 1);
            for (const std::int64_t side : {-1, 1}) {
                const std::int64_t far = t5_bucket(side * last, config.buckets);
                bool reached = false;
                for (std::int64_t dist = 0; dist <= last; ++dist) {
                    const std::int64_t b = reached ? far : t5_bucket(side * dist, config.buckets);
                    reached = b == far;
                    bucket[static_cast<std::size_t>(last + side * dist)] =
                        static_cast<std::size_t>(b);
                }
            }
            d->relative.resize(H * (2 * n - 1));
            for (std::size_t h = 0; h < H; ++h)
                for (std::size_t k = 0; k + 1 < 2 * n; ++k)
                    d->relative[h * (2 * n - 1) + k] =
                        static_cast<T>(config.t5_table(bucket[k], h));
            break;
        }
    }
    data_ = std::move(d);
}

template <class T>
const SchemeConfig& PositionScheme<T>::config() const {
    static const SchemeConfig none;
    return data_ ? data_->config : none;
}

template <class T>
void PositionScheme<T>::add_positions(T* x, std::size_t row0, std::size_t rows,
                                      std::size_t stride) const {
    if (scheme_ != Scheme::sinusoidal) return;
    const xt::xtensor<T, 2>& p = data_->p;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t c = 0; c < p.shape(1); ++c) x[i * stride + c] += p(row0 + i, c);
}

template <class T>
void PositionScheme<T>::rotate(T* m, std::size_t row0, std::size_t rows, std::size_t stride) const {
    if (scheme_ != Scheme::rope) return;
    const Rope& rope = *data_->rope;
    const std::size_t d = rope.dim(), block = rope.block_rows();
    if (stride < d)
        throw std::invalid_argument(fmt::format(
            "head_dim: rows of width {} are narrower than the rotated {} dimensions", stride, d));
    // Blocks of block rows from row 0, as one thread would take them, spread over the threads
    // (the same bits: a block's angles depend only on its first row).
    parallel_for((rows + block - 1) / block, 1, [&](std::size_t b0, std::size_t b1) {
        std::vector<double> buf(std::min(rows, block) * d);
        for (std::size_t i0 = b0 * block; i0 < std::min(rows, b1 * block); i0 += block) {
            const std::size_t count = std::min(block, rows - i0);
            for (std::size_t r = 0; r < count; ++r)
                for (std::size_t c = 0; c < d; ++c)
                    buf[r * d + c] = static_cast<double>(m[(i0 + r) * stride + c]);
            const auto first = data_->config.start + static_cast<std::int64_t>(row0 + i0);
            rope.rotate(first, count, data_->config.layout, buf.data(), buf.data());
            for (std::size_t r = 0; r < count; ++r)
                for (std::size_t c = 0; c < d; ++c)
                    m[(i0 + r) * stride + c] = static_cast<T>(buf[r * d + c]);
        }
    });
}

template <class T>
AttentionBias<T> PositionScheme<T>::bias(std::size_t head) const {
    AttentionBias<T> b;
    if (scheme_ == Scheme::alibi && data_->config.alibi == AlibiForm::distance)
        b.alibi_slope = data_->slopes.at(head);
    if (scheme_ == Scheme::alibi && data_->config.alibi == AlibiForm::key_position)
        b.add = [m = static_cast<T>(data_->slopes.at(head))](std::size_t, std::size_t col0,
                                                             std::size_t rows, std::size_t cols,
                                                             T* tile, std::size_t stride) {
            for (std::size_t r = 0; r < rows; ++r)  // BLOOM: + m_h j
                for (std::size_t c = 0; c < cols; ++c)
                    tile[r * stride + c] += m * static_cast<T>(col0 + c);
        };
    if (scheme_ == Scheme::t5)  // relative[j - i]: the table's entry of offset 0 and around it
        b.relative = data_->relative.data() + head * (2 * n_ - 1) + (n_ - 1);
    return b;
}

template <class T>
std::vector<std::size_t> PositionScheme<T>::positions_shape() const {
    switch (scheme_) {
        case Scheme::sinusoidal:
            return {n_, data_->p.shape(1)};
        case Scheme::rope:
            return {n_, data_->rope->dim() / 2};
        case Scheme::alibi:
        case Scheme::t5:
            return {data_->config.n_heads, n_, n_};
        case Scheme::none:
            break;
    }
    return {};
}

template <class T>
void PositionScheme<T>::positions_rows(std::size_t row0, std::size_t rows, T* out) const {
    const std::size_t n = n_;
    switch (scheme_) {
        case Scheme::none:
            return;
        case Scheme::sinusoidal:
            std::copy(data_->p.data() + row0 * data_->p.shape(1),
                      data_->p.data() + (row0 + rows) * data_->p.shape(1), out);
            return;
        case Scheme::rope: {
            const std::size_t h = data_->rope->dim() / 2;
            std::vector<double> a(rows * h);
            data_->rope->angles(data_->config.start + static_cast<std::int64_t>(row0), rows,
                                a.data());  // (rows, d/2)
            std::transform(a.begin(), a.end(), out, [](double v) { return static_cast<T>(v); });
            return;
        }
        case Scheme::alibi:
            if (data_->config.alibi == AlibiForm::distance) {
                const AlibiBias bias(data_->config.n_heads, n);
                std::vector<double> b(rows * n);
                bias.fill(row0, rows, b.data());  // bias[h, i, j] = -m_h |i - j|
                std::transform(b.begin(), b.end(), out, [](double v) { return static_cast<T>(v); });
                return;
            }
            [[fallthrough]];
        case Scheme::t5:
            std::fill(out, out + rows * n, T(0));
            for (std::size_t r = 0; r < rows; ++r) {
                const std::size_t g = row0 + r;  // head g / n, query g % n
                const AttentionBias<T> b = bias(g / n);
                if (b.add) b.add(g % n, 0, 1, n, out + r * n, n);
                if (b.relative)  // relative[j - i]
                    for (std::size_t j = 0; j < n; ++j)
                        out[r * n + j] += b.relative[std::ptrdiff_t(j) - std::ptrdiff_t(g % n)];
            }
            return;
    }
}

template <class T>
std::string PositionScheme<T>::description() const {
    if (!data_) return "";
    const SchemeConfig& c = data_->config;
    switch (scheme_) {
        case Scheme::none:
            return "";
        case Scheme::sinusoidal:
            return fmt::format("sinusoidal P (base {}, {})", c.base, layout_name(c.layout));
        case Scheme::rope:
            return fmt::format("rope angles (base {}, {}, scaling {})", c.rope.base,
                               layout_name(c.layout), scaling_name(c.rope.scaling));
        case Scheme::alibi:
            return c.alibi == AlibiForm::distance ? "alibi bias -m_h |i - j|"
                                                  : "alibi bias m_h j (BLOOM)";
        case Scheme::t5:
            return fmt::format("t5 bias table[bucket(j - i), h] ({} {} buckets, max distance {})",
                               c.buckets.bidirectional ? "bidirectional" : "causal",
                               c.buckets.num_buckets, c.buckets.max_distance);
    }
    return "";
}

template class PositionScheme<float>;
template class PositionScheme<double>;

}  // namespace attn::positions
