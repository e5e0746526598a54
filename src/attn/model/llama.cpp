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
    using B::w_;

  public:
    using B::B;

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = embed_tokens[ids]                                         (n, d)
        return this->gather("model.embed_tokens.weight", ids);
    }

    LayerResult<T> block(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, G = c_.num_kv_heads;
        const std::size_t hd = c_.head_dim, I = c_.intermediate_size;
        const std::string p = "model.layers." + std::to_string(layer) + ".";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        const auto bias = [&](const std::string& name) -> const T* {
            return w_.has(p + name) ? get(name) : nullptr;
        };
        // x = RMSNorm(h)                                                 (n, d)
        const Matrix<T> x = rms_norm(h, get("input_layernorm.weight"), c_.norm_eps);
        // q_proj (H hd, d), k_proj and v_proj (G hd, d): head i = rows i hd .. (i+1) hd
        LayerWeights<T> lw;
        const auto heads = [&](const char* name, std::size_t count, auto& out) {
            const std::string stem = std::string("self_attn.") + name;
            const T* w = get(stem + ".weight");
            const T* b = bias(stem + ".bias");
            for (std::size_t i = 0; i < count; ++i)
                out.push_back(Projection<T>{MatrixRef<T>{w + i * hd * d, hd, d, d},
                                            WeightLayout::out_in, b ? b + i * hd : nullptr});
        };
        heads("q_proj", H, lw.query);
        heads("k_proj", G, lw.key);
        heads("v_proj", G, lw.value);
        lw.output = dense(get("self_attn.o_proj.weight"), d, H * hd, WeightLayout::out_in,
                          bias("self_attn.o_proj.bias"));
        LayerInput<T> in;
        in.x = MatrixRef<T>{x.data(), x.shape(0), d, d};
        // scores_h = rope(q_h) rope(k_{h / (H/G)})^T / sqrt(hd), causal (and the window)
        LayerResult<T> r = forward(in, lw, this->scheme_, this->options(keep));
        add(h, r.output);
        // h = h + down(silu(gate(x2)) * up(x2)),  x2 = RMSNorm(h)        (n, I) -> (n, d)
        const Matrix<T> x2 = rms_norm(h, get("post_attention_layernorm.weight"), c_.norm_eps);
        Matrix<T> g = linear(x2, dense(get("mlp.gate_proj.weight"), I, d, WeightLayout::out_in,
                                       bias("mlp.gate_proj.bias")));
        const Matrix<T> u = linear(x2, dense(get("mlp.up_proj.weight"), I, d, WeightLayout::out_in,
                                             bias("mlp.up_proj.bias")));
        gate(g, u, c_.activation);
        add(h, linear(g, dense(get("mlp.down_proj.weight"), d, I, WeightLayout::out_in,
                               bias("mlp.down_proj.bias"))));
        w_.end_layer(layer);
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>& h) override {
        // logits = RMSNorm(h[n-1]) lm_head^T (or embed_tokens^T when tied)   (V)
        const Matrix<T> last = this->last_row(h);
        const Matrix<T> y = rms_norm(last, w_.get("model.norm.weight"), c_.norm_eps);
        return this->logits(c_.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight",
                            std::span<const T>(y.data(), y.size()));
    }
};

}  // namespace

template <class T>
std::unique_ptr<FamilyForward<T>> make_llama(const ModelConfig& c, const TensorSource& s,
                                             std::size_t n) {
    return std::make_unique<Llama<T>>(c, s, n);
}
template std::unique_ptr<FamilyForward<float>> make_llama(const ModelConfig&, const TensorSource&,
                                                          std::size_t);
template std::unique_ptr<FamilyForward<double>> make_llama(const ModelConfig&, const TensorSource&,
                                                           std::size_t);

}  // namespace attn::model
