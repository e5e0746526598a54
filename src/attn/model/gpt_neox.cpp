// GPT-NeoX and Pythia (Black et al. 2022, Biderman et al. 2023; transformers' modeling_gpt_neox):
// embed_in without positions, pre-LN blocks (LayerNorms with bias), RoPE on the first
// rot = int(hd x rotary_pct) dimensions of each head (split halves, rotary_emb_base), causal,
// erf GELU MLP, an untied embed_out. The fused query_key_value (3d, d) is per head: rows
// [h 3hd, h 3hd + hd) are head h's q, then its k, then its v. With use_parallel_residual the
// block is h + attn(ln1 h) + mlp(ln2 h), else h' = h + attn(ln1 h), h' + mlp(ln2 h'). The older
// files' buffers (attention.bias, masked_bias, rotary_emb.inv_freq) are not read.
//
// config.json (key: default): vocab_size 50432, hidden_size 6144, intermediate_size 24576,
// num_hidden_layers 44, num_attention_heads 64, max_position_embeddings 2048, layer_norm_eps
// 1e-5, hidden_act gelu, rotary_pct (or partial_rotary_factor) 0.25, rotary_emb_base (or
// rope_theta) 1e4 and rope_scaling, use_parallel_residual true, attention_bias true,
// tie_word_embeddings false.
#include <cmath>
#include <memory>
#include <string>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"
#include "attn/model/rope_config.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"gpt_neox.", ""};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 50432);
    c.hidden_size = k.size({"hidden_size"}, 6144);
    c.intermediate_size = k.size({"intermediate_size"}, 24576);
    c.num_layers = k.size({"num_hidden_layers"}, 44);
    c.num_heads = 64;
    read_heads(k, c, {"num_attention_heads"}, {"num_attention_heads"}, "");
    const std::size_t max_positions = k.size({"max_position_embeddings"}, 2048);
    c.norm = Norm::layer_norm;
    c.norm_eps = k.number("layer_norm_eps", 1e-5);
    c.activation = activation(k, "hidden_act", k.text("hidden_act", "gelu"));
    c.qkv_bias = c.o_bias = k.flag("attention_bias", true);
    c.mlp_bias = true;
    c.tie_word_embeddings = k.flag("tie_word_embeddings", false);
    c.parallel_residual = k.flag("use_parallel_residual", true);
    c.query_scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));  // q.k times hd^-1/2
    c.positions = positions::Scheme::rope;
    RopeContext rope;
    rope.head_dim = c.head_dim;
    rope.max_positions = max_positions;
    rope.default_theta = k.number("rotary_emb_base", 10000.0);
    rope.partial_rotary_factor = k.number("rotary_pct", 0.25);
    if (rope.partial_rotary_factor > 1) k.fail("rotary_pct", "is not in (0, 1]");
    c.rope = parse_rope(k.object(), rope);
}

struct Tensors {
    Tensor embed_in;  // (V, d)
    struct Block {
        NormWeights input_norm, post_attention_norm;      // LayerNorm (d), with bias
        Linear query_key_value, dense, h_to_4h, h4_to_h;  // nn.Linear (out, in)
    };
    std::vector<Block> layers;
    NormWeights final_norm;
    Tensor embed_out;  // (V, d); absent when tied to embed_in
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t q = c.num_heads * c.head_dim;
    Tensors w;
    w.embed_in = t.add("embed_in.weight", {c.vocab_size, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string l = "layers." + std::to_string(i) + ".";
        Tensors::Block b;
        b.input_norm = t.layer_norm(l + "input_layernorm", d);
        // Fused per head: rows [h (3 hd) ..) are head h's q, k, v.
        b.query_key_value = t.linear(l + "attention.query_key_value", 3 * q, d, c.qkv_bias);
        b.dense = t.linear(l + "attention.dense", d, q, c.o_bias);
        b.post_attention_norm = t.layer_norm(l + "post_attention_layernorm", d);
        b.h_to_4h = t.linear(l + "mlp.dense_h_to_4h", I, d, true);
        b.h4_to_h = t.linear(l + "mlp.dense_4h_to_h", d, I, true);
        w.layers.push_back(b);
    }
    t.layer(-1);
    w.final_norm = t.layer_norm("final_layer_norm", d);
    if (!c.tie_word_embeddings) w.embed_out = t.add_any({"embed_out.weight"}, {c.vocab_size, d});
    return w;
}

template <class T>
class GptNeox final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::c_;
    using B::layer_norm, B::linear, B::feed_forward, B::projection;

  public:
    GptNeox(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = embed_in[ids]                                             (n, d)
        return this->gather(t_.embed_in, ids);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.layers[layer];
        // qkv = ln1(h) query_key_value^T + b   (n, 3 H hd): head i's q, k, v at (3i + 0, 1, 2) hd
        const Matrix<T> x = layer_norm(h, b.input_norm);
        const Matrix<T> qkv = linear(x, projection(b.query_key_value));
        // scores_h = rope(q_h) rope(k_h)^T / sqrt(hd), RoPE on each head's first rot dims
        const QkvHeads<T> heads{this->heads(qkv, H, 0, 3 * hd), this->heads(qkv, H, hd, 3 * hd),
                                this->heads(qkv, H, 2 * hd, 3 * hd)};
        if (!c_.parallel_residual) {
            // h' = h + attn(ln1 h); h = h' + dense_4h_to_h(gelu(dense_h_to_4h(ln2 h')))
            LayerResult<T> r = this->attention(layer, heads, projection(b.dense), keep, h);
            feed_forward(h, layer_norm(h, b.post_attention_norm), projection(b.h_to_4h),
                         c_.activation, projection(b.h4_to_h));
            return r;
        }
        // h = (mlp(ln2 h) + attn(ln1 h)) + h, summed in Hugging Face's order
        LayerResult<T> r = this->attend(layer, heads, keep, projection(b.dense));
        Matrix<T> m = xt::zeros<T>({h.shape(0), h.shape(1)});
        feed_forward(m, layer_norm(h, b.post_attention_norm), projection(b.h_to_4h), c_.activation,
                     projection(b.h4_to_h));
        this->add_linear(m, r.output, projection(b.dense));
        this->add(h, m);
        return r;
    }

    LmHead head() override {
        // logits = final_layer_norm(h[n-1]) embed_out^T (or embed_in^T when tied)   (V)
        return {t_.final_norm, c_.tie_word_embeddings ? t_.embed_in : t_.embed_out};
    }

  private:
    Tensors t_;
};

}  // namespace

extern const Family gpt_neox_family{
    .model_type = "gpt_neox",
    .layers_key = "num_hidden_layers",
    .read_config = read_config,
    .naming = {kPrefixes},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = nullptr,
    .forward_float = construct<GptNeox, float>,
    .forward_double = construct<GptNeox, double>,
    .lm_head = true,
    .gguf = {},  // not read from GGUF files yet
};

}  // namespace attn::model
