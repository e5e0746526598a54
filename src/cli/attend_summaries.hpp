// The summaries of attend's random model (--show head_stats, offsets, mean_weights, rollout):
// its one layer's heads reduced by model::AttentionSummaries, per sequence of the batch, as
// attend --model reduces each layer of a checkpoint.
#pragma once

#include "cli/attend.hpp"
#include "cli/show_table.hpp"

namespace attn::cli {

/// which: Show::head_stats (a table: [sequence,] layer, head, entropy, distance, first,
/// previous, self), offsets ([b,] H x 2n-1), mean_weights ([b,] n x n) or rollout ([b,] n x n).
template <class T>
io::MatrixStream attend_summary_stream(const SentenceArrays<T>& a, Show which);

/// The table with the four summaries' entries after its own (not in `all`).
template <class T>
ShowTable<Show, SentenceArrays<T>> with_summaries(ShowTable<Show, SentenceArrays<T>> table);

}  // namespace attn::cli
