// Scaled dot-product attention, masks and masked softmax: the direct path of the layer
// (attn::forward, layer.hpp, whose heads run scaled_dot_product_attention)
// (Vaswani et al. 2017, sec. 3.2; d2l 11.3-11.6; the "self-attention from scratch" notebook).
//
// Row-vector convention, as the notebook: a token is a row, projections multiply on the
// right (Q = X W_q). A torch nn.Linear weight (out, in) is the transpose of such a W.
// Every function is instantiated for float (PyTorch's default dtype) and double.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/score.hpp"
#include "attn/attention/tiled.hpp"

namespace attn {

/// (q, k) mask, true where j > i.
xt::xtensor<bool, 2> causal_mask(std::size_t q, std::size_t k);
/// (q, k) mask, true where j >= valid_len (valid_len may exceed k: nothing masked).
xt::xtensor<bool, 2> valid_length_mask(std::size_t q, std::size_t k, std::size_t valid_len);
/// (q, k) union of the masks that `options` asks for (all false if none).
xt::xtensor<bool, 2> attention_mask(std::size_t q, std::size_t k, const MaskOptions& options);

/// The one softmax of attn, one row of k entries: every softmax here (masked_softmax,
/// scaled_dot_product_attention, the timed kernels of complexity_timing) runs this.
///   x_j = *fill if fill and hidden(j), else value(j)
///   taken(j) = fill || !hidden(j)
///   w[j] = exp(x_j - m) / sum_{taken j'} exp(x_j' - m) for taken j, m = max over taken x_j;
///   w[j] = 0 for the others, and every w[j] = 0 when m is -inf (all hidden, all -inf);
///   every w[j] NaN when a taken x_j is NaN or m is +inf, as PyTorch's softmax gives (exp(x - m)
///   with a NaN in the row, or inf - inf): a non-finite score never becomes a weight.
/// value(j) may read w[j] (an in-place softmax): entry j is read before w[j] is written.
template <class T, class Value, class Hidden>
void masked_softmax_row(std::size_t k, Value value, Hidden hidden, std::optional<T> fill, T* w) {
    const auto taken = [&](std::size_t j) { return fill || !hidden(j); };
    const auto x = [&](std::size_t j) { return fill && hidden(j) ? *fill : value(j); };
    T row_max = -std::numeric_limits<T>::infinity();
    bool nan = false;
    for (std::size_t j = 0; j < k; ++j)
        if (taken(j)) {
            const T xj = x(j);
            nan = nan || std::isnan(xj);
            row_max = std::max(row_max, xj);
        }
    if (nan || row_max == std::numeric_limits<T>::infinity()) {
        std::fill(w, w + k, std::numeric_limits<T>::quiet_NaN());
        return;
    }
    if (!std::isfinite(row_max)) {  // nothing to attend to: the row is 0
        std::fill(w, w + k, T(0));
        return;
    }
    T sum = 0;
    for (std::size_t j = 0; j < k; ++j) {
        w[j] = taken(j) ? std::exp(x(j) - row_max) : T(0);
        sum += w[j];
    }
    for (std::size_t j = 0; j < k; ++j) w[j] /= sum;  // sum >= 1 (the max term)
}

/// Row-wise softmax with max subtraction, (q, k) -> (q, k): masked_softmax_row on each row,
///   w[i, j] = exp(s[i, j] - m_i) / sum_{j' unmasked} exp(s[i, j'] - m_i),  m_i = max unmasked
///   s[i, :]
/// Masked entries are exactly 0; a row with every entry masked (or every score -inf) is all
/// zeros. With `fill`, masked scores are replaced by *fill first and every entry takes part
/// (see MaskOptions). mask must have the shape of scores; throws std::invalid_argument if not.
template <class T>
xt::xtensor<T, 2> masked_softmax(const xt::xtensor<T, 2>& scores, const xt::xtensor<bool, 2>& mask,
                                 std::optional<double> fill = std::nullopt);
/// Unmasked row-wise softmax (q, k) -> (q, k).
template <class T>
xt::xtensor<T, 2> masked_softmax(const xt::xtensor<T, 2>& scores);

/// Rows of the attention weights one thread computes for k keys: at least 65536 weights.
inline std::size_t softmax_rows_per_thread(std::size_t k) {
    return std::max<std::size_t>(1, 65536 / std::max<std::size_t>(k, 1));
}

/// The matrices of one scaled dot-product attention.
template <class T>
struct AttentionResult {
    xt::xtensor<T, 2> scores;   // omega = Q K^T, unscaled and unmasked, (q, k)
    xt::xtensor<T, 2> scaled;   // omega / sqrt(d_k) (or * scale) + bias, soft-capped, before
                                // masks, (q, k): score.hpp's s
    xt::xtensor<T, 2> weights;  // masked_softmax(scaled), (q, k); rows sum to 1
    xt::xtensor<T, 2> context;  // weights V, (q, d_v)
};

/// softmax(s, mask) V with Q (q, d_k), K (k, d_k), V (k, d_v), s the score (score.hpp).
/// Throws std::invalid_argument on mismatched shapes or an empty dimension.
template <class T>
AttentionResult<T> scaled_dot_product_attention(const xt::xtensor<T, 2>& Q,
                                                const xt::xtensor<T, 2>& K,
                                                const xt::xtensor<T, 2>& V,
                                                const MaskOptions& mask = {},
                                                const ScoreOptions<T>& score = {});

/// The scaled scores after the masks: hidden entries -inf, or mask.fill when given (what the
/// softmax of scaled_dot_product_attention reads). scaled (q, k) -> (q, k).
template <class T>
xt::xtensor<T, 2> masked_scores(const xt::xtensor<T, 2>& scaled, const MaskOptions& mask);

}  // namespace attn
