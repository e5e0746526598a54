#include "attn/model/config.hpp"

#include <doctest/doctest.h>

#include <string>

#include "attn/model/tensors.hpp"
#include "runtime/memory_budget.hpp"
#include "support/text.hpp"

using attn::model::Activation;
using attn::model::ConfigError;
using attn::model::parse_config;
using attn::positions::RopeScaling;

namespace {

// The published config.json files of openai-community/gpt2, google-bert/bert-base-uncased,
// meta-llama/Llama-3.1-8B, mistralai/Mistral-7B-v0.1, Qwen/Qwen2-0.5B, bigscience/bloom-560m,
// google-t5/t5-small and google/flan-t5-small (the keys attn reads, as they are written there).
const char* kGpt2 = R"({"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
  "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
  "n_layer": 12, "n_positions": 1024, "vocab_size": 50257})";
const char* kBert = R"({"architectures": ["BertForMaskedLM"], "hidden_act": "gelu",
  "hidden_size": 768, "intermediate_size": 3072, "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512, "model_type": "bert", "num_attention_heads": 12,
  "num_hidden_layers": 12, "position_embedding_type": "absolute", "type_vocab_size": 2,
  "vocab_size": 30522})";
const char* kLlama31 = R"({"architectures": ["LlamaForCausalLM"], "hidden_act": "silu",
  "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 131072,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0,
  "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
  "rope_type": "llama3"}, "rope_theta": 500000.0, "tie_word_embeddings": false,
  "vocab_size": 128256, "attention_bias": false, "mlp_bias": false})";
const char* kMistral = R"({"architectures": ["MistralForCausalLM"], "hidden_act": "silu",
  "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 32768,
  "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
  "sliding_window": 4096, "tie_word_embeddings": false, "vocab_size": 32000})";
const char* kQwen2 = R"({"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu",
  "hidden_size": 896, "intermediate_size": 4864, "max_position_embeddings": 131072,
  "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": true,
  "use_sliding_window": false, "vocab_size": 151936})";
const char* kBloom =
    R"({"architectures": ["BloomForCausalLM"], "apply_residual_connection_post_layernorm": false,
  "hidden_size": 1024, "layer_norm_epsilon": 1e-05, "model_type": "bloom", "n_head": 16,
  "n_inner": null, "n_layer": 24, "vocab_size": 250880})";
const char* kT5 = R"({"architectures": ["T5ForConditionalGeneration"], "d_ff": 2048, "d_kv": 64,
  "d_model": 512, "feed_forward_proj": "relu", "layer_norm_epsilon": 1e-06, "model_type": "t5",
  "num_decoder_layers": 6, "num_heads": 8, "num_layers": 6, "relative_attention_num_buckets": 32,
  "vocab_size": 32128})";
const char* kFlanT5 =
    R"({"d_ff": 1024, "d_kv": 64, "d_model": 512, "feed_forward_proj": "gated-gelu",
  "model_type": "t5", "num_heads": 6, "num_layers": 8, "relative_attention_max_distance": 128,
  "relative_attention_num_buckets": 32, "tie_word_embeddings": false, "vocab_size": 32128})";

