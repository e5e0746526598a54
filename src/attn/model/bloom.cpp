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
    using B::w_;

  public:
    using B::B;

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = LayerNorm(word_embeddings[ids])                           (n, d)
        const Matrix<T> e = this->gather("word_embeddings.weight", ids);
        return layer_norm(e, w_.get("word_embeddings_layernorm.weight"),
                          w_.get("word_embeddings_layernorm.bias"), c_.norm_eps);
    }

    LayerResult<T> block(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const std::string p = "h." + std::to_string(layer) + ".";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        const Matrix<T> x =
            layer_norm(h, get("input_layernorm.weight"), get("input_layernorm.bias"), c_.norm_eps);
        const T* qkv = get("self_attention.query_key_value.weight");
        const T* qkv_b = get("self_attention.query_key_value.bias");
        LayerWeights<T> lw;
        for (std::size_t i = 0; i < H; ++i) {
            const auto rows = [&](std::size_t part) {
                const std::size_t r0 = (3 * i + part) * hd;
                return Projection<T>{MatrixRef<T>{qkv + r0 * d, hd, d, d}, WeightLayout::out_in,
                                     qkv_b + r0};
            };
            lw.query.push_back(rows(0));
            lw.key.push_back(rows(1));
            lw.value.push_back(rows(2));
        }
        lw.output = dense(get("self_attention.dense.weight"), d, d, WeightLayout::out_in,
                          get("self_attention.dense.bias"));
        LayerInput<T> in;
        in.x = MatrixRef<T>{x.data(), x.shape(0), d, d};
        // scores_h = q_h k_h^T / sqrt(hd) + m_h j                        (n, n)
        LayerResult<T> r = forward(in, lw, this->scheme_, this->options(keep));
        add(h, r.output);
        // h = h + dense_4h_to_h(gelu_tanh(dense_h_to_4h(LayerNorm(h))))  (n, I) -> (n, d)
        const Matrix<T> x2 = layer_norm(h, get("post_attention_layernorm.weight"),
                                        get("post_attention_layernorm.bias"), c_.norm_eps);
        Matrix<T> a = linear(x2, dense(get("mlp.dense_h_to_4h.weight"), I, d, WeightLayout::out_in,
                                       get("mlp.dense_h_to_4h.bias")));
        activate(a, c_.activation);
        add(h, linear(a, dense(get("mlp.dense_4h_to_h.weight"), d, I, WeightLayout::out_in,
                               get("mlp.dense_4h_to_h.bias"))));
        w_.end_layer(layer);
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>& h) override {
        // logits = ln_f(h[n-1]) word_embeddings^T                        (V)
        const Matrix<T> last = this->last_row(h);
        const Matrix<T> y =
            layer_norm(last, w_.get("ln_f.weight"), w_.get("ln_f.bias"), c_.norm_eps);
        return this->logits("word_embeddings.weight", std::span<const T>(y.data(), y.size()));
    }
};

}  // namespace

template <class T>
std::unique_ptr<FamilyForward<T>> make_bloom(const ModelConfig& c, const TensorSource& s,
                                             std::size_t n) {
    return std::make_unique<Bloom<T>>(c, s, n);
}
template std::unique_ptr<FamilyForward<float>> make_bloom(const ModelConfig&, const TensorSource&,
                                                          std::size_t);
template std::unique_ptr<FamilyForward<double>> make_bloom(const ModelConfig&, const TensorSource&,
                                                           std::size_t);

}  // namespace attn::model
