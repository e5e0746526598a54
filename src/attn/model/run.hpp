// A model's forward over one sequence of ids as `attend --model` reads it: the selected layers
// (increasing) and query heads, blocks after the last selected layer not computed (unless the
// next token is asked for). The n x n arrays of one layer at a time are what layer(k) returns;
// asking for an earlier layer again runs the forward again from the embedding, so no
// layers x heads x n x n array is ever held. What is small is kept from the first pass:
//   hidden   (layers + 1) x (n, d): before the first selected block, then after each
//   context  layers x heads x (n, hd): weights v of each selected query head
//   next     (V): softmax of the LM head's logits after the last position
//   lens     layers x (rows, K): the logit lens's top K of each selected layer (lens.hpp)
//   value weights: layers x n x n and their rollout (value_vectors.hpp), as the summaries
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "attn/model/family.hpp"
#include "attn/model/nonfinite.hpp"
#include "attn/model/summaries.hpp"

namespace attn::model {

/// What the lens records: the top K at every position or at `position`, and (next) each
/// position's probability of the token after it.
struct LensChoice {
    bool top = false, next = false;
    std::size_t k = 5;
    std::optional<std::size_t> position;
};

/// Which arrays of the value vectors the run makes (value_vectors.hpp).
struct ValueChoice {
    bool norms = false, weights = false, rollout = false;
};

template <class T>
class ModelRun {
  public:
    /// layers: increasing block numbers (non-empty); heads: query heads (non-empty), each
    /// < num_heads; keep: the n x n arrays layer() must hold; next: whether finish() computes
    /// the next-token probabilities (causal LMs only).
    ModelRun(const ModelConfig& c, const TensorSource& source, std::vector<std::int64_t> ids,
             std::vector<std::size_t> layers, std::vector<std::size_t> heads, Keep keep, bool next);

    std::size_t n() const { return ids_.size(); }
    const std::vector<std::size_t>& layers() const { return layers_; }
    const std::vector<std::size_t>& heads() const { return heads_; }
    const FamilyForward<T>& family() const { return *f_; }
    FamilyForward<T>& family() { return *f_; }

    /// The attention of the k-th selected layer (k < layers().size()).
    const LayerResult<T>& layer(std::size_t k);
    /// Reduces the selected heads' weights into summaries during the first pass (head_stats,
    /// offsets, mean_weights, rollout); call before layer() or finish().
    void summarise(SummaryChoice choice);
    /// Whether the first pass records hidden() and context() (both by default); a caller that
    /// shows neither saves their (layers + 1) n d + layers heads n hd values. Call before
    /// layer() or finish().
    void record(bool hidden, bool context);
    /// After finish(): the summaries chosen (null when none).
    const AttentionSummaries* summaries() const { return summaries_.get(); }
    /// Records the lens of each selected layer during the first pass (family().check_lens()
    /// first: std::invalid_argument when the model has none). Call before layer() or finish().
    void lens(LensChoice choice);
    /// After finish(): lens_rows()[k] for the k-th selected layer, its rows the positions
    /// lens_positions() gives (targets: the next ids).
    const std::vector<LensRows>& lens_rows() const { return lens_; }
    const std::vector<std::size_t>& lens_positions() const { return lens_positions_; }
    const std::optional<LensChoice>& lens_choice() const { return lens_choice_; }
    /// Records the value vectors of each selected layer (and, during the first pass, value
    /// weights and their rollout as mean_weights and rollout of value_summaries()). Call before
    /// layer() or finish().
    void values(ValueChoice choice);
    /// The value vectors of the layer layer() last returned.
    const ValueVectors& layer_values() const { return last_values_; }
    /// After finish(): value_weights as mean_weights (one "head" per layer), value_rollout as
    /// rollout (null unless chosen).
    const AttentionSummaries* value_summaries() const { return value_summaries_.get(); }

    /// Runs whatever of the first pass is left (the remaining blocks, the LM head).
    void finish();

    /// After finish(): hidden[k] (n, d), k = 0 .. layers().size() (empty unless recorded).
    const std::vector<Matrix<T>>& hidden() const { return hidden_; }
    /// After finish(): context[k][h] (n, hd) for the k-th layer and h-th selected head (empty
    /// unless recorded).
    const std::vector<std::vector<Matrix<T>>>& context() const { return context_; }
    /// After finish(), with next: probabilities over the vocabulary (V).
    const std::vector<double>& next() const { return next_; }
    /// Where the blocks computed so far first held a NaN or an infinity (nonfinite.hpp);
    /// nullopt when they hold none.
    const std::optional<NonFinite>& nonfinite() const { return nonfinite_; }

  private:
    void restart();
    void step();  // computes block block_, advancing selected_ when it is selected
    // Records the first NaN or inf of out (rows, cols: heads of hd columns when hd > 0) as
    // made by `layer` (nullopt: the embedding or the LM head).
    void check_finite(const T* out, std::size_t rows, std::size_t cols, std::size_t hd,
                      std::optional<std::size_t> layer);

    std::unique_ptr<FamilyForward<T>> f_;
    const TensorSource& source_;
    std::optional<NonFinite> nonfinite_;
    std::vector<std::int64_t> ids_;
    std::vector<std::size_t> layers_, heads_;
    Keep keep_;
    bool want_next_;
    bool record_hidden_ = true, record_context_ = true;
    bool recorded_ = false;     // hidden_ and context_ complete
    std::size_t block_ = 0;     // next block to compute
    std::size_t selected_ = 0;  // selected layers computed in this pass
    Matrix<T> h_;
    LayerResult<T> last_;
    std::vector<Matrix<T>> hidden_;
    std::vector<std::vector<Matrix<T>>> context_;
    std::vector<double> next_;
    std::optional<LensChoice> lens_choice_;
    std::vector<std::size_t> lens_positions_;
    std::vector<LensRows> lens_;
    std::optional<ValueChoice> value_choice_;
    ValueVectors last_values_;
    std::unique_ptr<AttentionSummaries> value_summaries_;
    std::optional<SummaryChoice> choice_;
    std::unique_ptr<AttentionSummaries> summaries_;
};

/// The k likeliest ids of p (probabilities by id), likeliest first, ties by the smaller id; k is
/// clipped to p.size().
std::vector<std::size_t> top_ids(const std::vector<double>& p, std::size_t k);

}  // namespace attn::model