std::string error_of(const std::string& text) {
    try {
        parse_config(text);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("config: gpt2 and bert, learned positions") {
    const auto g = parse_config(kGpt2);
    CHECK(g.model_type() == "gpt2");
    CHECK(g.vocab_size == 50257);
    CHECK(g.hidden_size == 768);
    CHECK(g.num_layers == 12);
    CHECK(g.num_heads == 12);
    CHECK(g.num_kv_heads == 12);
    CHECK(g.head_dim == 64);
    CHECK(g.intermediate_size == 3072);
    CHECK(g.max_positions == 1024);
    CHECK(g.norm_eps == 1e-5);
    CHECK(g.activation == Activation::gelu_tanh);
    CHECK(g.causal);
    CHECK(g.positions == attn::positions::Scheme::none);
    CHECK(g.describe() == "gpt2: learned absolute positions, 1024 rows");
    const auto b = parse_config(kBert);
    CHECK(b.model_type() == "bert");
    CHECK(b.max_positions == 512);
    CHECK(b.type_vocab_size == 2);
    CHECK(b.norm_eps == 1e-12);
    CHECK(b.activation == Activation::gelu);
    CHECK(b.post_norm);
    CHECK(!b.causal);
}

TEST_CASE("config: llama 3.1, mistral, qwen2, RoPE onto the position parameters") {
    const auto l = parse_config(kLlama31);
    CHECK(l.model_type() == "llama");
    CHECK(l.num_kv_heads == 8);
    CHECK(l.head_dim == 128);
    CHECK(l.gated_mlp);
    CHECK(l.norm == attn::model::Norm::rms_norm);
    CHECK(l.activation == Activation::silu);
    CHECK(!l.tie_word_embeddings);
    CHECK(l.rope.d == 128);
    CHECK(l.rope.base == 500000.0);
    CHECK(l.rope.scaling == RopeScaling::llama3);
    CHECK(*l.rope.factor == 8.0);
    CHECK(*l.rope.low_freq_factor == 1.0);
    CHECK(*l.rope.high_freq_factor == 4.0);
    CHECK(*l.rope.original_max_position_embeddings == 8192.0);
    const auto m = parse_config(kMistral);
    CHECK(m.model_type() == "mistral");
    CHECK(m.sliding_window == std::optional<std::size_t>(4096));
    CHECK(m.rope.scaling == RopeScaling::none);
    CHECK(!m.qkv_bias);
    const auto q = parse_config(kQwen2);
    CHECK(q.model_type() == "qwen2");
    CHECK(q.num_heads == 14);
    CHECK(q.num_kv_heads == 2);
    CHECK(q.head_dim == 64);
    CHECK(q.qkv_bias);
    CHECK(!q.o_bias);
    CHECK(!q.sliding_window);  // use_sliding_window false
    CHECK(q.rope.base == 1e6);
    // Mistral's head_dim beside hidden / heads; sliding_window null turns the window off.
    const auto h = parse_config(
        R"({"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32,
            "num_key_value_heads": 8, "head_dim": 128, "sliding_window": null})");
    CHECK(h.head_dim == 128);
    CHECK(h.rope.d == 128);
    CHECK(!h.sliding_window);
    // Every rope_scaling type encode has; "type" is the legacy spelling of "rope_type".
    const auto lin = parse_config(
        R"({"model_type": "llama", "rope_scaling": {"type": "linear", "factor": 2.0}})");
    CHECK(lin.rope.scaling == RopeScaling::linear);
    CHECK(*lin.rope.factor == 2.0);
    const auto dyn = parse_config(
        R"({"model_type": "llama", "max_position_embeddings": 4096,
            "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})");
    CHECK(dyn.rope.scaling == RopeScaling::dynamic);
    CHECK(*dyn.rope.original_max_position_embeddings == 4096.0);
    const auto yarn = parse_config(
        R"({"model_type": "qwen2", "rope_scaling": {"type": "yarn", "factor": 4.0,
            "original_max_position_embeddings": 32768, "beta_fast": 16}})");
    CHECK(yarn.rope.scaling == RopeScaling::yarn);
    CHECK(*yarn.rope.original_max_position_embeddings == 32768.0);
    CHECK(*yarn.rope.beta_fast == 16.0);
    CHECK(!yarn.rope.beta_slow);
}

TEST_CASE("config: bloom's ALiBi heads, t5's buckets and feed-forward") {
    const auto b = parse_config(kBloom);
    CHECK(b.model_type() == "bloom");
    CHECK(b.hidden_size == 1024);
    CHECK(b.num_heads == 16);
    CHECK(b.num_layers == 24);
    CHECK(b.intermediate_size == 4096);
    CHECK(b.positions == attn::positions::Scheme::alibi);
    CHECK(parse_config(R"({"model_type": "bloom", "n_embed": 128, "n_head": 4})").hidden_size ==
          128);
    const auto t = parse_config(kT5);
    CHECK(t.model_type() == "t5");
    CHECK(t.hidden_size == 512);
    CHECK(t.head_dim == 64);
    CHECK(t.num_layers == 6);
    CHECK(t.t5.num_buckets == 32);
    CHECK(t.t5.max_distance == 128);
    CHECK(t.t5.bidirectional);
    CHECK(!t.scale_scores);
    CHECK(t.activation == Activation::relu);
    CHECK(!t.gated_mlp);
    const auto f = parse_config(kFlanT5);
    CHECK(f.gated_mlp);
    CHECK(f.activation == Activation::gelu_tanh);  // gated-gelu is gelu_new
    CHECK(f.num_heads * f.head_dim == 384);        // d_kv x heads differs from d_model
}

