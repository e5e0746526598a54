// The weights of one attention layer held in T, what the random model attends with: every
// head's W_q, W_k, W_v (and biases) and W_o, each either drawn (draw_attention_weights, in
// float32, then cast) or a head's block of a given tensor, and the LayerWeights views that
// forward() reads.
//
// A given projection of H heads of width d is stored (d_in, H d), head h = columns
// [h d, (h + 1) d) (the book's W^T laid side by side), or (H, d_in, d); W_o (H d_v, d_out)
// is one block. A given tensor implies the width a caller leaves open (given_widths) and is
// checked against the layer's widths (check_given_weights, a typed WeightShapeError).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/embedding.hpp"
#include "runtime/reduced_float.hpp"

namespace attn {

/// A given tensor: row-major values and shape (the caller's memory), and its name in
/// messages (a file's; empty: W_q, W_k, W_v or W_o).
struct GivenTensor {
    std::span<const double> values;
    std::vector<std::size_t> shape;
    std::string name = {};
};

/// Given projections, nullopt where drawn: q, k, v of H heads, o whole.
struct GivenWeights {
    std::optional<GivenTensor> query, key, value, out;
};

/// d of a projection tensor of `heads` heads: (d_in, H d) -> d, (H, d_in, d) -> d; 0 when the
/// shape is neither (columns not divisible by H, a first axis other than H, not 2-d or 3-d).
std::size_t head_width(const std::vector<std::size_t>& shape, std::size_t heads);

/// The widths given tensors imply, 0 where none does: d_q of W_q, else of W_k (the scores
/// need d_k = d_q), and d_v of W_v (head_width).
struct GivenWidths {
    std::size_t d_q = 0, d_v = 0;
};
GivenWidths given_widths(const GivenWeights& given, std::size_t heads);

/// A given tensor that does not fit the layer: W_q, W_k or W_v neither (d_in, H d) nor
/// (H, d_in, d) for its width d, W_o not (H d_v, d_out) with d_out >= 1, or a value that is
/// not finite (runtime::check_finite). what() is the whole sentence, beginning with the
/// tensor's name:
///   wq.npy has shape (4, 2); 2 heads with d_in = 3 and d_q = 2 need (3, 4) or (2, 3, 2)
///   wo.npy has shape (7, 5); W_o needs 4 rows (heads x d_v) and any number of columns
///   wk.npy: element (0, 2, 0) is inf; attention needs finite numbers
struct WeightShapeError : std::invalid_argument {
    enum class Weight { query, key, value, out };
    WeightShapeError(Weight weight, const std::string& what);
    Weight weight;
};

/// Checks the given tensors of `heads` heads of d_in -> d_q, d_k, d_v in the order W_q, W_k,
/// W_v, W_o (WeightShapeError for the first that does not fit, by its shape, then by its
/// values). Returns W_o's d_out, nullopt without W_o.
std::optional<std::size_t> check_given_weights(const GivenWeights& given, std::size_t heads,
                                               std::size_t d_in, std::size_t d_q, std::size_t d_k,
                                               std::size_t d_v);

/// What draw_attention_weights draws for `heads` heads of d_in -> d_q, d_k, d_v, and W_o
/// (H d_v, d_out) when d_out is set: every weight `given` lacks, each followed by its bias with
/// `bias`.
WeightDraws weight_draws(const GivenWeights& given, std::size_t heads, std::size_t d_in,
                         std::size_t d_q, std::size_t d_k, std::size_t d_v,
                         std::optional<std::size_t> d_out, bool bias);

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
