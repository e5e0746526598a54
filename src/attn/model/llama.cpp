// Llama (Touvron et al. 2023; transformers' modeling_llama), and Mistral and Qwen2, which share
// its block: RMSNorm before attention and MLP, RoPE on q and k (split halves, the config's
// head_dim, rope_theta and rope_scaling), grouped K/V (num_key_value_heads), SwiGLU MLP, an LM
// head or the tied embedding. Mistral: a sliding window; Qwen2: q/k/v biases. nn.Linear weights.
#include <memory>
#include <string>

#include "attn/model/family.hpp"

namespace attn::model {

namespace {

template <class T>
class Llama final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::add, B::activate, B::gate, B::layer_norm, B::linear, B::rms_norm;  // compute_dtype
    using B::c_;
    using B::feed_forward, B::gated_feed_forward;
    using B::w_;

  public:
    using B::B;

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = embed_tokens[ids]                                         (n, d)
        return this->gather("model.embed_tokens.weight", ids);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, G = c_.num_kv_heads;
        const std::size_t hd = c_.head_dim, I = c_.intermediate_size;
        const std::string p = "model.layers." + std::to_string(layer) + ".";
        // nn.Linear (out, in), with the bias Qwen2 gives q, k and v
        const auto linear_of = [&](const std::string& name, std::size_t out, std::size_t in) {
            return this->projection(p + name, out, in, WeightLayout::out_in);
        };
        // q = x q_proj^T (n, H hd), k and v (n, G hd), x = RMSNorm(h); head i at i hd
        const Matrix<T> x = rms_norm(h, w_.get(p + "input_layernorm.weight"), c_.norm_eps);
        const Matrix<T> q = linear(x, linear_of("self_attn.q_proj", H * hd, d));
        const Matrix<T> k = linear(x, linear_of("self_attn.k_proj", G * hd, d));
        const Matrix<T> v = linear(x, linear_of("self_attn.v_proj", G * hd, d));
        // scores_h = rope(q_h) rope(k_{h / (H/G)})^T / sqrt(hd), causal (and the window);
        // h = h + concat_h(softmax(scores_h) v_{h / (H/G)}) o_proj^T                (n, d)
        LayerResult<T> r = this->attention(
            {this->heads(q, H, 0, hd), this->heads(k, G, 0, hd), this->heads(v, G, 0, hd)},
            linear_of("self_attn.o_proj", d, H * hd), keep, h);
        // h = h + down(silu(gate(x2)) * up(x2)),  x2 = RMSNorm(h)        (n, I) -> (n, d)
        const Matrix<T> x2 =
            rms_norm(h, w_.get(p + "post_attention_layernorm.weight"), c_.norm_eps);
        gated_feed_forward(h, x2, linear_of("mlp.gate_proj", I, d), linear_of("mlp.up_proj", I, d),
                           c_.activation, linear_of("mlp.down_proj", d, I));
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>& h) override {
        // logits = RMSNorm(h[n-1]) lm_head^T (or embed_tokens^T when tied)   (V)
        return this->lm_head(
            h, w_.get("model.norm.weight"), nullptr,
            c_.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight");
    }
};

}  // namespace

ATTN_MODEL_FAMILY(make_llama, Llama)

}  // namespace attn::model
