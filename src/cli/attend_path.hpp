// attn attend --attention: which path computes the attention. The direct path holds every
// n x n matrix of every head (the notebook's numbers, and everything compared with PyTorch);
// the tiled path (attend_streamed) holds none.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <vector>

#include "cli/attend_inputs.hpp"
#include "cli/attend_options.hpp"

namespace attn::cli {

/// --attention auto takes the tiled path when a head's n_q x n_k matrices have more entries
/// than this (n > 2048 for self-attention), the direct path otherwise.
inline constexpr std::uint64_t kTiledAbove = std::uint64_t{1} << 22;

/// The option --attention direct|tiled|auto, in `group`.
void add_attention_option(CLI::App& group, AttentionPath& path);

/// Options only the direct path implements: --scheme rope (q and k rotated per head),
/// --bias (projection biases) and --permute (a second attention for the equivariance).
bool needs_direct(const AttendOptions& opt);

/// Whether the run takes the tiled path (auto: never with needs_direct(opt)). UsageError for
/// --attention tiled with an option only the direct path implements.
bool use_tiled(const AttendOptions& opt, const std::vector<Sequence>& seqs);

}  // namespace attn::cli
