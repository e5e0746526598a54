#include "attn/attention/reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include "runtime/parallel.hpp"

// Matrix products go through xt::linalg::dot with owning row-major xt::xtensor operands only:
// in xtensor-blas 0.20 it rejects column views, and dot(A, transpose(A)) on one buffer takes
// a SYRK path sized from A alone.

namespace attn {
namespace {

using Shape2 = std::array<std::size_t, 2>;

std::string shape_str(const Shape2& s) {
    return fmt::format("({}, {})", s[0], s[1]);
}

template <class T>
Shape2 shape_of(const xt::xtensor<T, 2>& m) {
    return {m.shape(0), m.shape(1)};
}

template <class T>
void require_nonempty(const xt::xtensor<T, 2>& m, const char* what) {
    if (m.shape(0) == 0 || m.shape(1) == 0)
        throw std::invalid_argument(
            fmt::format("{} has an empty dimension: {}", what, shape_str(shape_of(m))));
}

// check_fill, the message naming `who`.
void check_fill(std::optional<double> fill, const char* who) {
    try {
        if (fill) attn::check_fill(*fill);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("{}: {}", who, e.what()));
    }
}

}  // namespace

xt::xtensor<bool, 2> causal_mask(std::size_t q, std::size_t k) {
    xt::xtensor<bool, 2> mask = xt::xtensor<bool, 2>::from_shape({q, k});
    for (std::size_t i = 0; i < q; ++i)
        for (std::size_t j = 0; j < k; ++j) mask(i, j) = j > i;
    return mask;
}

xt::xtensor<bool, 2> valid_length_mask(std::size_t q, std::size_t k, std::size_t valid_len) {
    xt::xtensor<bool, 2> mask = xt::xtensor<bool, 2>::from_shape({q, k});
    for (std::size_t i = 0; i < q; ++i)
        for (std::size_t j = 0; j < k; ++j) mask(i, j) = j >= valid_len;
    return mask;
}

xt::xtensor<bool, 2> attention_mask(std::size_t q, std::size_t k, const MaskOptions& options) {
    xt::xtensor<bool, 2> mask = xt::xtensor<bool, 2>::from_shape({q, k});
    for (std::size_t i = 0; i < q; ++i)
        for (std::size_t j = 0; j < k; ++j) mask(i, j) = masked(options, i, j);
    return mask;
}

template <class T>
xt::xtensor<T, 2> masked_softmax(const xt::xtensor<T, 2>& scores, const xt::xtensor<bool, 2>& mask,
                                 std::optional<double> fill) {
    if (mask.shape(0) != scores.shape(0) || mask.shape(1) != scores.shape(1))
        throw std::invalid_argument(fmt::format("masked_softmax: mask {} does not match scores {}",
                                                shape_str({mask.shape(0), mask.shape(1)}),
                                                shape_str(shape_of(scores))));
    check_fill(fill, "masked_softmax");
    const std::size_t q = scores.shape(0);
    const std::size_t k = scores.shape(1);
    const std::optional<T> fill_t = fill ? std::optional<T>(static_cast<T>(*fill)) : std::nullopt;
    xt::xtensor<T, 2> weights = xt::xtensor<T, 2>::from_shape({q, k});  // (q, k)
    for (std::size_t i = 0; i < q; ++i)
        masked_softmax_row(
            k, [&](std::size_t j) { return scores(i, j); },
            [&](std::size_t j) { return mask(i, j); }, fill_t, weights.data() + i * k);
    return weights;
}

template <class T>
xt::xtensor<T, 2> masked_softmax(const xt::xtensor<T, 2>& scores) {
    const xt::xtensor<bool, 2> none = xt::zeros<bool>({scores.shape(0), scores.shape(1)});
    return masked_softmax(scores, none, std::nullopt);
}