TEST_CASE("config: what attn cannot use names the key") {
    const std::string unknown = error_of(R"({"model_type": "gptj"})");
    CHECK(attn::test::contains(unknown, "model_type: 'gptj'"));
    CHECK(attn::test::contains(unknown, "gpt2, bert, llama, mistral, qwen2, bloom, t5"));
    CHECK(attn::test::contains(error_of("{}"), "model_type: absent"));
    CHECK(attn::test::contains(error_of("[1]"), "not a JSON object"));
    CHECK(attn::test::contains(error_of("{\"model_type\": "), "not valid JSON"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gpt2", "n_head": 5})"),
                               "n_head: 5 heads do not divide the width 768"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gpt2", "n_layer": -1})"), "n_layer"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gpt2", "n_layer": 5000})"),
                               "5000 layers, above attn's limit of 4096"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gpt2", "n_embd": "768"})"), "n_embd"));
    // A value nested a million deep is named by its kind, not written out (no recursion).
    const std::string deep = R"({"model_type": "gpt2", "n_embd": )" + std::string(1000000, '[') +
                             std::string(1000000, ']') + "}";
    CHECK(error_of(deep) == "n_embd: an array is not an integer in 1..2^31");
    CHECK(attn::test::contains(error_of(R"({"model_type": "gpt2", "n_embd": 1e40})"), "n_embd"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "llama", "num_key_value_heads": 5})"),
                               "num_key_value_heads: 5 key/value heads do not divide 32 heads"));
    CHECK(attn::test::contains(
        error_of(R"({"model_type": "llama", "rope_scaling": {"rope_type": "mrope"}})"),
        "rope_scaling.rope_type: 'mrope'"));
    CHECK(attn::test::contains(
        error_of(R"({"model_type": "llama", "rope_scaling": {"rope_type": "linear"}})"),
        "rope_scaling.factor"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "llama", "rope_theta": 0.5})"),
                               "rope_theta"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "llama", "rms_norm_eps": 0})"),
                               "rms_norm_eps"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "gpt2", "activation_function": "mish"})"),
                               "activation_function: 'mish'"));
    CHECK(attn::test::contains(error_of(R"({"model_type": "t5", "feed_forward_proj": "a-b-c"})"),
                               "feed_forward_proj"));
    CHECK(attn::test::contains(
        error_of(R"({"model_type": "t5", "relative_attention_max_distance": 4})"),
        "relative_attention_max_distance"));
    CHECK(attn::test::contains(
        error_of(R"({"model_type": "bert", "position_embedding_type": "relative_key"})"),
        "position_embedding_type"));
}

TEST_CASE("tensors: names with the accepted prefixes and the shapes the config implies") {
    const auto g = attn::model::model_tensors(parse_config(kGpt2));
    CHECK(g.size() == 2 + 12 * 12 + 2);
    CHECK(g[0].names == std::vector<std::string>{"wte.weight", "transformer.wte.weight"});
    CHECK(g[0].shape == std::vector<std::uint64_t>{50257, 768});
    CHECK(g[4].names[0] == "h.0.attn.c_attn.weight");
    CHECK(g[4].shape == std::vector<std::uint64_t>{768, 2304});  // Conv1D (in, out)
    CHECK(g[4].layer == 0);
    const auto b = attn::model::model_tensors(parse_config(kBert));
    CHECK(b[3].names == std::vector<std::string>{
                            "embeddings.LayerNorm.weight", "bert.embeddings.LayerNorm.weight",
                            "embeddings.LayerNorm.gamma", "bert.embeddings.LayerNorm.gamma"});
    const auto l = attn::model::model_tensors(parse_config(kLlama31));
    CHECK(l[0].names[0] == "model.embed_tokens.weight");
    CHECK(l[3].names[0] == "model.layers.0.self_attn.k_proj.weight");
    CHECK(l[3].shape == std::vector<std::uint64_t>{1024, 4096});  // 8 K/V heads x 128
    CHECK(l.back().names == std::vector<std::string>{"lm_head.weight"});
    const auto q = attn::model::model_tensors(parse_config(kQwen2));
    CHECK(q[3].names[0] == "model.layers.0.self_attn.q_proj.bias");
    CHECK(q.back().names[0] == "model.norm.weight");  // tied: no lm_head
    const auto t = attn::model::model_tensors(parse_config(kFlanT5));
    CHECK(t[0].names == std::vector<std::string>{"encoder.embed_tokens.weight", "shared.weight"});
    CHECK(t[5].names[0] == "encoder.block.0.layer.0.SelfAttention.o.weight");
    CHECK(t[5].shape == std::vector<std::uint64_t>{512, 384});
    CHECK(t[6].shape == std::vector<std::uint64_t>{32, 6});
    CHECK(t[8].names[0] == "encoder.block.0.layer.1.DenseReluDense.wi_0.weight");
    const auto wpe = attn::model::position_table(parse_config(kGpt2));
    CHECK(wpe.names == std::vector<std::string>{"wpe.weight", "transformer.wpe.weight"});
}

