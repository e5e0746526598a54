// attn attend --attention: which path computes the attention (attn/attention/layer.hpp). The
// direct path holds every n x n matrix of every head (the notebook's numbers, and everything
// compared with PyTorch); the tiled path holds none. Both take every scheme, mask and option.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <vector>

#include "cli/attend_inputs.hpp"
#include "cli/attend_options.hpp"
#include "cli/attend_parameters.hpp"
#include "cli/attend_show.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

/// --attention auto takes the tiled path when a head's n_q x n_k matrices have more entries
/// than this (n > 2048 for self-attention), the direct path otherwise.
inline constexpr std::uint64_t kTiledAbove = std::uint64_t{1} << 22;

/// The option --attention direct|tiled|auto, in `group`.
void add_attention_option(CLI::App& group, AttentionPath& path);

/// Whether the run takes the tiled path.
bool use_tiled(const AttendOptions& opt, const std::vector<Sequence>& seqs);

/// The memory of the whole run, counted by attn::memory_plan before anything is allocated:
/// every sequence's layer (and its unpermuted twin with --permute) on the path taken, plus the
/// row blocks streamed to the writer (at most 2^22 values and 256 rows each, made one block
/// ahead). UsageError naming --max-memory above the limit. Returns how arrays are streamed.
template <class T>
io::DriveOptions plan_attention(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                                const Dims& dims, const std::vector<Show>& show, bool tiled);

}  // namespace attn::cli
