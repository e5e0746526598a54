// Qwen3 (Qwen Team 2025; transformers' modeling_qwen3): Llama's block (RMSNorm before attention
// and MLP, RoPE, grouped K/V, SwiGLU, an LM head or the tied embedding) with q_norm and k_norm,
// RMSNorms over each head's head_dim applied to q and k before RoPE. Sliding-window layers
// only with use_sliding_window: the layers from max_window_layers on (or layer_types').
//
// config.json (key: default): vocab_size 151936, hidden_size 4096, intermediate_size 22016,
// num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 32, head_dim 128,
// max_position_embeddings 32768, rms_norm_eps 1e-6, hidden_act silu, attention_bias false,
// tie_word_embeddings false, rope_theta 1e4 and rope_scaling, use_sliding_window false,
// sliding_window 4096, max_window_layers 28, layer_types.
#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"model.", ""};

// llama.cpp's converter: qwen3.KEY -> config.json, and its tensor names.
constexpr std::pair<std::string_view, std::string_view> kGgufKeys[] = {
    {"context_length", "max_position_embeddings"},
    {"embedding_length", "hidden_size"},
    {"block_count", "num_hidden_layers"},
    {"feed_forward_length", "intermediate_size"},
    {"attention.head_count", "num_attention_heads"},
    {"attention.head_count_kv", "num_key_value_heads"},
    {"attention.key_length", "head_dim"},
    {"attention.layer_norm_rms_epsilon", "rms_norm_eps"},
    {"rope.freq_base", "rope_theta"}};
constexpr GgufTensor kGgufTensors[] = {{"token_embd", "embed_tokens"},
                                       {"output", "lm_head"},
                                       {"output_norm", "norm"},
                                       {"blk.{}.attn_norm", "layers.{}.input_layernorm"},
                                       {"blk.{}.attn_q", "layers.{}.self_attn.q_proj"},
                                       {"blk.{}.attn_k", "layers.{}.self_attn.k_proj"},
                                       {"blk.{}.attn_v", "layers.{}.self_attn.v_proj"},
                                       {"blk.{}.attn_q_norm", "layers.{}.self_attn.q_norm"},
                                       {"blk.{}.attn_k_norm", "layers.{}.self_attn.k_norm"},
                                       {"blk.{}.attn_output", "layers.{}.self_attn.o_proj"},
                                       {"blk.{}.ffn_norm", "layers.{}.post_attention_layernorm"},
                                       {"blk.{}.ffn_gate", "layers.{}.mlp.gate_proj"},
                                       {"blk.{}.ffn_up", "layers.{}.mlp.up_proj"},
                                       {"blk.{}.ffn_down", "layers.{}.mlp.down_proj"}};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 151936);
    c.hidden_size = k.size({"hidden_size"}, 4096);
    c.intermediate_size = k.size({"intermediate_size"}, 22016);
    c.num_layers = k.size({"num_hidden_layers"}, 32);
    c.num_heads = 32;
    read_heads(k, c, {"num_attention_heads"}, {"num_key_value_heads"}, "head_dim");
    if (k.find("head_dim") == nullptr) c.head_dim = 128;
    const std::size_t max_positions = k.size({"max_position_embeddings"}, 32768);
    c.norm = Norm::rms_norm;
    c.norm_eps = k.number("rms_norm_eps", 1e-6);
    c.activation = activation(k, "hidden_act", k.text("hidden_act", "silu"));
    c.gated_mlp = true;
    c.qkv_bias = c.o_bias = k.flag("attention_bias", false);
    c.tie_word_embeddings = k.flag("tie_word_embeddings", false);
    c.query_scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));  // q.k times hd^-1/2
    c.positions = positions::Scheme::rope;
    parse_rope(k, c, max_positions);
    if (!k.flag("use_sliding_window", false)) return;
    c.sliding_window = k.size({"sliding_window"}, 4096);
    const std::size_t from = k.size({"max_window_layers"}, 28, true);
    c.sliding_layers.resize(c.num_layers);
    for (std::size_t l = 0; l < c.num_layers; ++l) c.sliding_layers[l] = l >= from;
    if (const nlohmann::json* types = k.find("layer_types")) {
        if (!types->is_array() || types->size() != c.num_layers)
            k.fail("layer_types", fmt::format("{} is not an array of {} layer types", brief(*types),
                                              c.num_layers));
        for (std::size_t l = 0; l < c.num_layers; ++l)
            c.sliding_layers[l] = (*types)[l] == "sliding_attention";
    }
}

