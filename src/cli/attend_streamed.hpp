// attn attend's tiled path: the attention of long inputs without any n x n matrix held.
// Per (sequence, head) Q, K, V (n x d) are held; the context comes from the fused kernel
// (attn/attention/tiled.hpp), computed in row blocks while a progress bar counts them; the
// scores and weights are io::MatrixStream producers that compute each block of rows as it is
// written, so `--show weights -o W.npy` writes an n x n file with memory O(block x n).
// Results agree with the direct path (attn::multi_head_attention) to rounding.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/reference.hpp"
#include "attn/attention/tiled.hpp"
#include "cli/attend_inputs.hpp"
#include "cli/attend_parameters.hpp"
#include "cli/attend_path.hpp"
#include "cli/attend_positions.hpp"
#include "cli/attend_show.hpp"
#include "io/matrix_stream.hpp"
#include "io/progress.hpp"

namespace attn::cli {

/// The memory check of a run and how its arrays are streamed. Direct: the n x n scores,
/// scaled scores, weights and mask of every head and sequence are counted against
/// --max-memory (UsageError naming it and the size). Tiled: only the working set (the inputs
/// cast to T, every head's Q, K, V, the context, one packed K, and the streamed row blocks of
/// scores or weights: at most 2^22 values and 256 rows each, made one block ahead).
template <class T>
io::DriveOptions plan_attention(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                                const Dims& dims, const std::vector<Show>& show, bool tiled);

/// How one head scores beyond Q K^T: an additive bias (position schemes) and a scale.
template <class T>
struct HeadScoring {
    AttentionBias<T> bias;
    std::optional<double> scale;  // nullopt: 1 / sqrt(d_k)
};

template <class T>
class StreamedAttention {
  public:
    /// xs[k][b]: sequence k, batch element b (n, d_in); masks[s] for the s-th (k, b) in that
    /// order; scoring[h] for head h (empty: none). Computes every head's Q, K, V and, when
    /// `context`, the context of every sequence (heads concatenated, then W_o).
    /// progress: counts the rows of the context and of streamed matrices.
    StreamedAttention(const std::vector<std::vector<xt::xtensor<T, 2>>>& xs,
                      const Parameters<T>& par, std::vector<MaskOptions> masks, bool context,
                      std::vector<HeadScoring<T>> scoring, bool progress);
    ~StreamedAttention();

    /// results()[k][b]: heads[h].queries/keys/values and output (the context when asked
    /// for); the heads' attention matrices are left empty.
    const std::vector<std::vector<MultiHeadResult<T>>>& results() const { return results_; }

    /// For an n x n array of sequence k (e.info.column_axis "Key": scores, weights): replaces
    /// its producer by one computing each row block with TiledAttention::rows. query: the one
    /// query row shown (--query), else every row. Other arrays are left as they are.
    void stream_rows(std::size_t k, Show item, std::optional<std::size_t> query,
                     io::MatrixStream& e) const;

  private:
    struct Source;
    std::vector<std::vector<MultiHeadResult<T>>> results_;
    std::vector<std::size_t> first_;  // first_[k]: the index in masks_ of (k, 0)
    std::vector<MaskOptions> masks_;
    std::vector<HeadScoring<T>> scoring_;
    std::shared_ptr<io::Progress> progress_;
};

/// The tiled path of one run: per sequence k, runs[k] holds its masks and position scheme
/// (its x and results stay empty), x[k] the inputs as given (kept only when embeddings are
/// shown), and attention the streamed heads, with each head's position bias and scale.
template <class T>
struct TiledRun {
    std::vector<SequenceRun<T>> runs;
    std::vector<std::vector<xt::xtensor<T, 2>>> x;
    std::optional<StreamedAttention<T>> attention;
};
template <class T>
void attend_tiled(TiledRun<T>& out, const std::vector<Sequence>& seqs,
                  const std::vector<std::vector<MaskOptions>>& masks, const AttendOptions& opt,
                  const Dims& dims, const SchemeInputs& in, const Parameters<T>& par,
                  const std::vector<Show>& show, bool progress);

}  // namespace attn::cli
