// Summaries of attention across layers and heads, reduced while the weights stream: the caller
// hands over one (layer, head) block of weights at a time (n x n, row i = query i, column
// j = key j, rows summing to 1 or all zero where every key is masked) and never holds
// layers x heads x n x n.
//
//   head_stats, per (layer, head), each a mean over the queries i:
//     entropy  = mean_i  -sum_j w_ij ln w_ij            (nats; 0 ln 0 = 0)
//     distance = mean_i   sum_j w_ij |i - j|
//     first    = mean_i   w_i0
//     previous = mean_{i >= 1} w_i,i-1                 (0 when n = 1: no query has one)
//     self     = mean_i   w_ii
//   offsets (2n - 1 per head): offsets[o + n - 1] = mean over the n - |o| queries i with
//     0 <= i + o < n of w_i,i+o, for o = j - i from -(n - 1) to n - 1 (offsets no query has
//     are 0).
//   mean_weights (n x n per layer): the mean of the layer's heads, (1/H) sum_h w^h.
//   rollout (n x n; Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"):
//     A_l = rownorm(0.5 * mean_weights_l + 0.5 * I)   (each row divided by its sum)
//     R   = A_last ... A_second A_first                 (the identity before any layer)
//
// Memory: the layer being reduced (one n x n sum of its heads) and the rollout (n x n), plus the
// outputs asked for: head_stats rows, offsets rows (2n - 1 each), mean_weights (n x n a layer);
// while a layer closes, four n x n of the rollout's matrix product (A, R's copy, BLAS's result, A
// R).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "attn/attention/layer.hpp"
#include "attn/attention/memory_plan.hpp"

namespace attn::model {

/// One row of head_stats.
struct HeadStats {
    std::size_t layer = 0;
    std::size_t head = 0;
    double entropy = 0;
    double distance = 0;
    double first = 0;
    double previous = 0;
    double self = 0;

    /// The statistics' names (head_stats' columns after layer and head) and their values.
    static constexpr std::array<const char*, 5> kNames{"entropy", "distance", "first", "previous",
                                                       "self"};
    std::array<double, 5> values() const { return {entropy, distance, first, previous, self}; }
};

/// The statistics of one head's weights w (n x n, row-major; w.size() == n * n, n >= 1, else
/// std::invalid_argument). layer and head are copied into the row.
HeadStats head_stats(std::size_t layer, std::size_t head, std::span<const float> w, std::size_t n);
HeadStats head_stats(std::size_t layer, std::size_t head, std::span<const double> w, std::size_t n);

/// The positional profile of one head: out[o + n - 1], o = -(n - 1) .. n - 1 (out.size() ==
/// 2n - 1, w.size() == n * n, else std::invalid_argument).
void offset_profile(std::span<const float> w, std::size_t n, std::span<double> out);
void offset_profile(std::span<const double> w, std::size_t n, std::span<double> out);

/// Which summaries an AttentionSummaries keeps.
struct SummaryChoice {
    bool head_stats = false;
    bool offsets = false;
    bool mean_weights = false;
    bool rollout = false;
};

/// Reduces a model's attention layer by layer:
///   for each selected layer: add_head(layer, head, w) for each selected head, then end_layer().
/// Layers arrive in increasing order (the rollout's product runs from the first); a layer needs
/// at least one head. Misuse (a layer not increasing, end_layer without heads, add_head with a
/// layer other than the open one, a block of the wrong size): std::invalid_argument.
class AttentionSummaries {
  public:
    /// n tokens (n >= 1, else std::invalid_argument).
    AttentionSummaries(std::size_t n, SummaryChoice choice);

    std::size_t n() const { return n_; }

    void add_head(std::size_t layer, std::size_t head, std::span<const float> w);
    void add_head(std::size_t layer, std::size_t head, std::span<const double> w);
    /// A head's head_stats row and offsets (2n - 1) reduced elsewhere (streamed_summaries.hpp)
    /// instead of its weights: only without mean_weights and rollout, whose sums need them.
    void add_reduced(std::size_t layer, std::size_t head, const HeadStats& stats,
                     std::span<const double> offsets);
    /// Closes the open layer: its mean over heads joins mean_weights and the rollout.
    void end_layer();

    /// Layers closed so far.
    std::size_t layers() const { return layers_.size(); }
    /// Their numbers, in order.
    const std::vector<std::size_t>& layer_numbers() const { return layers_; }

    /// One row per head added, in the order added (empty unless chosen).
    const std::vector<HeadStats>& head_stats() const { return stats_; }
    /// (heads added) x (2n - 1), row-major, in the order added (empty unless chosen).
    const std::vector<double>& offsets() const { return offsets_; }
    /// layers() x n x n, row-major (empty unless chosen).
    const std::vector<double>& mean_weights() const { return means_; }
    /// n x n, row-major: the rollout of the layers closed so far (empty unless chosen).
    const std::vector<double>& rollout() const { return rollout_; }

  private:
    template <class T>
    void add(std::size_t layer, std::size_t head, std::span<const T> w);
    void open(std::size_t layer);  // checks the layer's order, opens it when not open

    std::size_t n_;
    SummaryChoice choice_;
    std::vector<std::size_t> layers_;
    bool open_ = false;             // a layer has heads and no end_layer yet
    std::size_t open_layer_ = 0;    // its number
    std::size_t open_heads_ = 0;    // heads added to it
    std::vector<double> head_sum_;  // n x n: sum of the open layer's heads
    std::vector<HeadStats> stats_;
    std::vector<double> offsets_;
    std::vector<double> means_;
    std::vector<double> rollout_;
};

/// The bytes an AttentionSummaries of n tokens holds once `layers` layers of `heads` heads are
/// added with `choice` (the memory above), the four n x n of the rollout's product included.
/// runtime::SizeOverflow when the count does not fit 64 bits.
std::uint64_t summaries_bytes(std::size_t n, std::size_t heads, std::size_t layers,
                              SummaryChoice choice);

/// What summarising single-layer runs over `sequences` adds to their run_plan: every batch
/// element's summaries of `heads` heads (all four), and one head's n x n weights of `element`
/// bytes at a time. runtime::SizeOverflow as summaries_bytes.
std::uint64_t run_summaries_bytes(const std::vector<SequenceShape>& sequences, std::size_t heads,
                                  std::size_t element);

/// One layer as forward() returns it, numbered `layer`: each of its H heads' n x n weights
/// (read a head at a time through LayerResult::rows, so either path gives them) added to
/// `summaries`, then the layer closed.
template <class T>
void add_layer(AttentionSummaries& summaries, std::size_t layer, const LayerResult<T>& result);

/// One AttentionSummaries of n tokens per result (sequences through one layer: a batch), each
/// holding that result as its layer 0 (add_layer), with `choice`.
template <class T>
std::vector<AttentionSummaries> summarise_each(const std::vector<LayerResult<T>>& results,
                                               std::size_t n, SummaryChoice choice);

}  // namespace attn::model
