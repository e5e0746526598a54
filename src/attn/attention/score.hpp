// One head's score specification: how omega = Q K^T becomes what the softmax reads. The direct
// path (reference.hpp), the fused kernel (tiled.hpp, through fused_bias and fused_options) and
// the reduced path (reduced.hpp) all compute it:
//
//   s[i, j]      = omega[i, j] / sqrt(d_k)   or  omega[i, j] * scale when a scale is given
//   s[i, j]     += bias(i, j)                 (ALiBi's -slope |i - j|, a relative table, a tile
//                                              callback: AttentionBias, tiled.hpp)
//   s[i, j]      = cap tanh(s[i, j] / cap)     with a soft-cap (Gemma 2's attn_logit_softcapping)
//   masked[i, j] = s[i, j] unless key j is hidden from query i (MaskOptions), then -inf or fill
//   w[i, :]      = softmax(masked[i, :])
//
// The scaled scores a path keeps (AttentionResult::scaled, ScoreRows::scores) are s after the
// soft-cap and before the masks.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>

#include "attn/attention/tiled.hpp"

namespace attn {

/// Which keys each query may not see. mask(i, j) == true means "key j is hidden from query i".
///   causal:    j > i masked (a query sees itself and earlier keys).
///   valid_len: j >= L masked for every query (d2l's valid_lens for one sequence).
///   sliding_window: j <= i - W masked (Mistral's sliding_window: a query sees W keys).
///   fill:      nullopt -> masked weights are exactly 0: softmax over the unmasked entries
///              only, and a fully masked row is all zeros (never NaN).
///              value   -> d2l's masked_softmax: masked *scaled* scores are replaced by the
///              value (the book uses -1e6), then an ordinary softmax runs over the whole row.
///              With a finite value a fully masked row is uniform, 1/k each, as in the book;
///              with -inf it is all zeros. NaN and +inf are rejected.
struct MaskOptions {
    bool causal = false;
    std::optional<std::size_t> valid_len;
    std::optional<std::size_t> sliding_window;
    std::optional<double> fill;
};

/// A fill (MaskOptions::fill) is a number or -inf, since NaN and +inf have no softmax; else
/// std::invalid_argument "<fill> is not a number or -inf".
void check_fill(double fill);
/// A soft-cap is finite and above 0; else std::invalid_argument "<cap> is not ...".
void check_softcap(double cap);

/// Whether key j is hidden from query i: attention_mask's entry (i, j).
bool masked(const MaskOptions& options, std::size_t i, std::size_t j);
/// Whether `options` hides any key from any query (some mask asked for).
bool masks_any(const MaskOptions& options);

/// The score part of the specification (the masks are MaskOptions). Default: the notebook's
/// omega / sqrt(d_k), no bias, no cap.
template <class T>
struct ScoreOptions {
    std::optional<double> scale;    // nullopt: 1/sqrt(d_k); 1.0: unscaled (T5)
    std::optional<double> softcap;  // cap: s = cap tanh(s / cap), before the masks
    AttentionBias<T> bias;
};

/// cap tanh(s / cap) in T, each operation rounded to T as PyTorch's three ops (div, tanh,
/// mul) on a tensor of T.
template <class T>
T soft_cap(T s, T cap) {
    const T x = s / cap;
    const T t = std::tanh(x);
    return t * cap;
}

/// soft_cap on a tile (rows, cols) with row stride `stride`, in place.
template <class T>
void soft_cap_tile(T* tile, std::size_t rows, std::size_t cols, std::size_t stride, T cap) {
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            tile[r * stride + c] = soft_cap(tile[r * stride + c], cap);
}

/// The fused kernel's bias for one head: the score's own (ALiBi slope, relative table and
/// callback, as given), then, in a tile callback that sees the whole score, the soft-cap and
/// -inf for keys outside a sliding window (the kernel masks causal and valid length itself).
/// The score's bias unchanged when there is neither.
template <class T>
AttentionBias<T> fused_bias(const ScoreOptions<T>& score, const MaskOptions& mask);

/// The fused kernel's options: the score's scale and the masks it applies itself (causal,
/// valid length, fill), with a progress callback.
template <class T>
TiledOptions fused_options(const ScoreOptions<T>& score, const MaskOptions& mask,
                           std::function<void(std::size_t)> progress = {});

}  // namespace attn
