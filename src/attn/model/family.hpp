// A model family's forward, split where attn looks inside it: the embedding (hidden[0]), one
// block at a time (its attention layer's result kept for the caller), and the LM head's
// logits after the last position. One file per family (gpt2.cpp, bert.cpp, llama.cpp for
// llama, mistral and qwen2, bloom.cpp, t5.cpp) implements it as a list of named steps over
// the handles of its tensor table (tensors.hpp), and describes itself (families.hpp).
//
// Shapes: n tokens, d = hidden_size, H query heads, G key/value heads, hd = head_dim,
// V = vocab_size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <xtensor/xview.hpp>

#include "attn/attention/layer.hpp"
#include "attn/model/config.hpp"
#include "attn/model/families.hpp"
#include "attn/model/lens.hpp"
#include "attn/model/ops.hpp"
#include "attn/model/value_vectors.hpp"
#include "attn/model/weights.hpp"
#include "attn/positions/scheme.hpp"

namespace attn::model {

/// Which of a layer's n x n arrays the caller reads (nothing else is kept). With neither,
/// attention runs on the fused kernel (tiled.hpp), which holds no n x n array and skips the
/// key tiles a causal mask hides.
struct Keep {
    bool scores = false;   // scaled scores plus the position bias, before masks
    bool weights = false;  // softmax of the masked scores
};

/// A block's attention heads as views (n, hd) on projections computed once for all heads:
/// q H views, k and v G views (grouped K/V: query head h reads k[h / (H / G)]).
template <class T>
struct QkvHeads {
    std::vector<MatrixRef<T>> q, k, v;
};

/// One layer's attention as its family configures it: what may change from layer to layer
/// (Gemma 2's alternating sliding windows and soft-cap, Gemma 3's RoPE base per layer) and what
/// a family fixes (NeoX's partial rotary: RoPE on the scheme's first rope.d dimensions of each
/// head). The score itself is score.hpp's, the same on every attention path.
template <class T>
struct LayerAttention {
    bool causal = true;                         // key j hidden from query i when j > i
    std::optional<std::size_t> sliding_window;  // keys i - W < j <= i kept
    std::optional<double> softcap;              // s = cap tanh(s / cap), before the masks
    std::optional<double> scale;                // nullopt: 1/sqrt(head_dim); 1: unscaled (T5)
    /// The positions inside attention: RoPE (base, rotary dimension), ALiBi or T5's bias;
    /// the scheme "none" for learned tables. Valid while the forward lives.
    const positions::PositionScheme<T>* scheme = nullptr;
};

/// A causal LM's head: its final norm, the table whose rows unembed (V, d: the LM head, or the
/// token embedding where tied) and a bias (V) where it has one.
struct LmHead {
    LmHead(NormWeights n, Tensor t, Tensor b = {}) : norm(n), table(t), bias(b) {}
    NormWeights norm;
    Tensor table, bias;
};

template <class T>
class FamilyForward {
  public:
    FamilyForward(const ModelConfig& c, const TensorSource& source, std::size_t n);
    virtual ~FamilyForward() = default;

    const ModelConfig& config() const { return c_; }
    std::size_t n() const { return n_; }
    /// The model's scheme inside attention: layer 0's (none for the learned tables of gpt2 and
    /// bert), or the global layers' when sliding layers have their own (Gemma 3).
    const positions::PositionScheme<T>& scheme() const {
        return c_.rope_local ? scheme_ : *layer_options(0).scheme;
    }
    /// Layer `layer`'s attention, by default from the config: causal, the sliding window on
    /// the layers c.sliding_layers names (all when empty), its query scale (T5: unscaled),
    /// soft-cap, and scheme_ (scheme_local_ on sliding layers when c.rope_local).
    virtual LayerAttention<T> layer_options(std::size_t layer) const;

    /// The family's tensor table (declared by the derived class's constructor).
    const TensorTable& table() const { return table_; }

    /// hidden[0] (n, d): what the first block receives.
    virtual Matrix<T> embed(std::span<const std::int64_t> ids) = 0;
    /// Block `layer`: h (n, d) becomes the block's output; returns its attention layer. The
    /// block's widened tensors and mapped pages are handed back when it returns.
    LayerResult<T> block(std::size_t layer, Matrix<T>& h, Keep keep) {
        LayerResult<T> r = steps(layer, h, keep);
        w_.end_layer(layer);
        return r;
    }
    /// Logits (V) of the last row of h (the last block's output): the final norm, then the LM
    /// head or the tied embedding (lm_head over head()).
    std::vector<T> next_logits(const Matrix<T>& h);
    /// The LM head's tensors; std::logic_error for families without one (bert, t5), which do
    /// not override it.
    virtual LmHead head();
    /// std::invalid_argument saying why lens() cannot be read (no LM head; BERT: a
    /// cls.predictions tensor missing, named), else nothing.
    virtual void check_lens();
    /// The logit lens of h's rows `rows` (h: a block's output (n, d)): lens_input, then the
    /// unembedding in blocks of vocabulary rows, the config's final soft-cap, reduced into the
    /// top `top` and each row's target probability (lens.hpp; targets[r] -1: none).
    LensRows lens(const Matrix<T>& h, std::span<const std::size_t> rows, std::size_t top,
                  std::vector<std::int64_t> targets);
    /// Whether attend() computes the value vectors (value_vectors.hpp) of the blocks that pass it
    /// their output projection; values() holds the last block's.
    void record_values(bool on) { record_values_ = on; }
    const ValueVectors& values() const { return values_; }
    /// --show positions of a learned table: rows 0..n-1 (n, d); empty for the other schemes
    /// (scheme().positions_rows gives theirs).
    virtual Matrix<T> learned_positions() { return {}; }

