// The layers of complexity.hpp run for real, to time them: one kernel per row of the table
// and a timing loop (median of repeated runs on deterministic pseudo-random data).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <xtensor/xtensor.hpp>

#include "attn/complexity.hpp"

namespace attn {

// Kernels: each runs one layer in float32 on owning row-major matrices (BLAS via
// xt::linalg::dot for sgemm, xt::blas::gemv for the recurrent steps). They exist to be
// timed; weights are inputs, no biases.

/// "Same" 1-D convolution by im2col + sgemm. X (n, d), W (k*d, d_out) with
/// W(t*d + c, o) the weight of tap t, input channel c, output channel o. Tap t of output i
/// reads row i - floor((k-1) dilation / 2) + t dilation (zero outside [0, n)).
///   cols (n, k*d) = im2col(X);  Y (n, d_out) = cols W.
xt::xtensor<float, 2> convolution_forward(const xt::xtensor<float, 2>& X,
                                          const xt::xtensor<float, 2>& W, std::size_t k,
                                          std::size_t dilation = 1);

/// n dependent steps h_t = tanh(W h_{t-1} + U x_t), h_0 = 0, two sgemv per step.
/// X (n, d), W (d, d), U (d, d) -> H (n, d), row t-1 = h_t.
xt::xtensor<float, 2> recurrent_forward(const xt::xtensor<float, 2>& X,
                                        const xt::xtensor<float, 2>& W,
                                        const xt::xtensor<float, 2>& U);

/// softmax(Q K^T / sqrt(d)) V with a row-wise, max-subtracted softmax.
/// Q (n, d), K (m, d), V (m, d_v) -> (n, d_v). Two sgemm.
xt::xtensor<float, 2> self_attention_forward(const xt::xtensor<float, 2>& Q,
                                             const xt::xtensor<float, 2>& K,
                                             const xt::xtensor<float, 2>& V);

/// Self-attention where query i sees only keys [i - floor(r/2), i + ceil(r/2)] within
/// [0, n) (see multiply_adds). Q, K, V (n, d) -> (n, d). Plain loops, not BLAS: its
/// GFLOP/s is not comparable with the sgemm rows. r >= 2(n-1) equals self_attention_forward.
xt::xtensor<float, 2> restricted_attention_forward(const xt::xtensor<float, 2>& Q,
                                                   const xt::xtensor<float, 2>& K,
                                                   const xt::xtensor<float, 2>& V, std::uint64_t r);

/// Timing of one layer.
struct Measurement {
    double seconds;               // median of the timed runs
    double gflops;                // 2 * multiply_adds / seconds / 1e9 (0 if seconds is 0)
    std::uint64_t multiply_adds;  // multiply_adds(layer, sizes)
    std::string kernel;           // what ran: "im2col + sgemm", "sgemv per step",
                                  // "fused tiled attention (avx2)", "windowed loops"
};

/// Bytes the kernel of `layer` holds at once when measured (inputs, weights, intermediates
/// and output, float32): what measure_layer compares with max_bytes. Callers check it before
/// measuring anything. Throws std::overflow_error when it does not fit in 64 bits.
std::uint64_t measurement_bytes(Layer layer, const LayerSizes& sizes);

/// Runs the layer's kernel on deterministic pseudo-random data (inputs and weights drawn
/// once, outside the timing): one warm-up run, then `repeat` timed runs (steady_clock);
/// returns their median. The convolution row runs with dilation 1, the dilated row with
/// dilation k (its second layer); self_attention runs the fused kernel of tiled_attention.hpp
/// that attn attend runs (so its measured exponent is attn's), restricted self-attention
/// restricted_attention_forward; with_projections also runs the four d x d projections (sgemm).
/// Throws std::invalid_argument for repeat == 0, invalid sizes, a dimension beyond
/// 2^31-1 (BLAS int) or a working set (measurement_bytes) beyond max_bytes.
Measurement measure_layer(Layer layer, const LayerSizes& sizes, std::size_t repeat = 5,
                          std::uint64_t max_bytes = std::uint64_t{1} << 30);

}  // namespace attn
