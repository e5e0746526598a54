// The model families attn runs, each described once in its own file (gpt2.cpp, bert.cpp,
// llama.cpp for llama, mistral and qwen2, bloom.cpp, t5.cpp) and listed once in the registry
// (families.cpp): what the rest of attn asks of a family, by its config.json model_type.
//
// A new family: one file in attn/model/ defining `extern const Family <name>_family` (its config
// keys, its tensor table, its forward) and one line of the registry.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/model/tensors.hpp"

namespace attn::model {

class ConfigKeys;
struct ModelConfig;
template <class T>
class FamilyForward;

template <class T>
using MakeForward = std::unique_ptr<FamilyForward<T>> (*)(const ModelConfig&, const TensorSource&,
                                                          std::size_t n);

/// How llama.cpp's converter stored a tensor against the Hugging Face one: as it is;
/// transposed (GPT-2's Conv1D (in, out) stored (out, in)); rows permuted within each head for
/// interleaved RoPE (`llama` q and k: HF row h hd + j hd/2 + i is GGUF row h hd + 2i + j);
/// plus one (Gemma's norms, w + 1).
enum class GgufLayout { as_is, transposed, rope_interleaved, plus_one };

/// One tensor: llama.cpp's name and the Hugging Face one, without ".weight"/".bias" (both are
/// mapped), "{}" standing for the block's index.
struct GgufTensor {
    std::string_view gguf, hf;
    GgufLayout layout = GgufLayout::as_is;
};

/// How a GGUF file names the family (design.md "GGUF files"): general.architecture, the
/// `<arch>.KEY` metadata onto config.json keys, and llama.cpp's tensor names against the Hugging
/// Face names of the table. Empty: GGUF files of this family are not read.
struct GgufNames {
    std::string_view architecture;
    std::span<const std::pair<std::string_view, std::string_view>> keys;  // KEY -> config key
    std::span<const GgufTensor> tensors;
};

struct Family {
    std::string_view model_type;  // config.json's, as transformers spells it
    std::string_view layers_key;  // the config key of the depth, named when it is too deep
    /// The family's config.json keys onto c (sizes, norms, activation, positions; c.family set).
    void (*read_config)(const ConfigKeys& keys, ModelConfig& c);
    TensorNaming naming;
    /// Declares every tensor the forward reads into t (the table of model_tensors()).
    void (*tensors)(const ModelConfig& c, TensorTable& t);
    /// Declares the tables and returns the learned position table's handle (encode --model P,
    /// T5's bias table); nullptr: none.
    Tensor (*position_table)(const ModelConfig& c, TensorTable& t);
    MakeForward<float> forward_float;
    MakeForward<double> forward_double;
    bool lm_head = false;  // a next-token head (causal LMs)
    /// A SentencePiece tokenizer without tokenizer_config.json's add_bos_token/add_eos_token
    /// adds <s> before (Llama's) or </s> after (T5's).
    bool sentencepiece_bos = true, sentencepiece_eos = false;
    GgufNames gguf;
};

/// Every family, in the order messages list them.
std::span<const Family* const> families();
/// The family of a config.json model_type, or nullptr.
const Family* find_family(std::string_view model_type);
/// "gpt2, bert, ..., t5": the model_types of families(), those with an LM head when lm_only.
std::string family_names(bool lm_only = false);

}  // namespace attn::model