template <class T>
AttentionResult<T> scaled_dot_product_attention(const xt::xtensor<T, 2>& Q,
                                                const xt::xtensor<T, 2>& K,
                                                const xt::xtensor<T, 2>& V, const MaskOptions& mask,
                                                const ScoreOptions<T>& score) {
    require_nonempty(Q, "Q");
    require_nonempty(K, "K");
    require_nonempty(V, "V");
    if (Q.shape(1) != K.shape(1))
        throw std::invalid_argument(fmt::format("attention: Q {} and K {} differ in d_k",
                                                shape_str(shape_of(Q)), shape_str(shape_of(K))));
    if (K.shape(0) != V.shape(0))
        throw std::invalid_argument(
            fmt::format("attention: K {} and V {} differ in the number of keys",
                        shape_str(shape_of(K)), shape_str(shape_of(V))));
    const std::size_t q = Q.shape(0);
    const std::size_t k = K.shape(0);
    const std::size_t d_k = Q.shape(1);

    check_fill(mask.fill, "attention");
    if (score.softcap) check_softcap(*score.softcap);

    AttentionResult<T> r;
    r.scores = xt::linalg::dot(Q, xt::transpose(K));  // (q, d_k) x (d_k, k) -> (q, k)
    // scaled = omega / sqrt(d_k) (or omega * scale) - slope |i - j| + relative[j - i], then the
    // table's bias, then the soft-cap.
    const T divisor = static_cast<T>(std::sqrt(static_cast<double>(d_k)));
    const T factor = static_cast<T>(score.scale.value_or(1.0));
    const T slope = static_cast<T>(score.bias.alibi_slope.value_or(0.0));
    r.scaled = xt::xtensor<T, 2>::from_shape({q, k});  // (q, k)
    for (std::size_t i = 0; i < q; ++i)
        for (std::size_t j = 0; j < k; ++j) {
            T s = score.scale ? r.scores(i, j) * factor : r.scores(i, j) / divisor;
            if (score.bias.alibi_slope) s -= slope * T(i > j ? i - j : j - i);
            if (score.bias.relative)
                s += score.bias.relative[std::ptrdiff_t(j) - std::ptrdiff_t(i)];
            r.scaled(i, j) = s;
        }
    if (score.bias.add) score.bias.add(0, 0, q, k, r.scaled.data(), k);
    if (score.softcap) soft_cap_tile(r.scaled.data(), q, k, k, static_cast<T>(*score.softcap));
    // weights = masked_softmax(scaled), row by row, rows split over threads.
    r.weights = xt::xtensor<T, 2>::from_shape({q, k});  // (q, k)
    const std::optional<T> fill =
        mask.fill ? std::optional<T>(static_cast<T>(*mask.fill)) : std::nullopt;
    parallel_for(q, softmax_rows_per_thread(k), [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) {
            std::size_t limit = k;  // the causal and valid-length masks hide keys j >= limit
            if (mask.causal) limit = std::min(limit, i + 1);
            if (mask.valid_len) limit = std::min(limit, *mask.valid_len);
            // the sliding window hides keys j <= i - W
            const std::size_t window = mask.sliding_window.value_or(k + i + 1);
            const auto outside = [&](std::size_t j) { return j + window <= i; };
            const T* s = r.scaled.data() + i * k;
            T* w = r.weights.data() + i * k;
            const auto value = [&](std::size_t j) { return s[j]; };
            if (fill) {
                masked_softmax_row(
                    k, value, [&](std::size_t j) { return j >= limit || outside(j); }, fill, w);
            } else {  // the hidden suffix takes no part: the row's first `limit` entries alone
                masked_softmax_row(limit, value, outside, fill, w);
                // 0, or NaN with a NaN row: PyTorch's exp(mask value - NaN) is NaN
                const bool nan = limit > 0 && std::isnan(w[0]);
                std::fill(w + limit, w + k, nan ? std::numeric_limits<T>::quiet_NaN() : T(0));
            }
        }
    });
    r.context = xt::linalg::dot(r.weights, V);  // (q, k) x (k, d_v) -> (q, d_v)
    return r;
}

template <class T>
xt::xtensor<T, 2> masked_scores(const xt::xtensor<T, 2>& scaled, const MaskOptions& mask) {
    check_fill(mask.fill, "masked_scores");
    const xt::xtensor<bool, 2> hidden = attention_mask(scaled.shape(0), scaled.shape(1), mask);
    const T value = mask.fill ? static_cast<T>(*mask.fill) : -std::numeric_limits<T>::infinity();
    xt::xtensor<T, 2> out = scaled;
    for (std::size_t i = 0; i < out.shape(0); ++i)
        for (std::size_t j = 0; j < out.shape(1); ++j)
            if (hidden(i, j)) out(i, j) = value;
    return out;
}

#define ATTN_INSTANTIATE(T)                                                            \
    template xt::xtensor<T, 2> masked_softmax<T>(                                      \
        const xt::xtensor<T, 2>&, const xt::xtensor<bool, 2>&, std::optional<double>); \
    template xt::xtensor<T, 2> masked_softmax<T>(const xt::xtensor<T, 2>&);            \
    template AttentionResult<T> scaled_dot_product_attention<T>(                       \
        const xt::xtensor<T, 2>&, const xt::xtensor<T, 2>&, const xt::xtensor<T, 2>&,  \
        const MaskOptions&, const ScoreOptions<T>&);                                   \
    template xt::xtensor<T, 2> masked_scores<T>(const xt::xtensor<T, 2>&, const MaskOptions&);

ATTN_INSTANTIATE(float)
ATTN_INSTANTIATE(double)
#undef ATTN_INSTANTIATE

}  // namespace attn
