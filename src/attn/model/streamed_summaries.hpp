// head_stats and offsets of one head reduced from its weights' row blocks (LayerRows, either
// attention path: the fused kernel's score rows on the tiled one), so no n x n array is held:
// kStreamRows query rows of masked scores s and weights w at a time, reduced as they are made,
// in double. Per query i (summaries.hpp's definitions, summed over the queries):
//   entropy_i  = -sum_j w_ij ln w_ij = sum_j w_ij (s* - s_ij) - ln(w*) sum_j w_ij
//                (w* = w_ij* the row's largest weight, s* its score: ln w_ij = s_ij - s* +
//                ln w*, so one logarithm a row and no cancellation; keys with w = 0 left out)
//   distance_i = sum_j w_ij |i - j|;  first w_i0;  previous w_i,i-1;  self w_ii
//   offsets[j - i + n - 1] += w_ij, then each divided by the n - |o| queries having it.
// Memory: two (kStreamRows, n) blocks in T, and per thread one (2n - 1) row of doubles.
#pragma once

#include <cstddef>
#include <vector>

#include "attn/attention/layer.hpp"
#include "attn/model/summaries.hpp"

namespace attn::model {

/// Query rows of one head made and reduced at a time.
inline constexpr std::size_t kStreamRows = 128;

/// One head's head_stats row (layer and head copied in) and offsets profile (2n - 1; empty
/// unless asked).
struct HeadSummary {
    HeadStats stats;
    std::vector<double> offsets;
};

/// The summaries of query head `head` over n tokens from `rows` (masked scores and weights of
/// kStreamRows rows at a time): head_stats always, the offsets when `offsets`.
template <class T>
HeadSummary stream_head_summary(const LayerRows<T>& rows, std::size_t layer, std::size_t head,
                                std::size_t n, bool offsets);

}  // namespace attn::model
