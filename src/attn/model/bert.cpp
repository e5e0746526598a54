// BERT's encoder (Devlin et al. 2019; transformers' modeling_bert): word + learned position +
// token type 0 embeddings through a LayerNorm, then post-LN blocks: attention, add, LayerNorm;
// erf GELU MLP, add, LayerNorm. Bidirectional; nn.Linear weights (out, in). No next token.
#include <memory>
#include <stdexcept>
#include <string>

#include "attn/model/family.hpp"

namespace attn::model {

namespace {

template <class T>
class Bert final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::add, B::activate, B::gate, B::layer_norm, B::linear, B::rms_norm;  // compute_dtype
    using B::c_;
    using B::feed_forward, B::gated_feed_forward;
    using B::w_;

  public:
    using B::B;

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // e = (word[ids] + token_type[0]) + position[0..n)               (n, d)
        const std::size_t d = c_.hidden_size;
        Matrix<T> e = this->gather("embeddings.word_embeddings.weight", ids);
        std::vector<T> type0(d);
        w_.rows("embeddings.token_type_embeddings.weight", 0, 1, type0.data());
        for (std::size_t i = 0; i < e.shape(0); ++i)
            for (std::size_t j = 0; j < d; ++j) e(i, j) += type0[j];
        this->round(e);
        add(e, learned_positions());
        // h0 = LayerNorm(e)
        return layer_norm(e, w_.get("embeddings.LayerNorm.weight"),
                          w_.get("embeddings.LayerNorm.bias"), c_.norm_eps);
    }

    Matrix<T> learned_positions() override {
        return this->position_rows("embeddings.position_embeddings.weight",
                                   "max_position_embeddings");
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const std::string p = "encoder.layer." + std::to_string(layer) + ".";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        const auto linear_of = [&](const std::string& name, std::size_t out, std::size_t in) {
            return this->projection(p + name, out, in, WeightLayout::out_in);
        };
        // q, k, v = h W^T + b (n, H hd): nn.Linear (H hd, d); head i at i hd
        const Matrix<T> q = linear(h, linear_of("attention.self.query", H * hd, d));
        const Matrix<T> k = linear(h, linear_of("attention.self.key", H * hd, d));
        const Matrix<T> v = linear(h, linear_of("attention.self.value", H * hd, d));
        LayerResult<T> r = this->attention(
            {this->heads(q, H, 0, hd), this->heads(k, H, 0, hd), this->heads(v, H, 0, hd)},
            linear_of("attention.output.dense", d, H * hd), keep, h);
        // h = LayerNorm(h + dense(attention))                            (n, d)
        h = layer_norm(h, get("attention.output.LayerNorm.weight"),
                       get("attention.output.LayerNorm.bias"), c_.norm_eps);
        // h = LayerNorm(h + dense(gelu(intermediate(h))))                (n, I) -> (n, d)
        const Matrix<T> x = h;
        feed_forward(h, x, linear_of("intermediate.dense", I, d), c_.activation,
                     linear_of("output.dense", d, I));
        h = layer_norm(h, get("output.LayerNorm.weight"), get("output.LayerNorm.bias"),
                       c_.norm_eps);
        return r;
    }
};

}  // namespace

ATTN_MODEL_FAMILY(make_bert, Bert)

}  // namespace attn::model
