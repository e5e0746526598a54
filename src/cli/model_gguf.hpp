// A GGUF file's model as the families read a Hugging Face one: general.architecture picks the
// family whose descriptor names it (families.hpp GgufNames), its `<arch>.KEY` metadata becomes
// config.json's keys (float32 values by their shortest decimal, as the converter read them),
// and llama.cpp's tensor names map onto the table's (design.md "GGUF files and the ollama store").
//   vocab_size            token_embd's rows;  tie_word_embeddings  no `output` tensor;
//   partial_rotary_factor rope.dimension_count / head_dim when below 1;
//   rope_scaling          rope.scaling.type linear or yarn (factor, original_context_length);
//   rope_scaling          llama3 from rope_freqs when it holds Llama 3.1's divisors;
// other per-dimension frequency factors (rope_factors_long: longrope) are refused naming the
// tensor, as is an architecture no family reads.
#pragma once

#include <string>
#include <vector>

#include "io/gguf.hpp"
#include "io/gguf_store.hpp"

namespace attn::cli {

struct GgufModel {
    std::string config_json;
    std::vector<io::GgufTensorName> names;
};

/// io::GgufError (exit 2) naming the key or tensor at fault; model::ConfigError for values the
/// family refuses.
GgufModel gguf_model(const io::GgufFile& file);

}  // namespace attn::cli
