// The pieces of a transformer block besides attention, on row-major (n, d) activations, in T
// (float as PyTorch's default, or double). Each follows its PyTorch definition:
//   layer_norm  y = (x - mean) / sqrt(var + eps) * w + b     var biased, over the last axis
//   rms_norm    y = x / sqrt(mean(x^2) + eps) * w            Llama's RMSNorm, T5's LayerNorm
//   gemma_rms_norm  y = x / sqrt(mean(x^2) + eps) * (1 + w)  Gemma's RMSNorm
//   gelu        0.5 x (1 + erf(x / sqrt 2))                  BERT's "gelu"
//   gelu_tanh   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  GPT-2's gelu_new, BLOOM's
//   silu        x / (1 + exp(-x))                            Llama's SwiGLU gate
//   relu        max(x, 0)                                    T5's DenseReluDense
//   linear      y = x W + b (W (in, out), Conv1D) or x W^T + b (W (out, in), nn.Linear)
//   matvec      y = A x, one row of activations against a whole matrix (the LM head)
//   add_linear  y = y + x W + b, the residual connection's product accumulated into the stream
//   feed_forward  y = y + down(act(up x)); gated: y + down(act(gate x) * up x) (SwiGLU, T5's
//               gated-gelu)
#pragma once

#include <cstddef>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/model/config.hpp"

namespace attn::model {

template <class T>
using Matrix = xt::xtensor<T, 2>;

/// x (n, d) normalised row by row into a new (n, d); b may be null (no bias).
template <class T>
Matrix<T> layer_norm(const Matrix<T>& x, const T* w, const T* b, double eps);
template <class T>
Matrix<T> rms_norm(const Matrix<T>& x, const T* w, double eps);
template <class T>
Matrix<T> gemma_rms_norm(const Matrix<T>& x, const T* w, double eps);
/// The norm the config names (Norm::layer_norm with bias b, or rms_norm).
template <class T>
Matrix<T> norm(const ModelConfig& c, const Matrix<T>& x, const T* w, const T* b);

/// x (n, in) -> (n, out) through p (a view on mapped or widened weights).
template <class T>
Matrix<T> linear(const Matrix<T>& x, const Projection<T>& p);
/// A whole weight matrix as a Projection: (rows, cols) contiguous, stored as layout.
template <class T>
Projection<T> dense(const T* w, std::size_t rows, std::size_t cols, WeightLayout layout,
                    const T* bias = nullptr);

/// y (rows) = a (rows, cols, row-major) x (cols): a matrix-vector product, which streams a once
/// (a product with one row of x would first copy all of a into the GEMM's panels).
template <class T>
void matvec(const T* a, std::size_t rows, std::size_t cols, const T* x, T* y);

/// x = act(x) element-wise, in place.
template <class T>
void activate(Matrix<T>& x, Activation act);
/// a = act(a) * b element-wise (SwiGLU, T5's gated-gelu), in place.
template <class T>
void gate(Matrix<T>& a, const Matrix<T>& b, Activation act);
/// y (n, out) = y + x W + b: b added to y, then the product accumulated into y by the GEMM
/// itself (no (n, out) temporary, no separate sum). y and x must not overlap.
template <class T>
void add_linear(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& p);
/// Rows of x each MLP product takes at once over n tokens: n up to kMlpRows, else blocks of
/// about equal rows, none above kMlpRows (the (n, I) intermediates of a long input never held).
inline constexpr std::size_t kMlpRows = 4096;
std::size_t mlp_block_rows(std::size_t n);
/// The MLP of a block added to y (n, d): x (n, d) -> up (n, I) -> act -> down (n, d).
template <class T>
void feed_forward(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& up, Activation act,
                  const Projection<T>& down);
/// The gated MLP added to y: act(x gate) * (x up) (n, I) -> down (n, d).
template <class T>
void gated_feed_forward(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& gate,
                        const Projection<T>& up, Activation act, const Projection<T>& down);
/// a += b (the residual connection).
template <class T>
void add(Matrix<T>& a, const Matrix<T>& b);

}  // namespace attn::model
