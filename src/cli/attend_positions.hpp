// Positions inside attention (attn attend --scheme, --permute): what each scheme changes in
// one head, per sequence of n positions, and the permutation experiment.
//   none        the notebook
//   sinusoidal  the projections take X + P (P: n x d_in, positions start.., --layout)
//   rope        Q and K of every head rotated by position after the projections (d_k even)
//   alibi       -m_h |i - j| added to head h's scaled scores, before the masks
//   t5          table[bucket(j - i), h] added to head h's scaled scores, before the masks
// Scores are omega / sqrt(d_k) unless --no-scale (omega * 1).
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "attn/positions/scheme.hpp"
#include "cli/attend_inputs.hpp"
#include "cli/attend_options.hpp"
#include "cli/attend_parameters.hpp"

namespace attn::cli {

/// The option group "Positions" (--scheme, --base, --start, rope's and T5's options,
/// --bias-table, --no-scale, --permute) and --bias in `parameters`.
void add_position_options(CLI::App& sub, CLI::App& parameters, AttendOptions& opt);

/// --permute for a sequence of n rows: "reverse" or a comma list, a permutation of 0..n-1
/// (new position i holds old row p[i], numpy's X[p]). UsageError naming --permute and `where`
/// for a repeat, an index out of range or a wrong length.
std::vector<std::size_t> parse_permutation(const std::string& text, std::size_t n,
                                           const std::string& where);
/// s with its rows (every batch element alike), tokens and ids reordered: X[p].
Sequence permuted(const Sequence& s, const std::vector<std::size_t>& p);

/// The library's scheme for this run (attn/positions/scheme.hpp): rope's parameters (d = d_k,
/// even), T5's buckets and its bias table (buckets, H), read after its size and shape are
/// checked. UsageError naming the option (--dq for an odd d_k, --bias-table, --buckets, ...).
positions::SchemeConfig scheme_config(const AttendOptions& opt, const Dims& dims);

}  // namespace attn::cli
