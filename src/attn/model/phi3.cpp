// Phi-3 (Abdin et al. 2024; transformers' modeling_phi3): Llama's block with fused projections:
// qkv_proj (H hd + 2 G hd, d) rows [Q; K; V] and gate_up_proj (2I, d) rows [gate; up];
// RoPE on the first int(hd x partial_rotary_factor) dims of each head, with rope_scaling
// longrope (short_factor within original_max_position_embeddings, long_factor past it, and its
// attention factor); sliding_window on every layer when set.
//
// config.json (key: default): vocab_size 32064, hidden_size 3072, intermediate_size 8192,
// num_hidden_layers 32, num_attention_heads 32, num_key_value_heads = heads,
// max_position_embeddings 4096, original_max_position_embeddings 4096, rms_norm_eps 1e-5,
// hidden_act silu, partial_rotary_factor 1, rope_theta 1e4 and rope_scaling, sliding_window
// null, attention_bias false, tie_word_embeddings false.
#include <cmath>
#include <memory>
#include <string>

#include <xtensor/xview.hpp>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"
#include "attn/model/rope_config.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"model.", ""};

// llama.cpp's converter: phi3.KEY -> config.json, and its tensor names (qkv and gate_up fused
// as in the checkpoint).
constexpr std::pair<std::string_view, std::string_view> kGgufKeys[] = {
    {"context_length", "max_position_embeddings"},
    {"rope.scaling.original_context_length", "original_max_position_embeddings"},
    {"embedding_length", "hidden_size"},
    {"block_count", "num_hidden_layers"},
    {"feed_forward_length", "intermediate_size"},
    {"attention.head_count", "num_attention_heads"},
    {"attention.head_count_kv", "num_key_value_heads"},
    {"attention.layer_norm_rms_epsilon", "rms_norm_eps"},
    {"attention.sliding_window", "sliding_window"},
    {"rope.freq_base", "rope_theta"}};
constexpr GgufTensor kGgufTensors[] = {{"token_embd", "embed_tokens"},
                                       {"output", "lm_head"},
                                       {"output_norm", "norm"},
                                       {"blk.{}.attn_norm", "layers.{}.input_layernorm"},
                                       {"blk.{}.attn_qkv", "layers.{}.self_attn.qkv_proj"},
                                       {"blk.{}.attn_output", "layers.{}.self_attn.o_proj"},
                                       {"blk.{}.ffn_norm", "layers.{}.post_attention_layernorm"},
                                       {"blk.{}.ffn_up", "layers.{}.mlp.gate_up_proj"},
                                       {"blk.{}.ffn_down", "layers.{}.mlp.down_proj"}};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 32064);
    c.hidden_size = k.size({"hidden_size"}, 3072);
    c.intermediate_size = k.size({"intermediate_size"}, 8192);
    c.num_layers = k.size({"num_hidden_layers"}, 32);
    c.num_heads = 32;
    read_heads(k, c, {"num_attention_heads"}, {"num_key_value_heads"}, "head_dim");
    const std::size_t max_positions = k.size({"max_position_embeddings"}, 4096);
    c.norm = Norm::rms_norm;
    c.norm_eps = k.number("rms_norm_eps", 1e-5);
    c.activation = activation(k, "hidden_act", k.text("hidden_act", "silu"));
    c.gated_mlp = true;
    c.qkv_bias = c.o_bias = k.flag("attention_bias", false);
    c.tie_word_embeddings = k.flag("tie_word_embeddings", false);
    c.query_scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));  // q.k times hd^-1/2
    c.positions = positions::Scheme::rope;
    RopeContext rope;
    rope.head_dim = c.head_dim;
    rope.max_positions = max_positions;
    rope.original_max_positions = 4096;  // Phi3Config's original_max_position_embeddings
    c.rope = parse_rope(k.object(), rope);
    if (k.find("sliding_window") != nullptr) c.sliding_window = k.size({"sliding_window"}, 0);
}

struct Tensors {
    Tensor embed_tokens;  // (V, d)
    struct Block {
        NormWeights input_norm, post_attention_norm;  // RMSNorm (d)
        Linear qkv, o, gate_up, down;                 // nn.Linear (out, in)
    };
    std::vector<Block> layers;
    NormWeights norm;
    Tensor lm_head;  // (V, d); absent when tied to embed_tokens
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t q = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
    Tensors w;
    w.embed_tokens = t.add("embed_tokens.weight", {c.vocab_size, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string l = "layers." + std::to_string(i) + ".";
        Tensors::Block b;
        b.input_norm = t.rms_norm(l + "input_layernorm", d);
        b.qkv = t.linear(l + "self_attn.qkv_proj", q + 2 * kv, d, c.qkv_bias);
        b.o = t.linear(l + "self_attn.o_proj", d, q, c.o_bias);
        b.post_attention_norm = t.rms_norm(l + "post_attention_layernorm", d);
        b.gate_up = t.linear(l + "mlp.gate_up_proj", 2 * I, d, false);
        b.down = t.linear(l + "mlp.down_proj", d, I, false);
        w.layers.push_back(b);
    }
    t.layer(-1);
    w.norm = t.rms_norm("norm", d);
    if (!c.tie_word_embeddings) w.lm_head = t.add_any({"lm_head.weight"}, {c.vocab_size, d});
    return w;
}

template <class T>
class Phi3 final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::c_;
    using B::rms_norm, B::linear, B::projection;

  public:
    Phi3(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = embed_tokens[ids]                                         (n, d)
        return this->gather(t_.embed_tokens, ids);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, G = c_.num_kv_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const typename Tensors::Block& b = t_.layers[layer];
        // qkv = x qkv_proj^T (n, H hd + 2 G hd) = [q | k | v], x = RMSNorm(h)
        const Matrix<T> x = rms_norm(h, b.input_norm);
        const Matrix<T> qkv = linear(x, projection(b.qkv));
        // scores_h = rope(q_h) rope(k_{h / (H/G)})^T / sqrt(hd), causal (and the window);
        // h = h + concat_h(softmax(scores_h) v_{h / (H/G)}) o_proj^T                (n, d)
        LayerResult<T> r =
            this->attention(layer,
                            {this->heads(qkv, H, 0, hd), this->heads(qkv, G, H * hd, hd),
                             this->heads(qkv, G, (H + G) * hd, hd)},
                            projection(b.o), keep, h);
        // [g | u] = x2 gate_up_proj^T (n, 2I), x2 = RMSNorm(h); h = h + down(silu(g) * u)
        const Matrix<T> gu = linear(rms_norm(h, b.post_attention_norm), projection(b.gate_up));
        Matrix<T> g = xt::view(gu, xt::all(), xt::range(0, I));
        const Matrix<T> u = xt::view(gu, xt::all(), xt::range(I, 2 * I));
        this->gate(g, u, c_.activation);
        this->add_linear(h, g, projection(b.down));
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

extern const Family phi3_family{
    .model_type = "phi3",
    .layers_key = "num_hidden_layers",
    .read_config = read_config,
    .naming = {kPrefixes},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = nullptr,
    .forward_float = construct<Phi3, float>,
    .forward_double = construct<Phi3, double>,
    .lm_head = true,
    .gguf = {"phi3", kGgufKeys, kGgufTensors},
};

}  // namespace attn::model
