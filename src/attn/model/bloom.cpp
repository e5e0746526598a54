// BLOOM (BigScience 2022; transformers' modeling_bloom): word embeddings through a LayerNorm,
// pre-LN blocks, ALiBi (slope m_h for the head count, the bias m_h j on key j, unscaled, added
// to the scaled q.k), causal, tanh GELU MLP, LM head tied to the word embeddings. The fused
// query_key_value (3d, d) is per head: rows [h 3hd, h 3hd + hd) are head h's q, then its k, v.
#include <memory>
#include <string>

#include "attn/model/family.hpp"

namespace attn::model {

namespace {

template <class T>
class Bloom final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::add, B::activate, B::gate, B::layer_norm, B::linear, B::rms_norm;  // compute_dtype
    using B::c_;
    using B::feed_forward, B::gated_feed_forward;
    using B::w_;

  public:
    using B::B;

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = LayerNorm(word_embeddings[ids])                           (n, d)
        const Matrix<T> e = this->gather("word_embeddings.weight", ids);
        return layer_norm(e, w_.get("word_embeddings_layernorm.weight"),
                          w_.get("word_embeddings_layernorm.bias"), c_.norm_eps);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const std::string p = "h." + std::to_string(layer) + ".";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        const auto linear_of = [&](const std::string& name, std::size_t out, std::size_t in) {
            return this->projection(p + name, out, in, WeightLayout::out_in);
        };
        // qkv = LayerNorm(h) query_key_value^T + b     (n, 3d): head i's q, k, v at (3i + 0, 1, 2)
        // hd
        const Matrix<T> x =
            layer_norm(h, get("input_layernorm.weight"), get("input_layernorm.bias"), c_.norm_eps);
        const Matrix<T> qkv = linear(x, linear_of("self_attention.query_key_value", 3 * d, d));
        // scores_h = q_h k_h^T / sqrt(hd) + m_h j, causal; h = h + concat dense^T   (n, d)
        LayerResult<T> r =
            this->attention({this->heads(qkv, H, 0, 3 * hd), this->heads(qkv, H, hd, 3 * hd),
                             this->heads(qkv, H, 2 * hd, 3 * hd)},
                            linear_of("self_attention.dense", d, d), keep, h);
        // h = h + dense_4h_to_h(gelu_tanh(dense_h_to_4h(LayerNorm(h))))  (n, I) -> (n, d)
        const Matrix<T> x2 = layer_norm(h, get("post_attention_layernorm.weight"),
                                        get("post_attention_layernorm.bias"), c_.norm_eps);
        feed_forward(h, x2, linear_of("mlp.dense_h_to_4h", I, d), c_.activation,
                     linear_of("mlp.dense_4h_to_h", d, I));
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>& h) override {
        // logits = ln_f(h[n-1]) word_embeddings^T                        (V)
        return this->lm_head(h, w_.get("ln_f.weight"), w_.get("ln_f.bias"),
                             "word_embeddings.weight");
    }
};

}  // namespace

ATTN_MODEL_FAMILY(make_bloom, Bloom)

}  // namespace attn::model