struct Tensors {
    Tensor embed_tokens;  // (V, d)
    struct Block {
        NormWeights input_norm, post_attention_norm;  // RMSNorm (d)
        NormWeights q_norm, k_norm;                   // RMSNorm (hd), shared by the heads
        Linear q, k, v, o, gate, up, down;            // nn.Linear (out, in)
    };
    std::vector<Block> layers;
    NormWeights norm;
    Tensor lm_head;  // (V, d); absent when tied to embed_tokens
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size, hd = c.head_dim;
    const std::uint64_t q = c.num_heads * hd, kv = c.num_kv_heads * hd;
    Tensors w;
    w.embed_tokens = t.add("embed_tokens.weight", {c.vocab_size, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string l = "layers." + std::to_string(i) + ".";
        Tensors::Block b;
        b.input_norm = t.rms_norm(l + "input_layernorm", d);
        b.q = t.linear(l + "self_attn.q_proj", q, d, c.qkv_bias);
        b.k = t.linear(l + "self_attn.k_proj", kv, d, c.qkv_bias);
        b.v = t.linear(l + "self_attn.v_proj", kv, d, c.qkv_bias);
        b.q_norm = t.rms_norm(l + "self_attn.q_norm", hd);
        b.k_norm = t.rms_norm(l + "self_attn.k_norm", hd);
        b.o = t.linear(l + "self_attn.o_proj", d, q, c.o_bias);
        b.post_attention_norm = t.rms_norm(l + "post_attention_layernorm", d);
        b.gate = t.linear(l + "mlp.gate_proj", I, d, false);
        b.up = t.linear(l + "mlp.up_proj", I, d, false);
        b.down = t.linear(l + "mlp.down_proj", d, I, false);
        w.layers.push_back(b);
    }
    t.layer(-1);
    w.norm = t.rms_norm("norm", d);
    if (!c.tie_word_embeddings) w.lm_head = t.add_any({"lm_head.weight"}, {c.vocab_size, d});
    return w;
}

template <class T>
class Qwen3 final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::c_;
    using B::rms_norm, B::linear, B::gated_feed_forward, B::projection;

  public:
    Qwen3(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = embed_tokens[ids]                                         (n, d)
        return this->gather(t_.embed_tokens, ids);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, G = c_.num_kv_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.layers[layer];
        // q = RMSNorm_hd(x q_proj^T) per head (n, H hd), k likewise (n, G hd), v (n, G hd),
        // x = RMSNorm(h)
        const Matrix<T> x = rms_norm(h, b.input_norm);
        Matrix<T> q = linear(x, projection(b.q));
        Matrix<T> k = linear(x, projection(b.k));
        const Matrix<T> v = linear(x, projection(b.v));
        this->head_norm(q, H, b.q_norm);
        this->head_norm(k, G, b.k_norm);
        // scores_h = rope(q_h) rope(k_{h / (H/G)})^T / sqrt(hd), causal;
        // h = h + concat_h(softmax(scores_h) v_{h / (H/G)}) o_proj^T                (n, d)
        LayerResult<T> r = this->attention(
            layer, {this->heads(q, H, 0, hd), this->heads(k, G, 0, hd), this->heads(v, G, 0, hd)},
            projection(b.o), keep, h);
        // h = h + down(silu(gate(x2)) * up(x2)),  x2 = RMSNorm(h)        (n, I) -> (n, d)
        const Matrix<T> x2 = rms_norm(h, b.post_attention_norm);
        gated_feed_forward(h, x2, projection(b.gate), projection(b.up), c_.activation,
                           projection(b.down));
        return r;
    }

    LmHead head() override {
        // logits = RMSNorm(h[n-1]) lm_head^T (or embed_tokens^T when tied)   (V)
        return {t_.norm, c_.tie_word_embeddings ? t_.embed_tokens : t_.lm_head};
    }

  private:
    Tensors t_;
};

}  // namespace

extern const Family qwen3_family{
    .model_type = "qwen3",
    .layers_key = "num_hidden_layers",
    .read_config = read_config,
    .naming = {kPrefixes},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = nullptr,
    .forward_float = construct<Qwen3, float>,
    .forward_double = construct<Qwen3, double>,
    .lm_head = true,
    .gguf = {"qwen3", kGgufKeys, kGgufTensors},
};

}  // namespace attn::model
