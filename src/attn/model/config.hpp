// A Hugging Face config.json as the families attn runs read it (transformers'
// configuration_<family>.py: key names, aliases and defaults), into one struct: model_type
// picks the family (families.hpp), whose file reads its keys (ConfigKeys, config_keys.hpp).
// Parsed from text or from a JSON object the caller read; attn opens no files. Each family's keys
// and their defaults are listed at the top of its file.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attn/positions/rope.hpp"
#include "attn/positions/scheme_kind.hpp"
#include "attn/positions/t5.hpp"
#include "runtime/reduced_float.hpp"

namespace attn::model {

/// rms_norm: x / rms(x) * w (Llama, T5), under a compute dtype fl(w fl(x / rms(x)));
/// rms_norm_rounded_once: the same product rounded once, fl(w x / rms(x)) (OLMo 2);
/// gemma_rms_norm: x / rms(x) * (1 + w), rounded once (Gemma 2 and 3).
enum class Norm { layer_norm, rms_norm, rms_norm_rounded_once, gemma_rms_norm };
/// gelu: erf form; gelu_tanh: the tanh approximation (gelu_new, gelu_pytorch_tanh, BLOOM's).
enum class Activation { relu, gelu, gelu_tanh, silu };

/// A config.json that attn cannot use (cli: exit 2). what(): "<key>: <what is wrong>" (or
/// "model_type: ..." listing the families); `key` is the config key at fault.
struct ConfigError : std::invalid_argument {
    ConfigError(std::string key, const std::string& detail);
    std::string key;
};

struct Family;

struct ModelConfig {
    const Family* family = nullptr;  // its descriptor (families.hpp), by model_type
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
    bool parallel_residual = false;  // gpt_neox: h + attn(ln1 h) + mlp(ln2 h)
    std::string feed_forward_proj;   // t5, as written

    /// The positions inside attention: rope, alibi, t5 (relative buckets); none for the learned
    /// absolute rows that gpt2 and bert add to the embedding.
    positions::Scheme positions = positions::Scheme::none;
    positions::RopeParameters rope;             // rope families: d = head_dim, base = rope_theta
    std::optional<std::size_t> sliding_window;  // mistral, phi3; qwen2 with use_sliding_window

    // Attention that changes from layer to layer (Gemma 2 and 3), read by
    // FamilyForward::layer_options:
    std::vector<bool> sliding_layers;    // the layers with the window; empty: all of them
    std::optional<double> query_scale;   // q.k times this (Gemma: query_pre_attn_scalar^-0.5)
    std::optional<double> attn_softcap;  // Gemma 2: s = cap tanh(s / cap), before the masks
    std::optional<positions::RopeParameters> rope_local;  // Gemma 3's sliding layers
    std::optional<double> final_softcap;                  // Gemma: logits = cap tanh(logits / cap)
    positions::T5Buckets t5;                              // t5 (bidirectional)

    /// Not from config.json: bfloat16 or float16 runs the forward as model.to(dtype) does in
    /// PyTorch (weights rounded to it, every op's result rounded once; family.hpp); nullopt:
    /// every op in the compute type (float or double).
    std::optional<runtime::Reduced> compute_dtype;

    /// The lines a reader needs to know which positions a model has: "gpt2: learned absolute
    /// positions, 1024 rows".
    std::string describe() const;
    /// config.json's model_type (its family's name in the registry).
    std::string_view model_type() const;
};

/// config.json's text; ConfigError for JSON that is not an object, an unknown model_type, or
/// a key of the wrong type or out of range (sizes 1 .. 2^31, heads dividing the width when no
/// head_dim is given, K/V heads dividing the query heads, eps finite and > 0, the RoPE
/// parameters as positions::validate checks them, a rope_scaling type attn lacks).
ModelConfig parse_config(std::string_view json_text);
ModelConfig parse_config(const nlohmann::json& config);

}  // namespace attn::model
