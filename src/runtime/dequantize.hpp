// ggml's tensor types widened to float32 bit for bit as ggml's to_float does
// (dequantize_row_* of ggml-quants.c, ggml_fp16_to_fp32_row, ggml_bf16_to_fp32_row), a range
// of whole blocks at a time into a caller's buffer.
//
// A block holds B consecutive elements of a row (B = dtype_block: 32, or 256 for the K types)
// as small integers q and fp16 scales (ggml-common.h); each element is rebuilt as
//   Q8_0 q d          q in [-128, 127]        Q4_0 (q - 8) d       Q5_0 (q - 16) d
//   Q4_1 q d + m      q in [0, 15]            Q5_1 q d + m         q in [0, 31]
//   Q4_K (d sc) q - (dmin mn)   8 sub-blocks of 32, 6-bit sc and mn, q in [0, 15]
//   Q5_K as Q4_K with q in [0, 31]            Q6_K (d sc) (q - 32), 16 sub-blocks of 16
// each product and sum rounded to float once, in ggml's order (attn_core is built without
// FMA contraction, as ggml's portable to_float is).
#pragma once

#include <cstddef>
#include <span>

#include "runtime/tensor_view.hpp"

namespace attn::runtime {

/// Widens out.size() elements of type t (a multiple of dtype_block(t)) from `blocks`, which
/// holds exactly out.size() / dtype_block(t) * dtype_size(t) bytes (any alignment);
/// std::invalid_argument naming the type when the sizes disagree. F16 is widened as ggml's
/// portable conversion does: exactly, a signalling NaN made quiet (TensorView's F16 widening
/// keeps it signalling, as it always has; the first arithmetic on either gives the same NaN).
void dequantize(DType t, std::span<const std::byte> blocks, std::span<float> out);

}  // namespace attn::runtime