TEST_CASE("forward_bytes: one block's weights plus the activations, overflow refused") {
    // gpt2, n = 1024, float32: block 7,087,872 values; q k v 3 x 1024 x 768; the layer's
    // copies 2 x 1024 x (36 + 24 + 12) x 64; scores 2 x 12 x 1024^2; MLP 2 x 1024 x 3072;
    // stream 4 x 1024 x 768; logits 50257.
    const std::uint64_t values = 7087872ull + 3ull * 1024 * 768 + 2ull * 1024 * 72 * 64 +
                                 2ull * 12 * 1024 * 1024 + 2ull * 1024 * 3072 + 4ull * 1024 * 768 +
                                 50257;
    CHECK(attn::model::forward_bytes(parse_config(kGpt2), 1024, 4) == 4 * values);
    // Without n x n arrays (the fused kernel) the scores' 2 H n^2 are not held.
    attn::model::ForwardKeep fused;
    fused.square = false;
    CHECK(attn::model::forward_bytes(parse_config(kGpt2), 1024, 4, fused) <
          4 * (values - 2ull * 12 * 1024 * 1024 / 2));
    CHECK_THROWS_AS(attn::model::forward_bytes(parse_config(kGpt2), 1ull << 40, 4),
                    attn::runtime::SizeOverflow);
}

TEST_CASE("lens_bytes: the unembedding's blocks and the top K, counted by forward_bytes") {
    // gpt2, 12 layers, top 5, float32. Every position of 1024: m = 1024, blocks of
    // b = clamp(2^24 / 1024, 256, 4096) = 4096 rows: 4 (3 m d + b (d + m)) + 16 m (K + 1)
    // + 64 m + 12 m (16 K + 8); one position: m = 1, b = 4096.
    const attn::model::ModelConfig c = parse_config(kGpt2);
    const attn::model::ForwardKeep::Lens every{12, 5, true}, one{12, 5, false};
    const std::uint64_t m = 1024, b = 4096, d = 768;
    CHECK(attn::model::lens_bytes(c, 1024, 4, every) ==
          4 * (3 * m * d + b * (d + m)) + 16 * m * 6 + 64 * m + 12 * m * 88);
    CHECK(attn::model::lens_bytes(c, 1024, 4, one) ==
          4 * (3 * d + b * (d + 1)) + 96 + 64 + 12 * 88);
    CHECK(attn::model::lens_bytes(c, 1024, 4, {}) == 0);  // no layers: no lens
    // 64 positions: b = clamp(2^18, 256, 4096) = 4096 still; float64 doubles the values' part
    CHECK(attn::model::lens_bytes(c, 64, 8, every) ==
          8 * (3 * 64 * d + b * (d + 64)) + 16 * 64 * 6 + 64 * 64 + 12 * 64 * 88);
    attn::model::ForwardKeep keep;
    keep.lens = every;
    CHECK(attn::model::forward_bytes(c, 1024, 4, keep) ==
          attn::model::forward_bytes(c, 1024, 4) + attn::model::lens_bytes(c, 1024, 4, every));
}
