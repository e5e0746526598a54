// One multi-head attention layer, forward only, in llm.c's manner: library structs in, a
// result struct out whose every field states its shape. Both paths sit behind it and take
// every position scheme, mask, bias and permutation:
//   direct  holds every head's n x n scores, scaled and masked scores and weights (the
//           notebook's numbers; attn::scaled_dot_product_attention, reference.hpp)
//   tiled   never holds an n x n matrix: the context comes from the fused online-softmax
//           kernel (tiled.hpp) on q and k already rotated (RoPE), and the n x n arrays are
//           produced a row block at a time by LayerResult::rows.
//
// Shapes: n rows (positions), d_in input width, H query heads, G key/value heads (G divides
// H; query head h reads key/value head h / (H / G): grouped-query attention, Llama's
// num_key_value_heads), d_k query/key width, d_v value width, d_out output width.
//
//   x'        = x[p] (+ P for sinusoidal)                           (n, d_in)
//   q_h       = x' W_q,h + b_q,h   k_g = x' W_k,g + b_k,g   v_g = x' W_v,g + b_v,g
//               (identity weights: H = G = 1, q = k = v = x')
//   q~_h, k~_g = rope(q_h), rope(k_g) (rows at positions start..; the first rope.d columns
//               only when the rotary dimension is partial) or q_h, k_g
//   omega_h   = q~_h k~_g^T                                         (n, n)
//   scaled_h  = scale omega_h + bias_h,  scale = 1/sqrt(d_k) unless given (1: T5), then
//               cap tanh(scaled_h / cap) with a soft-cap (score.hpp, the same on every path)
//   masked_h  = scaled_h with hidden keys = -inf (or the mask's fill)
//   w_h       = softmax(masked_h) by rows;  context_h = w_h v_g      (n, d_v)
//   output    = [context_0 | ... | context_{H-1}] W_o + b_o          (n, d_out)
//
// Weights are views, never copied: a float32 tensor mapped from a checkpoint is used where it
// lies (MatrixRef: pointer, shape, row stride), stored (in, out) as Conv1D and attn's draws,
// or (out, in) as nn.Linear. A head's block of a fused matrix is a view with the fused row
// stride (GPT-2's c_attn columns, BLOOM's query_key_value rows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/reference.hpp"
#include "attn/attention/tiled.hpp"
#include "attn/positions/scheme.hpp"
#include "runtime/reduced_float.hpp"

