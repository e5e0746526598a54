// The direct path in bfloat16 or float16, as PyTorch computes a layer whose tensors are of that
// dtype (model.to(dtype)): every op's result is rounded once to the dtype D (fl_D, nearest
// even), and each op itself runs in float32 (T) on D values, as PyTorch 1.13's CPU kernels do:
// matrix products accumulate in float32, softmax is computed in float32 and rounded once, and a
// Python scalar taking part in an op is first rounded to D (torch converts it to the tensor's
// dtype). With x, W, b already D values:
//   P~        = fl_D(P);  x' = fl_D(x + P~)                            (sinusoidal)
//   q         = fl_D(x' W_q + b_q)                (one rounding: addmm, nn.Linear)
//   c, s      = fl_D(cos), fl_D(sin) of the scheme's float32 values   (Hugging Face's cos.to(D))
//   rope(q)   = fl_D(fl_D(q c) + fl_D(rotate_half(q) s))
//   omega     = fl_D(q k^T)
//   scaled    = fl_D(omega / fl_D(sqrt d_k))   or   fl_D(omega fl_D(scale))
//   scaled    = fl_D(scaled + fl_D(bias))      (alibi -m |i - j|, BLOOM's m j, T5's table)
//   scaled    = fl_D(fl_D(tanh(fl_D(scaled / c))) c), c = fl_D(cap)      (a soft-cap)
//   w         = fl_D(softmax(masked scaled))   (masked: fl_D(fill) or -inf)
//   context   = fl_D(w v)
#pragma once

#include <cstddef>

#include "attn/attention/reference.hpp"
#include "attn/positions/scheme.hpp"
#include "runtime/reduced_float.hpp"

namespace attn {

/// sinusoidal: x (rows, d) = fl_D(x + fl_D(P)) at rows 0..; other schemes: nothing.
template <class T>
void add_positions_reduced(const positions::PositionScheme<T>& scheme, runtime::Reduced dtype, T* x,
                           std::size_t rows, std::size_t d);

/// rope: the first rope.d columns of m (rows, d) rotated in place at positions 0.. (all of them
/// unless the rotary dimension is partial) with every product and sum rounded to D, the pairs in
/// the scheme's layout; other schemes: nothing.
template <class T>
void rotate_reduced(const positions::PositionScheme<T>& scheme, runtime::Reduced dtype, T* m,
                    std::size_t rows, std::size_t d);

/// scaled_dot_product_attention (reference.hpp) in D: Q (q, d_k), K (k, d_k), V (k, d_v) hold
/// D values; every matrix of the result holds D values.
template <class T>
AttentionResult<T> reduced_attention(const xt::xtensor<T, 2>& Q, const xt::xtensor<T, 2>& K,
                                     const xt::xtensor<T, 2>& V, const MaskOptions& mask,
                                     const ScoreOptions<T>& score, runtime::Reduced dtype);

}  // namespace attn
