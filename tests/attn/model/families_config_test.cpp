// The config.json keys of the families added after the first seven, read as transformers'
// configuration classes read them: defaults, what changes from layer to layer, and the keys
// named when a value is wrong.
#include <doctest/doctest.h>

#include <string>

#include "attn/model/config.hpp"
#include "support/text.hpp"

using attn::model::ConfigError;
using attn::model::Norm;
using attn::model::parse_config;
using attn::positions::RopeScaling;

namespace {

// Shaped as the published config.json files of EleutherAI/pythia-160m, google/gemma-2-2b,
// google/gemma-3-1b-it, Qwen/Qwen3-0.6B, microsoft/Phi-3-mini-4k-instruct and
// allenai/OLMo-2-0425-1B (the keys attn reads).
const char* kPythia = R"({"model_type": "gpt_neox", "hidden_act": "gelu", "hidden_size": 768,
  "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 2048,
  "num_attention_heads": 12, "num_hidden_layers": 12, "rotary_emb_base": 10000,
  "rotary_pct": 0.25, "tie_word_embeddings": false, "use_parallel_residual": true,
  "vocab_size": 50304})";
const char* kGemma2 = R"({"model_type": "gemma2", "attention_bias": false,
  "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "head_dim": 256,
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2304, "intermediate_size": 9216,
  "max_position_embeddings": 8192, "num_attention_heads": 8, "num_hidden_layers": 26,
  "num_key_value_heads": 4, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
  "rope_theta": 10000.0, "sliding_window": 4096, "vocab_size": 256000})";
const char* kGemma3 = R"({"model_type": "gemma3_text", "attn_logit_softcapping": null,
  "final_logit_softcapping": null, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 1152, "intermediate_size": 6912, "max_position_embeddings": 32768,
  "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1,
  "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
  "rope_scaling": null, "rope_theta": 1000000, "sliding_window": 512,
  "sliding_window_pattern": 6, "vocab_size": 262144})";
const char* kQwen3 = R"({"model_type": "qwen3", "head_dim": 128, "hidden_act": "silu",
  "hidden_size": 1024, "intermediate_size": 3072, "max_position_embeddings": 40960,
  "max_window_layers": 28, "num_attention_heads": 16, "num_hidden_layers": 28,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000,
  "sliding_window": null, "tie_word_embeddings": true, "use_sliding_window": false,
  "vocab_size": 151936})";
const char* kPhi3 = R"({"model_type": "phi3", "hidden_act": "silu", "hidden_size": 3072,
  "intermediate_size": 8192, "max_position_embeddings": 4096, "num_attention_heads": 32,
  "num_hidden_layers": 32, "num_key_value_heads": 32, "original_max_position_embeddings": 4096,
  "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0, "sliding_window": 2047,
  "tie_word_embeddings": false, "vocab_size": 32064})";
const char* kOlmo2 = R"({"model_type": "olmo2", "hidden_act": "silu", "hidden_size": 2048,
  "intermediate_size": 8192, "max_position_embeddings": 4096, "num_attention_heads": 16,
  "num_hidden_layers": 16, "num_key_value_heads": 16, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 500000, "tie_word_embeddings": false,
  "vocab_size": 100352})";

std::string error_of(const std::string& text) {
    try {
        parse_config(text);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("config: pythia's partial rotary and parallel residual") {
    const auto c = parse_config(kPythia);
    CHECK(c.model_type() == "gpt_neox");
    CHECK(c.head_dim == 64);
    CHECK(c.rope.d == 16);  // int(64 x 0.25)
    CHECK(c.rope.base == 10000.0);
    CHECK(c.norm == Norm::layer_norm);
    CHECK(c.parallel_residual);
    CHECK(!c.tie_word_embeddings);
    CHECK(c.qkv_bias);
    const auto seq = parse_config(
        R"({"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4,
            "rotary_pct": 0.5, "rotary_emb_base": 500, "use_parallel_residual": false})");
    CHECK(seq.rope.d == 8);
    CHECK(seq.rope.base == 500.0);
    CHECK(!seq.parallel_residual);
    CHECK(parse_config(R"({"model_type": "gpt_neox"})").rope.d == 24);  // 96 x 0.25
}

TEST_CASE("config: gemma 2's alternating layers, scale and soft-caps") {
    const auto c = parse_config(kGemma2);
    CHECK(c.norm == Norm::gemma_rms_norm);
    CHECK(c.head_dim == 256);
    CHECK(c.num_kv_heads == 4);
    CHECK(*c.query_scale == doctest::Approx(1.0 / 16));
    CHECK(*c.attn_softcap == 50.0);
    CHECK(*c.final_softcap == 30.0);
    CHECK(*c.sliding_window == 4096);
    REQUIRE(c.sliding_layers.size() == 26);
    CHECK(c.sliding_layers[0]);
    CHECK(!c.sliding_layers[1]);
    CHECK(c.sliding_layers[24]);
    CHECK(!c.rope_local);
    CHECK(c.tie_word_embeddings);
    // Absent caps take Gemma2Config's 50 and 30; null turns them off.
    const auto d = parse_config(R"({"model_type": "gemma2"})");
    CHECK(*d.attn_softcap == 50.0);
    CHECK(*d.final_softcap == 30.0);
    const auto off = parse_config(
        R"({"model_type": "gemma2", "attn_logit_softcapping": null,
            "final_logit_softcapping": null})");
    CHECK(!off.attn_softcap);
    CHECK(!off.final_softcap);
    const auto types = parse_config(
        R"({"model_type": "gemma2", "num_hidden_layers": 3,
            "layer_types": ["full_attention", "sliding_attention", "sliding_attention"]})");
    CHECK(types.sliding_layers == std::vector<bool>{false, true, true});
}