  protected:
    // The ops of ops.hpp as the families call them (each family's `using` picks these): with
    // the config's compute_dtype every result is rounded once to it, as PyTorch's ops on
    // tensors of that dtype compute in float32 and round: layer_norm, an activation (GELU,
    // SiLU: one kernel each), linear (addmm), a sum and gate's act(a) and product each once;
    // rms_norm as Llama's and T5's norms, fl(w fl(x / rms(x))). Without one, ops.hpp's as is.
    Matrix<T> layer_norm(const Matrix<T>& x, const T* w, const T* b, double eps) const;
    Matrix<T> rms_norm(const Matrix<T>& x, const T* w, double eps) const;
    /// The same with the norm's tensors and the config's eps.
    Matrix<T> layer_norm(const Matrix<T>& x, const NormWeights& n);
    Matrix<T> rms_norm(const Matrix<T>& x, const NormWeights& n);
    /// The config's norm (layer_norm, rms_norm or Gemma's, which is computed in T and rounded
    /// once) with the norm's tensors.
    Matrix<T> norm(const Matrix<T>& x, const NormWeights& n);
    /// The config's norm over each of the `count` heads of y (n, count hd) in place, its weight
    /// (hd) shared by the heads: Qwen3's and Gemma 3's q_norm and k_norm.
    void head_norm(Matrix<T>& y, std::size_t count, const NormWeights& n);
    Matrix<T> linear(const Matrix<T>& x, const Projection<T>& p) const;
    void activate(Matrix<T>& x, Activation act) const;
    void gate(Matrix<T>& a, const Matrix<T>& b, Activation act) const;
    void add(Matrix<T>& a, const Matrix<T>& b) const;
    /// y = y + x W + b: ops.hpp's add_linear, or with the compute_dtype linear then add.
    void add_linear(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& p) const;
    /// ops.hpp's feed_forward and gated_feed_forward (added to y) over the ops above.
    void feed_forward(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& up, Activation act,
                      const Projection<T>& down) const;
    void gated_feed_forward(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& gate_w,
                            const Projection<T>& up, Activation act,
                            const Projection<T>& down) const;
    /// m rounded to the compute_dtype, if any.
    void round(Matrix<T>& m) const;

    /// The family's block: its named steps (see block()).
    virtual LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) = 0;
    /// The attention layer's options for layer `layer` (layer_options) and what the caller
    /// keeps.
    LayerOptions options(std::size_t layer, Keep keep) const;
    /// Views (n, hd) of y's columns [first + i step, first + i step + hd) for i < count: the
    /// heads of a projection y (n, *) computed for all of them at once.
    std::vector<MatrixRef<T>> heads(const Matrix<T>& y, std::size_t count, std::size_t first,
                                    std::size_t step) const;
    /// The attention of the heads (layer_options(layer): masks, scale, soft-cap and
    /// positions); the result's output is the concat of the heads' context (n, H hd). With
    /// record_values, the value vectors of heads.v through `output` (H hd -> d) into values().
    LayerResult<T> attend(std::size_t layer, const QkvHeads<T>& heads, Keep keep,
                          std::optional<Projection<T>> output = std::nullopt);
    /// What the lens unembeds, from rows of the residual (m, d): the final norm of head() by
    /// default (BERT: its MLM transform).
    virtual Matrix<T> lens_input(const Matrix<T>& rows);
    /// attend, then the residual
    /// connection h = h + concat (n, H hd) W_o + b_o (n, d); the result's output is the concat
    /// (W_o applied here, not inside forward).
    LayerResult<T> attention(std::size_t layer, const QkvHeads<T>& heads,
                             const Projection<T>& output, Keep keep, Matrix<T>& h);
    /// The weight matrix with its bias when the config has one, as a view.
    Projection<T> projection(const Linear& l);
    /// Rows of table (a 2-D tensor) at ids, widened: the embedding lookup (n, d).
    Matrix<T> gather(Tensor table, std::span<const std::int64_t> ids);
    /// Rows 0..n-1 of a learned position table (n, d); std::invalid_argument naming the
    /// config's key when the model has fewer than n positions.
    Matrix<T> position_rows(Tensor table, std::string_view key);
    /// logits[v] = norm(h[n-1]) . E[v] for every row v of table (V, d), streamed in blocks
    /// of rows: the last position's next token (the config's norm; no bias for RMSNorm), then
    /// the config's final soft-cap cap tanh(logits / cap).
    std::vector<T> lm_head(const Matrix<T>& h, const NormWeights& norm, Tensor table);

    ModelConfig c_;
    std::size_t n_;
    TensorTable table_;  // declared by the family before the first read
    Weights<T> w_;
    positions::PositionScheme<T> scheme_;
    positions::PositionScheme<T> scheme_local_;  // c.rope_local's, for sliding layers
    bool record_values_ = false;
    ValueVectors values_;
};

/// The forward of c's family over n tokens (n >= 1), reading tensors from source (which must
/// outlive it).
template <class T>
std::unique_ptr<FamilyForward<T>> make_forward(const ModelConfig& c, const TensorSource& source,
                                               std::size_t n);

/// A family's Family::forward_float / forward_double: its class F<T> over (c, source, n).
template <template <class> class F, class T>
std::unique_ptr<FamilyForward<T>> construct(const ModelConfig& c, const TensorSource& source,
                                            std::size_t n) {
    return std::make_unique<F<T>>(c, source, n);
}

}  // namespace attn::model