namespace attn {

/// How a weight matrix is stored: (d_in, d_out) and y = x W, or (d_out, d_in) and y = x W^T.
enum class WeightLayout { in_out, out_in };

/// A projection d_in -> d_out: a view on the caller's memory, which must outlive forward().
template <class T>
struct Projection {
    MatrixRef<T> weight;  // (d_in, d_out) for in_out, (d_out, d_in) for out_in
    WeightLayout layout = WeightLayout::in_out;
    const T* bias = nullptr;  // (d_out,) contiguous, or null: none
    std::size_t in() const { return layout == WeightLayout::in_out ? weight.rows : weight.cols; }
    std::size_t out() const { return layout == WeightLayout::in_out ? weight.cols : weight.rows; }
};

/// One layer's projections. query: H heads (d_in -> d_k); key: G heads (d_in -> d_k); value:
/// G heads (d_in -> d_v); G divides H. output: (H d_v -> d_out), or none (output = concat).
template <class T>
struct LayerWeights {
    std::vector<Projection<T>> query;
    std::vector<Projection<T>> key;
    std::vector<Projection<T>> value;
    std::optional<Projection<T>> output;
    /// No projections: q = k = v = x' (one head, d_k = d_v = d_in; query, key and value
    /// unused), attention over the rows themselves, softmax(x' x'^T / sqrt(d_in)) x'.
    bool identity = false;
};

/// What the layer attends over: the rows x, projected by LayerWeights, or (x empty, rows 0)
/// the projections themselves, given per head (LayerWeights' query/key/value then unused).
template <class T>
struct LayerInput {
    MatrixRef<T> x;                        // (n, d_in)
    std::vector<MatrixRef<T>> q;           // H x (n, d_k)   when x is empty
    std::vector<MatrixRef<T>> k;           // G x (n, d_k)
    std::vector<MatrixRef<T>> v;           // G x (n, d_v)
    std::vector<std::size_t> permutation;  // empty, or p of 0..n-1: row i attends as x[p[i]]
                                           // (numpy's X[p]); positions stay 0..n-1
};

/// Which path computes the layer (see the top of this file).
enum class AttentionPath { direct, tiled };

/// Masks, scale and path. mask: causal, valid length, sliding window (MaskOptions,
/// score.hpp), fill. scale: nullopt -> 1/sqrt(d_k); 1.0 -> unscaled (T5). softcap: Gemma 2's
/// cap tanh(s / cap) of the scaled scores, before the masks.
struct LayerOptions {
    MaskOptions mask;
    std::optional<double> scale;
    std::optional<double> softcap;
    AttentionPath path = AttentionPath::direct;
    /// bfloat16 or float16: the direct path as PyTorch computes it in that dtype, every op's
    /// result rounded to it (attention/reduced.hpp; x and the weights must hold its values);
    /// the tiled path refuses it. nullopt: every op in T.
    std::optional<runtime::Reduced> dtype;
    /// direct path only: which n x n arrays to keep (all four by default). A family that
    /// streams weights keeps only those; the tiled path keeps none and serves rows().
    bool keep_scores = true, keep_scaled = true, keep_masked = true, keep_weights = true;
    /// rope: keep queries and keys before rotation; false: they are rotated in place, so
    /// rotated_queries/rotated_keys hold them and queries/keys are (0, 0) each (saves
    /// n (H + G) d_k elements).
    bool keep_unrotated = true;
    /// Called with a count of context rows done (per head), e.g. for a progress bar; may be
    /// empty. The tiled path calls it after each query tile, from the thread that computed
    /// it, so several threads may call it at once.
    std::function<void(std::size_t rows)> progress;
};

/// Row blocks of one layer's n x n arrays, on either path: ScoreRows (tiled.hpp) names where
/// omega, scaled, masked and weights rows go (null pointers are not computed), rows of n
/// entries each. Thread-safe; valid while the LayerResult that made it and its inputs live.
template <class T>
class LayerRows {
  public:
    virtual ~LayerRows() = default;
    /// Rows [row0, row0 + rows) of query head h's arrays.
    virtual void rows(std::size_t head, std::size_t row0, std::size_t rows,
                      const ScoreRows<T>& out) const = 0;
};

/// Everything one layer computes. Per-head vectors: [H] indexed by query head, [G] by
/// key/value head. On the tiled path the n x n vectors are empty: use rows().
template <class T>
struct LayerResult {
    xt::xtensor<T, 2> input;                         // x' = x[p] (+ P), (n, d_in); empty
                                                     // when q/k/v were given or x' is x
    std::vector<xt::xtensor<T, 2>> queries;          // [H] (n, d_k): x' W_q + b_q, before rope
    std::vector<xt::xtensor<T, 2>> keys;             // [G] (n, d_k): x' W_k + b_k, before rope
    std::vector<xt::xtensor<T, 2>> rotated_queries;  // [H] (n, d_k): rope(queries); empty
                                                     // without rope
    std::vector<xt::xtensor<T, 2>> rotated_keys;     // [G] (n, d_k): rope(keys); ditto
    std::vector<xt::xtensor<T, 2>> values;           // [G] (n, d_v): x' W_v + b_v
    std::vector<xt::xtensor<T, 2>> scores;           // [H] (n, n): omega = q~ k~^T (direct)
    std::vector<xt::xtensor<T, 2>> scaled_scores;    // [H] (n, n): scale omega + bias
    std::vector<xt::xtensor<T, 2>> masked_scores;    // [H] (n, n): hidden keys -inf or fill
    std::vector<xt::xtensor<T, 2>> weights;          // [H] (n, n): softmax(masked) by rows
    std::vector<xt::xtensor<T, 2>> context;          // [H] (n, d_v): weights v (direct; the
                                                     // tiled path writes them into concat)
    xt::xtensor<T, 2> concat;                        // (n, H d_v): contexts, head 0 first;
                                                     // moved into output without W_o
    xt::xtensor<T, 2> output;                        // (n, d_out): concat W_o + b_o, or concat
    std::shared_ptr<const LayerRows<T>> rows;        // row blocks of the [H] (n, n) arrays
};

/// The layer's forward. Throws std::invalid_argument naming the mismatch (widths, G not
/// dividing H, a permutation that is not one, sinusoidal with given q/k/v, an odd d_k with
/// rope). Allocates what memory_plan() counts (memory_plan.hpp) and nothing else of size.
template <class T>
LayerResult<T> forward(const LayerInput<T>& input, const LayerWeights<T>& weights,
                       const positions::PositionScheme<T>& scheme, const LayerOptions& options);

}  // namespace attn
