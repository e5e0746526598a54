// A Hugging Face config.json as the seven families attn runs read it (transformers'
// configuration_<family>.py: key names, aliases and defaults), into one struct. Parsed from
// text or from a JSON object the caller read; attn opens no files.
//
//   family   sizes (key: default)                                    positions
//   gpt2     vocab_size 50257, n_embd 768, n_layer 12, n_head 12,    learned wpe (n_positions
//            n_inner null = 4 n_embd, layer_norm_epsilon 1e-5,       rows, 1024)
//            activation_function gelu_new
//   bert     vocab_size 30522, hidden_size 768, num_hidden_layers    learned (max_position_
//            12, num_attention_heads 12, intermediate_size 3072,     embeddings 512) + token
//            hidden_act gelu, layer_norm_eps 1e-12, type_vocab 2     type 0
//   llama    vocab 32000, hidden 4096, intermediate 11008, layers    RoPE rope_theta 1e4,
//            32, heads 32, num_key_value_heads = heads, head_dim =   rope_scaling, split
//            hidden / heads, rms_norm_eps 1e-6, silu, attention_bias layout
//   mistral  as llama: intermediate 14336, kv heads 8, sliding_window 4096, max 131072
//   qwen2    as llama: vocab 151936, intermediate 22016, q/k/v biases, window only with
//            use_sliding_window
//   bloom    vocab 250880, hidden_size (n_embed) 64, n_layer 2,     ALiBi, n_head slopes
//            n_head 8, layer_norm_epsilon 1e-5, 4 hidden MLP, tanh GELU
//   t5       vocab 32128, d_model 512, d_kv 64, d_ff 2048,           relative buckets 32, max
//            num_layers 6, num_heads 8, layer_norm_epsilon 1e-6,     distance 128, layer 0's
//            feed_forward_proj relu ("gated-gelu": gelu_new, gated)  table
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "attn/positions/rope.hpp"
#include "attn/positions/t5.hpp"
#include "runtime/reduced_float.hpp"

namespace attn::model {

enum class Family { gpt2, bert, llama, mistral, qwen2, bloom, t5 };
enum class Positions { learned, rope, alibi, t5 };
enum class Norm { layer_norm, rms_norm };
/// gelu: erf form; gelu_tanh: the tanh approximation (gelu_new, gelu_pytorch_tanh, BLOOM's).
enum class Activation { relu, gelu, gelu_tanh, silu };

/// The model_type names, in the order the errors list them: "gpt2, bert, ..., t5".
std::string_view family_name(Family f);
std::string family_names();

/// A config.json that attn cannot use (cli: exit 2). what(): "<key>: <what is wrong>" (or
/// "model_type: ..." listing the seven); `key` is the config key at fault.
struct ConfigError : std::invalid_argument {
    ConfigError(std::string key, const std::string& detail);
    std::string key;
};

struct ModelConfig {
    Family family = Family::gpt2;
    std::size_t vocab_size = 0;
    std::size_t hidden_size = 0;        // d, the residual stream's width
    std::size_t num_layers = 0;         // of the encoder stack for t5
    std::size_t num_heads = 0;          // query heads H
    std::size_t num_kv_heads = 0;       // K/V heads (grouped when < H; H otherwise)
    std::size_t head_dim = 0;           // may differ from d / H (Mistral's head_dim, T5's d_kv)
    std::size_t intermediate_size = 0;  // MLP width
    std::size_t max_positions = 0;      // learned table rows (gpt2, bert); 0: no bound
    std::size_t type_vocab_size = 0;    // bert's token types

    Norm norm = Norm::layer_norm;
    double norm_eps = 1e-5;
    Activation activation = Activation::gelu_tanh;
    bool gated_mlp = false;    // SwiGLU (llama family), T5's gated-*
    bool post_norm = false;    // bert: LayerNorm after each residual add
    bool causal = true;        // bert and the t5 encoder attend both ways
    bool scale_scores = true;  // t5: q.k unscaled
    bool qkv_bias = false;     // gpt2, bert, bloom, qwen2 (llama's attention_bias)
    bool o_bias = false;       // gpt2, bert, bloom (llama's attention_bias)
    bool mlp_bias = false;     // gpt2, bert, bloom (llama's mlp_bias)
    bool tie_word_embeddings = true;
    std::string feed_forward_proj;  // t5, as written

    Positions positions = Positions::learned;
    positions::RopeParameters rope;             // rope families: d = head_dim, base = rope_theta
    std::optional<std::size_t> sliding_window;  // mistral; qwen2 with use_sliding_window
    positions::T5Buckets t5;                    // t5 (bidirectional)

    /// Not from config.json: bfloat16 or float16 runs the forward as model.to(dtype) does in
    /// PyTorch (weights rounded to it, every op's result rounded once; family.hpp); nullopt:
    /// every op in the compute type (float or double).
    std::optional<runtime::Reduced> compute_dtype;

    /// The lines a reader needs to know which positions a model has: "gpt2: learned absolute
    /// positions, 1024 rows".
    std::string describe() const;
};

/// config.json's text; ConfigError for JSON that is not an object, an unknown model_type, or
/// a key of the wrong type or out of range (sizes 1 .. 2^31, heads dividing the width when no
/// head_dim is given, K/V heads dividing the query heads, eps finite and > 0, the RoPE
/// parameters as positions::validate checks them, a rope_scaling type attn lacks).
ModelConfig parse_config(std::string_view json_text);
ModelConfig parse_config(const nlohmann::json& config);

}  // namespace attn::model
