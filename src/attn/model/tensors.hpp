// A family's tensor table: every tensor its forward reads, named as Hugging Face's checkpoints
// name them, with the shape its config.json implies, written once in the family's file and
// handed to the forward as typed handles (Tensor, Linear, NormWeights); and the memory a forward
// over n tokens holds at once.
//
// Names are accepted with or without the prefix of the *ForCausalLM / *ForMaskedLM classes
// (TensorNaming::prefixes: `transformer.` gpt2 and bloom, `bert.`, `model.` llama), BERT's
// LayerNorm also as the legacy gamma/beta, T5's encoder embedding as shared.weight when
// encoder.embed_tokens.weight is absent. Tensors a family does not use are not listed.
// Shapes: nn.Linear (out, in); GPT-2's Conv1D (in, out); embeddings (rows, d).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/attention/layer.hpp"
#include "runtime/tensor_store.hpp"

namespace attn::model {

struct ModelConfig;

/// Where a forward reads its tensors: by name, checked against dtype and shape (io::Checkpoint
/// for safetensors).
using TensorSource = runtime::TensorStore;

struct TensorSpec {
    std::vector<std::string> names;    // accepted spellings, the usual one first
    std::vector<std::uint64_t> shape;  // what the config implies
    int layer = -1;                    // the block it belongs to; -1 outside the blocks
};

/// A tensor of a family's table: its index there (absent: an optional tensor the config does
/// not have, such as a bias).
struct Tensor {
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t index = kNone;
    explicit operator bool() const { return index != kNone; }
};

/// A weight matrix (rows, cols) stored as layout, with its bias when the config has one.
struct Linear {
    Tensor weight, bias;
    std::size_t rows = 0, cols = 0;
    WeightLayout layout = WeightLayout::out_in;
};

/// A norm's weight (d) and, for LayerNorm, its bias (d).
struct NormWeights {
    Tensor weight, bias;
};

/// How a family's checkpoints spell its names: the prefixes, "" first where the base model's
/// names are usual, and BERT's legacy LayerNorm gamma/beta.
struct TensorNaming {
    std::span<const std::string_view> prefixes;
    bool legacy_norm = false;
};

/// The table being declared (by a family's `declare`) and then read (by Weights).
class TensorTable {
  public:
    explicit TensorTable(const TensorNaming& naming);

    /// Tensors added from now on belong to block `layer` (-1: outside the blocks).
    void layer(int layer) { layer_ = layer; }
    /// `name` under every prefix (and its legacy spelling), of `shape`.
    Tensor add(const std::string& name, std::vector<std::uint64_t> shape);
    /// `names` as given (no prefixes), the first usual, the others read when it is absent.
    Tensor add_any(std::vector<std::string> names, std::vector<std::uint64_t> shape);
    /// nn.Linear: name.weight (out, in) and, when bias, name.bias (out).
    Linear linear(const std::string& name, std::uint64_t out, std::uint64_t in, bool bias);
    /// Conv1D: name.weight (in, out) and name.bias (out), y = x W + b.
    Linear conv1d(const std::string& name, std::uint64_t in, std::uint64_t out);
    /// LayerNorm: name.weight and name.bias (d); RMSNorm: name.weight (d) only.
    NormWeights layer_norm(const std::string& name, std::uint64_t d);
    NormWeights rms_norm(const std::string& name, std::uint64_t d);

    const std::vector<TensorSpec>& specs() const { return specs_; }
    const TensorSpec& spec(Tensor t) const { return specs_.at(t.index); }

  private:
    std::vector<std::string> prefixes_;
    bool legacy_norm_ = false;
    int layer_ = -1;
    std::vector<TensorSpec> specs_;
};

/// Every tensor the forward of c reads: the embeddings, the blocks 0 .. num_layers-1 in order,
/// the final norm, the LM head when it is not tied.
std::vector<TensorSpec> model_tensors(const ModelConfig& c);

/// The learned position table (gpt2 wpe, bert position_embeddings), the T5 bias table of
/// layer 0 (relative_attention_bias, buckets x heads); std::invalid_argument for a family
/// without one.
TensorSpec position_table(const ModelConfig& c);

/// What a forward keeps besides one block's working set (forward_bytes).
struct ForwardKeep {
    /// A layer's n x n arrays (scores, weights, or the summaries reduced from them): the direct
    /// path, 2 H n^2 values. false: the fused kernel, O(n hd) per key/value head.
    bool square = true;
    std::uint64_t hidden = 0;    // (n, d) matrices recorded (hidden: selected layers + 1)
    std::uint64_t contexts = 0;  // (n, hd) matrices recorded (context: layers x heads)
    std::uint64_t offsets = 0;   // (2n - 1) uint64 counts kept (heads: argmax offsets a head)
    /// The logit lens (lens.hpp) of `layers` selected layers (0: no lens), its top K, over
    /// every position (else one).
    struct Lens {
        std::uint64_t layers = 0, top = 0;
        bool every_position = true;
    } lens;
};

/// Bytes a forward over n tokens holds at once, with values of value_bytes (4 float32, 8
/// float64): one block's weights widened, the activations of one block, per token
///   4 d (residual, normed, normed again, the attention's sum) + (H + 2G) hd (q k v)
///   + 2 ((H + 2G) hd + (H + G) hd + H hd) (the layer's copies, rotated q and k, its concat:
///     the block's and the previous selected block's, which the run keeps)
///   + (gated ? 3 : 2) I (the MLP, over mlp_block_rows(n) rows at a time, and, when that is
///     fewer than n, 2 d for the block's copies of its input and output rows)
/// plus, with keep.square (or a compute dtype, which runs the direct path) the H x n x n
/// scores and weights, else the fused kernel's packed K and V (n hd each) and its workspace
/// per thread; then what is recorded (keep.hidden n d, keep.contexts n hd) and one row of
/// logits; keep.offsets 8 (2n - 1) bytes besides; with keep.lens (lens_bytes) the lens of
/// m = n (or 1) rows.
/// runtime::SizeOverflow when a product overflows 64 bits.
std::uint64_t forward_bytes(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes,
                            const ForwardKeep& keep = {});

/// Bytes the logit lens over n tokens holds besides the forward (FamilyForward::lens), m = n
/// or 1 rows, b = clamp(2^24 / m, 256, 4096) vocabulary rows a block:
///   value_bytes (3 m d (the rows picked, normed, and a family's transform) + b d (a block of
///   the unembedding widened) + m b (its logits))
///   + m (K + 1) 16 (the running top K of each row, (logit, id)) + 64 m (each row's sums)
///   + layers m (16 K + 8) (each selected layer's top K ids and probabilities, and its target)
std::uint64_t lens_bytes(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes,
                         const ForwardKeep::Lens& lens);

/// The largest n' <= n whose forward_bytes(c, n', value_bytes, keep) is at most `limit` (0
/// when not even one token fits): what a refusal offers instead.
std::uint64_t longest_forward(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes,
                              const ForwardKeep& keep, std::uint64_t limit);

}  // namespace attn::model
