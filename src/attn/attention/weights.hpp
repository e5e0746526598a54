// The weights of one attention layer held in T, what the random model attends with: every
// head's W_q, W_k, W_v (and biases) and W_o, each either drawn (draw_attention_weights, in
// float32, then cast) or a head's block of a given tensor, and the LayerWeights views that
// forward() reads.
//
// A given projection of H heads of width d is stored (d_in, H d), head h = columns
// [h d, (h + 1) d) (the book's W^T laid side by side), or (H, d_in, d); W_o (H d_v, d_out)
// is one block.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/embedding.hpp"
#include "runtime/reduced_float.hpp"

namespace attn {

/// A given tensor: row-major values and shape (the caller's memory).
struct GivenTensor {
    std::span<const double> values;
    std::vector<std::size_t> shape;
};

/// Given projections, nullopt where drawn: q, k, v of H heads, o whole.
struct GivenWeights {
    std::optional<GivenTensor> query, key, value, out;
};

/// d of a projection tensor of `heads` heads: (d_in, H d) -> d, (H, d_in, d) -> d; 0 when the
/// shape is neither (columns not divisible by H, a first axis other than H, not 2-d or 3-d).
std::size_t head_width(const std::vector<std::size_t>& shape, std::size_t heads);

/// Head h's (d_in, d) block of a tensor of `heads` heads, d = head_width(shape, heads) (> 0,
/// else std::invalid_argument).
template <class T>
xt::xtensor<T, 2> head_block(const GivenTensor& t, std::size_t h, std::size_t heads);

template <class T>
struct AttentionWeights {
    std::vector<xt::xtensor<T, 2>> query, key, value;  // [H] (d_in, d_q), (d_in, d_k), (d_in, d_v)
    std::optional<xt::xtensor<T, 2>> out;              // (H d_v, d_out)
    std::vector<std::optional<xt::xtensor<T, 1>>> b_query, b_key, b_value;  // [H] (d,) or none
    std::optional<xt::xtensor<T, 1>> b_out;                                 // (d_out,)

    /// Views on these matrices, stored (in, out); valid while *this lives unchanged.
    LayerWeights<T> views() const;
    /// Every matrix and bias rounded once to bfloat16 or float16 (model.to(dtype)).
    void round_to(runtime::Reduced format);
};

/// The given blocks, and the others from `drawn` (draw_attention_weights with the matching
/// WeightDraws: q, k, v drawn where not given; W_o drawn unless given, with_out false: none).
template <class T>
AttentionWeights<T> attention_weights(const DrawnWeights& drawn, const GivenWeights& given,
                                      std::size_t heads, bool with_out);

}  // namespace attn
