// OLMo 2 (OLMo Team 2024; transformers' modeling_olmo2): Llama's parts with the norms moved
// after attention and MLP: h = h + RMSNorm(attn(h)), h = h + RMSNorm(mlp(h)); q_norm and k_norm
// are RMSNorms over the whole projections (H hd and G hd), before RoPE. No norm before the
// sublayers.
//
// config.json (key: default): vocab_size 50304, hidden_size 4096, intermediate_size 11008,
// num_hidden_layers 32, num_attention_heads 32, num_key_value_heads = heads,
// max_position_embeddings 2048, rms_norm_eps 1e-5, hidden_act silu, attention_bias false,
// tie_word_embeddings false, rope_theta 1e4 and rope_scaling (or rope_parameters).
#include <cmath>
#include <memory>
#include <string>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"model.", ""};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 50304);
    c.hidden_size = k.size({"hidden_size"}, 4096);
    c.intermediate_size = k.size({"intermediate_size"}, 11008);
    c.num_layers = k.size({"num_hidden_layers"}, 32);
    c.num_heads = 32;
    read_heads(k, c, {"num_attention_heads"}, {"num_key_value_heads"}, "head_dim");
    const std::size_t max_positions = k.size({"max_position_embeddings"}, 2048);
    c.norm = Norm::rms_norm_rounded_once;  // Olmo2RMSNorm: (w x / rms(x)).to(dtype)
    c.norm_eps = k.number("rms_norm_eps", 1e-5);
    c.activation = activation(k, "hidden_act", k.text("hidden_act", "silu"));
    c.gated_mlp = true;
    c.qkv_bias = c.o_bias = k.flag("attention_bias", false);
    c.tie_word_embeddings = k.flag("tie_word_embeddings", false);
    c.query_scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));  // q.k times hd^-1/2
    c.positions = positions::Scheme::rope;
    parse_rope(k, c, max_positions);
}

struct Tensors {
    Tensor embed_tokens;  // (V, d)
    struct Block {
        NormWeights q_norm, k_norm;                              // RMSNorm (H hd) and (G hd)
        NormWeights post_attention_norm, post_feedforward_norm;  // RMSNorm (d)
        Linear q, k, v, o, gate, up, down;                       // nn.Linear (out, in)
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
        b.q = t.linear(l + "self_attn.q_proj", q, d, c.qkv_bias);
        b.k = t.linear(l + "self_attn.k_proj", kv, d, c.qkv_bias);
        b.v = t.linear(l + "self_attn.v_proj", kv, d, c.qkv_bias);
        b.o = t.linear(l + "self_attn.o_proj", d, q, c.o_bias);
        b.q_norm = t.rms_norm(l + "self_attn.q_norm", q);
        b.k_norm = t.rms_norm(l + "self_attn.k_norm", kv);
        b.post_attention_norm = t.rms_norm(l + "post_attention_layernorm", d);
        b.gate = t.linear(l + "mlp.gate_proj", I, d, false);
        b.up = t.linear(l + "mlp.up_proj", I, d, false);
        b.down = t.linear(l + "mlp.down_proj", d, I, false);
        b.post_feedforward_norm = t.rms_norm(l + "post_feedforward_layernorm", d);
        w.layers.push_back(b);
    }
    t.layer(-1);
    w.norm = t.rms_norm("norm", d);
    if (!c.tie_word_embeddings) w.lm_head = t.add_any({"lm_head.weight"}, {c.vocab_size, d});
    return w;
}

template <class T>
class Olmo2 final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::c_;
    using B::norm, B::linear, B::gated_feed_forward, B::projection;

  public:
    Olmo2(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = embed_tokens[ids]                                         (n, d)
        return this->gather(t_.embed_tokens, ids);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, G = c_.num_kv_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.layers[layer];
        // q = RMSNorm(h q_proj^T) over all heads (n, H hd), k likewise (n, G hd), v (n, G hd)
        const Matrix<T> q = norm(linear(h, projection(b.q)), b.q_norm);
        const Matrix<T> k = norm(linear(h, projection(b.k)), b.k_norm);
        const Matrix<T> v = linear(h, projection(b.v));
        // scores_h = rope(q_h) rope(k_{h / (H/G)})^T / sqrt(hd), causal;
        // h = h + RMSNorm(concat_h(softmax(scores_h) v_{h / (H/G)}) o_proj^T)       (n, d)
        LayerResult<T> r = this->attend(
            layer, {this->heads(q, H, 0, hd), this->heads(k, G, 0, hd), this->heads(v, G, 0, hd)},
            keep, projection(b.o));
        this->add(h, norm(linear(r.output, projection(b.o)), b.post_attention_norm));
        // h = h + RMSNorm(down(silu(gate(h)) * up(h)))                     (n, I) -> (n, d)
        Matrix<T> m = xt::zeros<T>({h.shape(0), h.shape(1)});
        gated_feed_forward(m, h, projection(b.gate), projection(b.up), c_.activation,
                           projection(b.down));
        this->add(h, norm(m, b.post_feedforward_norm));
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

extern const Family olmo2_family{
    .model_type = "olmo2",
    .layers_key = "num_hidden_layers",
    .read_config = read_config,
    .naming = {kPrefixes},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = nullptr,
    .forward_float = construct<Olmo2, float>,
    .forward_double = construct<Olmo2, double>,
    .lm_head = true,
    .gguf = {},  // not read from GGUF files yet
};

}  // namespace attn::model
