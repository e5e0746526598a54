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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/reference.hpp"
#include "attn/attention/tiled.hpp"
#include "attn/positions/rope.hpp"
#include "attn/positions/t5.hpp"
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

/// What a scheme reads or checks once per run: rope's parameters (d = d_k, even), T5's
/// buckets and its bias table (buckets, H), read after its size and shape are checked.
/// UsageError naming the option (--dq for an odd d_k, --bias-table, --buckets, ...).
struct SchemeInputs {
    std::optional<positions::RopeParameters> rope;
    positions::T5Buckets buckets;
    xt::xtensor<double, 2> t5_table;  // (buckets, H)
};
SchemeInputs read_scheme_inputs(const AttendOptions& opt, const Dims& dims);

/// One scheme for sequences of n positions. What the fused kernel needs per head:
///   Q, K, V from input(X) (and rotate(Q), rotate(K) when rotates()),
///   TiledOptions::scale = scale(), and bias(h) as its AttentionBias.
template <class T>
class PositionScheme {
  public:
    /// bias_matrices: hold alibi's and t5's n x n bias per head for positions() (the tiled
    /// path, which never holds an n x n matrix, asks for them only with --show positions).
    PositionScheme(const AttendOptions& opt, const Dims& dims, const SchemeInputs& in,
                   std::size_t n, bool bias_matrices = true);

    AttendScheme scheme() const { return scheme_; }
    /// The projections' input (n, d_in): X + P for sinusoidal, else X.
    xt::xtensor<T, 2> input(const xt::xtensor<T, 2>& x) const;
    bool rotates() const { return rope_ != nullptr; }
    /// Rope: rows i = 0..n-1 of m (n, d_k) rotated as positions start + i; else m.
    xt::xtensor<T, 2> rotate(const xt::xtensor<T, 2>& m) const;
    /// nullopt: scores / sqrt(d_k); 1.0 with --no-scale (TiledOptions::scale's meaning).
    std::optional<double> scale() const { return scale_; }
    /// Head h's bias of the scaled scores: alibi's slope m_h, or T5's table by bucket.
    AttentionBias<T> bias(std::size_t h) const;
    /// multi_head_attention's options per head: par's biases, rotation, scale and bias.
    std::vector<HeadOptions<T>> head_options(const Parameters<T>& par) const;
    /// --show positions: P (n, d_in), rope's angles (n, d_k / 2), or one (n, n) bias per head;
    /// empty for none.
    const std::vector<xt::xtensor<T, 2>>& positions() const { return positions_; }
    /// "sinusoidal P (base 10000, interleaved)", ... for titles; "" for none.
    const std::string& description() const { return description_; }

  private:
    AttendScheme scheme_;
    std::size_t n_, heads_;
    std::int64_t start_;
    std::optional<double> scale_;
    std::vector<double> slopes_;                      // alibi (H)
    std::shared_ptr<const std::vector<T>> relative_;  // t5: H x (2n - 1), by j - i + n - 1
    std::shared_ptr<const positions::Rope> rope_;     // rope
    positions::RopeLayout rope_layout_ = positions::RopeLayout::split;
    xt::xtensor<T, 2> p_;  // sinusoidal (n, d_in)
    std::vector<xt::xtensor<T, 2>> positions_;
    std::string description_;
};

/// Everything computed for one sequence (a sentence, or the --input rows), per batch element.
template <class T>
struct SequenceRun {
    std::vector<xt::xtensor<T, 2>> x;  // X as attended (permuted with --permute), (n, d_in)
    std::vector<MaskOptions> masks;
    std::vector<MultiHeadResult<T>> results;
    std::vector<xt::xtensor<T, 2>> equivariance;  // context(X[p]) - context(X)[p], (n, d_out)
    std::shared_ptr<const PositionScheme<T>> scheme;
};

/// Attention over s (already permuted by p when p is not empty) with one mask per batch
/// element; with p, also over `original` (s before the permutation) for the equivariance.
template <class T>
SequenceRun<T> attend_sequence(const Sequence& s, const Sequence& original,
                               const std::vector<std::size_t>& p, std::vector<MaskOptions> masks,
                               const AttendOptions& opt, const Dims& dims, const SchemeInputs& in,
                               const Parameters<T>& par);

}  // namespace attn::cli