TEST_CASE("config: gemma 3's pattern and local RoPE base") {
    const auto c = parse_config(kGemma3);
    CHECK(!c.attn_softcap);
    CHECK(!c.final_softcap);
    REQUIRE(c.sliding_layers.size() == 26);
    for (std::size_t l = 0; l < 26; ++l) CHECK(c.sliding_layers[l] == ((l + 1) % 6 != 0));
    CHECK(c.rope.base == 1e6);
    REQUIRE(c.rope_local);
    CHECK(c.rope_local->base == 1e4);
    CHECK(c.rope_local->scaling == RopeScaling::none);
    // rope_scaling applies to the global layers only.
    const auto scaled = parse_config(
        R"({"model_type": "gemma3_text", "rope_scaling": {"rope_type": "linear", "factor": 8}})");
    CHECK(scaled.rope.scaling == RopeScaling::linear);
    CHECK(scaled.rope_local->scaling == RopeScaling::none);
    // transformers 5's rope_parameters by layer type.
    const auto nested = parse_config(
        R"({"model_type": "gemma3_text", "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})");
    CHECK(nested.rope.scaling == RopeScaling::linear);
    CHECK(nested.rope.base == 1e6);
    CHECK(nested.rope_local->scaling == RopeScaling::none);
    CHECK(nested.rope_local->base == 1e4);
}

TEST_CASE("config: qwen3, phi3 and olmo2") {
    const auto q = parse_config(kQwen3);
    CHECK(q.head_dim == 128);  // not hidden / heads = 64
    CHECK(!q.sliding_window);
    CHECK(q.tie_word_embeddings);
    const auto qs = parse_config(
        R"({"model_type": "qwen3", "num_hidden_layers": 4, "use_sliding_window": true,
            "sliding_window": 16, "max_window_layers": 2})");
    CHECK(qs.sliding_layers == std::vector<bool>{false, false, true, true});
    const auto p = parse_config(kPhi3);
    CHECK(*p.sliding_window == 2047);
    CHECK(p.sliding_layers.empty());  // every layer
    CHECK(p.rope.d == 96);
    const auto lr = parse_config(
        R"({"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 4,
            "max_position_embeddings": 131072, "partial_rotary_factor": 0.5,
            "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1],
                             "long_factor": [2, 2, 2, 2]}})");
    CHECK(lr.rope.d == 8);
    CHECK(lr.rope.scaling == RopeScaling::longrope);
    CHECK(*lr.rope.original_max_position_embeddings == 4096.0);  // Phi3Config's default
    const auto o = parse_config(kOlmo2);
    CHECK(o.rope.base == 500000.0);
    CHECK(o.num_kv_heads == 16);
    CHECK(o.norm == Norm::rms_norm_rounded_once);
}

TEST_CASE("config: the new families' wrong values name the key") {
    CHECK(attn::test::contains(
        error_of(R"({"model_type": "gemma2", "num_hidden_layers": 2, "layer_types": ["a", "b"]})"),
        "layer_types[0]"));
    CHECK(attn::test::contains(
        error_of(R"({"model_type": "gemma2", "num_hidden_layers": 3, "layer_types": []})"),
        "layer_types"));
    CHECK(
        attn::test::contains(error_of(R"({"model_type": "gemma2", "attn_logit_softcapping": -1})"),
                             "attn_logit_softcapping"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gemma2", "query_pre_attn_scalar": 0})"),
                               "query_pre_attn_scalar"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gpt_neox", "rotary_pct": 1.5})"),
                               "rotary_pct: is not in (0, 1]"));
    CHECK(attn::test::contains(
        error_of(R"({"model_type": "gemma3_text", "sliding_window_pattern": 0})"),
        "sliding_window_pattern"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gptj"})"),
                               "gpt_neox, gemma2, gemma3_text, qwen3, phi3, olmo2"));
}
