// The tensors each family's forward reads, named as Hugging Face's checkpoints name them, with
// the shapes its config.json implies; and the memory a forward over n tokens holds at once.
//
// Names are accepted with or without the prefix of the *ForCausalLM / *ForMaskedLM classes
// (`transformer.` gpt2 and bloom, `bert.`, `model.` llama/mistral/qwen2), BERT's LayerNorm also
// as the legacy gamma/beta, T5's encoder embedding as shared.weight when
// encoder.embed_tokens.weight is absent. Tensors a family does not use are not listed.
// Shapes: nn.Linear (out, in); GPT-2's Conv1D (in, out); embeddings (rows, d).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/model/config.hpp"

namespace attn::model {

struct TensorSpec {
    std::vector<std::string> names;    // accepted spellings, the usual one first
    std::vector<std::uint64_t> shape;  // what the config implies
    int layer = -1;                    // the block it belongs to; -1 outside the blocks
};

/// Every tensor the forward of c reads: the embeddings, the blocks 0 .. num_layers-1 in order,
/// the final norm, the LM head when it is not tied.
std::vector<TensorSpec> model_tensors(const ModelConfig& c);

/// The learned position table (gpt2 wpe, bert position_embeddings), the T5 bias table of
/// layer 0 (relative_attention_bias, buckets x heads); std::invalid_argument for a family
/// without one.
TensorSpec position_table(const ModelConfig& c);

/// Bytes a forward over n tokens holds at once, with values of value_bytes (4 float32, 8
/// float64): one block's weights widened, the activations of one block (residual stream, q k v,
/// the H x n x n scores and weights, the MLP), one row of logits. runtime::SizeOverflow when a
/// product overflows 64 bits.
std::uint64_t forward_bytes(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes);

}  // namespace attn::model
