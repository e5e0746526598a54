// BLOOM (BigScience 2022; transformers' modeling_bloom): word embeddings through a LayerNorm,
// pre-LN blocks, ALiBi (slope m_h for the head count, the bias m_h j on key j, unscaled, added
// to the scaled q.k), causal, tanh GELU MLP, LM head tied to the word embeddings. The fused
// query_key_value (3d, d) is per head: rows [h 3hd, h 3hd + hd) are head h's q, then its k, v.
//
// config.json (key: default): vocab_size 250880, hidden_size (n_embed) 64, n_layer 2, n_head 8,
// layer_norm_epsilon 1e-5, a 4 d MLP; apply_residual_connection_post_layernorm must be false.
#include <memory>
#include <string>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"", "transformer."};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 250880);
    c.hidden_size = k.size({"n_embed", "hidden_size"}, 64);
    c.num_layers = k.size({"n_layer", "num_hidden_layers"}, 2);
    c.num_heads = 8;
    read_heads(k, c, {"n_head", "num_attention_heads"}, {"n_head", "num_attention_heads"}, "");
    c.intermediate_size = 4 * c.hidden_size;
    c.norm_eps = k.number("layer_norm_epsilon", 1e-5);
    c.activation = Activation::gelu_tanh;
    if (k.flag("apply_residual_connection_post_layernorm", false))
        k.fail("apply_residual_connection_post_layernorm", "true is not supported");
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
    c.positions = positions::Scheme::alibi;
}

struct Tensors {
    Tensor word_embeddings;  // (V, d)
    NormWeights embed_norm;
    struct Block {
        NormWeights input_norm, post_attention_norm;
        Linear query_key_value, dense, h_to_4h, h4_to_h;  // nn.Linear (out, in)
    };
    std::vector<Block> h;
    NormWeights ln_f;
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    Tensors w;
    w.word_embeddings = t.add("word_embeddings.weight", {c.vocab_size, d});
    w.embed_norm = t.layer_norm("word_embeddings_layernorm", d);
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string h = "h." + std::to_string(i) + ".";
        Tensors::Block b;
        b.input_norm = t.layer_norm(h + "input_layernorm", d);
        // Fused per head: rows [h (3 hd) ..) are head h's q, k, v.
        b.query_key_value = t.linear(h + "self_attention.query_key_value", 3 * d, d, true);
        b.dense = t.linear(h + "self_attention.dense", d, d, true);
        b.post_attention_norm = t.layer_norm(h + "post_attention_layernorm", d);
        b.h_to_4h = t.linear(h + "mlp.dense_h_to_4h", I, d, true);
        b.h4_to_h = t.linear(h + "mlp.dense_4h_to_h", d, I, true);
        w.h.push_back(b);
    }
    t.layer(-1);
    w.ln_f = t.layer_norm("ln_f", d);
    return w;
}

template <class T>
class Bloom final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::c_;
    using B::layer_norm, B::linear, B::feed_forward, B::projection;

  public:
    Bloom(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = LayerNorm(word_embeddings[ids])                           (n, d)
        const Matrix<T> e = this->gather(t_.word_embeddings, ids);
        return layer_norm(e, t_.embed_norm);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.h[layer];
        // qkv = LayerNorm(h) query_key_value^T + b     (n, 3d): head i's q, k, v at (3i + 0, 1,
        // 2) hd
        const Matrix<T> x = layer_norm(h, b.input_norm);
        const Matrix<T> qkv = linear(x, projection(b.query_key_value));
        // scores_h = q_h k_h^T / sqrt(hd) + m_h j, causal; h = h + concat dense^T   (n, d)
        LayerResult<T> r =
            this->attention(layer,
                            {this->heads(qkv, H, 0, 3 * hd), this->heads(qkv, H, hd, 3 * hd),
                             this->heads(qkv, H, 2 * hd, 3 * hd)},
                            projection(b.dense), keep, h);
        // h = h + dense_4h_to_h(gelu_tanh(dense_h_to_4h(LayerNorm(h))))  (n, I) -> (n, d)
        const Matrix<T> x2 = layer_norm(h, b.post_attention_norm);
        feed_forward(h, x2, projection(b.h_to_4h), c_.activation, projection(b.h4_to_h));
        return r;
    }

    LmHead head() override {
        // logits = ln_f(h[n-1]) word_embeddings^T                        (V)
        return {t_.ln_f, t_.word_embeddings};
    }

  private:
    Tensors t_;
};

}  // namespace

extern const Family bloom_family{
    .model_type = "bloom",
    .layers_key = "num_hidden_layers",
    .read_config = read_config,
    .naming = {kPrefixes},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = nullptr,
    .forward_float = construct<Bloom, float>,
    .forward_double = construct<Bloom, double>,
    .lm_head = true,
    .gguf = {},  // not read from GGUF files yet
};

}  // namespace attn::model
