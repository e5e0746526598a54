// The memory of one attention run, counted before anything is allocated: every allocation of
// both paths (inputs, weights, position data, projections, n x n matrices held, tiles and
// streamed row blocks, outputs), so a limit checked against it is a promise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention/layer.hpp"
#include "attn/positions/scheme.hpp"

namespace attn {

/// The sizes of one layer as forward() sees them (see layer.hpp for the symbols).
struct LayerShape {
    std::size_t n = 0, d_in = 0, heads = 1, kv_heads = 1, d_k = 0, d_v = 0, d_out = 0;
    bool given_qkv = false;  // q/k/v given: no projections of x
    bool permuted = false;   // x[p] copied
    bool output = false;     // W_o
    bool weights = false;    // W_q, W_k, W_v (and W_o) held in T for the run (weights_bytes)
    bool biases = false;     // each with its bias
    positions::Scheme scheme = positions::Scheme::none;
};

/// The weights a run holds once for all its sequences, as AttentionWeights<T> holds them in T
/// of `element` bytes (weights.hpp: a W_k and a W_v per query head): W_q, W_k (H, d_in, d_k),
/// W_v (H, d_in, d_v), W_o (H d_v, d_out) with `output`, and with `biases` b_q, b_k (H, d_k),
/// b_v (H, d_v), b_o (d_out); 0 without `weights`.
std::uint64_t weights_bytes(const LayerShape& shape, std::size_t element);

/// The peak of making a run's weights before it starts (attention_weights<T> of
/// draw_attention_weights' draws, weights.hpp): the caller's `x_values` and the weight files'
/// `given_values` held as doubles, every weight no file gives drawn in float32 first, and
/// every weight in T of `element` bytes.
std::uint64_t making_weights_bytes(const LayerShape& shape, std::uint64_t x_values,
                                   std::uint64_t given_values, std::size_t element);

/// Bytes per part; each part is a product of shapes, checked for overflow (SizeOverflow).
struct MemoryPlan {
    struct Part {
        std::string what;     // "the attention matrices (4 x H x n x n)", ...
        std::uint64_t bytes;  // 0 parts are left out
    };
    std::vector<Part> parts;
    std::uint64_t total() const;
    /// The largest part's description: what a refusal names.
    const Part& largest() const;
};

/// What forward(shape, options) allocates in T of `element` bytes, plus `streamed_rows` rows
/// of n entries per n x n array a caller streams from LayerResult::rows at once (and `held`
/// for what the caller keeps besides: its inputs as read, its weights).
MemoryPlan memory_plan(const LayerShape& shape, const LayerOptions& options, std::size_t element,
                       std::size_t streamed_rows = 0, std::uint64_t held = 0);

/// forward()'s path when the caller does not choose: tiled when a head's n x n matrices have
/// more entries than kTiledAbove (n > 2048), direct otherwise.
inline constexpr std::uint64_t kTiledAbove = std::uint64_t{1} << 22;
inline AttentionPath automatic_path(std::size_t n) {
    return std::uint64_t{n} * n > kTiledAbove ? AttentionPath::tiled : AttentionPath::direct;
}

/// One sequence of a run: n rows, `batch` elements (0: one, without a batch axis).
struct SequenceShape {
    std::size_t n = 0, batch = 0;
};

/// A run over several sequences of one layer's widths (`widths`, its n unused): its weights
/// (weights_bytes, once), every batch element's layer held (memory_plan with `held_per_row` x n
/// bytes the caller holds besides),
/// one more unpermuted at a time with widths.permuted (the equivariance's twin), and the row
/// blocks streamed to a writer: block_rows rows (at most the widest n) of `streamed_width` entries
/// (the widest n when an n-wide array is shown, else the widest narrow row: d_in, H d_v, ...), in
/// T, as doubles and one block made ahead.
struct RunPlan {
    std::uint64_t bytes = 0;
    std::uint64_t weights = 0;     // of bytes, weights_bytes
    std::size_t block_rows = 256;  // tiled: at most 2^22 values and 256 rows a block
    /// What a refusal names, after the first sequence: "tiled attention over [b x ]n rows",
    /// else "[b x ]H x n x n attention scores"; "" without sequences.
    std::string what;
};
RunPlan run_plan(const LayerShape& widths, const std::vector<SequenceShape>& sequences,
                 const LayerOptions& options, std::size_t element, std::uint64_t held_per_row,
                 std::size_t streamed_width);

/// run_plan for sequences attended as attend_sequence does: X held per row as given (double),
/// as attended (`element`) and, with widths.permuted, unpermuted (double); rows streamed n wide
/// when `n_wide` (an n x n array or a summary written), else the widest narrow row
/// max(d_in, H max(d_k, d_v), d_out).
RunPlan sequence_run_plan(const LayerShape& widths, const std::vector<SequenceShape>& sequences,
                          const LayerOptions& options, std::size_t element, bool n_wide);

}  // namespace attn
