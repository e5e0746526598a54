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
    using B::c_;
    using B::w_;

  public:
    using B::B;

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // e = word[ids] + position[0..n) + token_type[0]                 (n, d)
        const std::size_t d = c_.hidden_size;
        Matrix<T> e = this->gather("embeddings.word_embeddings.weight", ids);
        add(e, learned_positions());
        std::vector<T> type0(d);
        w_.rows("embeddings.token_type_embeddings.weight", 0, 1, type0.data());
        for (std::size_t i = 0; i < e.shape(0); ++i)
            for (std::size_t j = 0; j < d; ++j) e(i, j) += type0[j];
        // h0 = LayerNorm(e)
        return layer_norm(e, w_.get("embeddings.LayerNorm.weight"),
                          w_.get("embeddings.LayerNorm.bias"), c_.norm_eps);
    }

    Matrix<T> learned_positions() override {
        if (this->n_ > c_.max_positions)
            throw std::invalid_argument("bert has " + std::to_string(c_.max_positions) +
                                        " positions (max_position_embeddings); the text has " +
                                        std::to_string(this->n_) + " tokens");
        Matrix<T> p({this->n_, c_.hidden_size});
        w_.rows("embeddings.position_embeddings.weight", 0, this->n_, p.data());
        return p;
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const std::string p = "encoder.layer." + std::to_string(layer) + ".";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        const auto linear_of = [&](const std::string& name, std::size_t out, std::size_t in) {
            return dense(get(name + ".weight"), out, in, WeightLayout::out_in, get(name + ".bias"));
        };
        // q, k, v = h W^T + b (n, H hd): nn.Linear (H hd, d); head i at i hd
        const Matrix<T> q = linear(h, linear_of("attention.self.query", H * hd, d));
        const Matrix<T> k = linear(h, linear_of("attention.self.key", H * hd, d));
        const Matrix<T> v = linear(h, linear_of("attention.self.value", H * hd, d));
        LayerResult<T> r = this->attention(
            {this->heads(q, H, 0, hd), this->heads(k, H, 0, hd), this->heads(v, H, 0, hd)},
            linear_of("attention.output.dense", d, H * hd), keep);
        // h = LayerNorm(h + dense(attention))                            (n, d)
        add(r.output, h);
        h = layer_norm(r.output, get("attention.output.LayerNorm.weight"),
                       get("attention.output.LayerNorm.bias"), c_.norm_eps);
        // h = LayerNorm(h + dense(gelu(intermediate(h))))                (n, I) -> (n, d)
        Matrix<T> o = feed_forward(h, linear_of("intermediate.dense", I, d), c_.activation,
                                   linear_of("output.dense", d, I));
        add(o, h);
        h = layer_norm(o, get("output.LayerNorm.weight"), get("output.LayerNorm.bias"),
                       c_.norm_eps);
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>&) override {
        throw std::logic_error("bert has no next-token head");
    }
};

}  // namespace

template <class T>
std::unique_ptr<FamilyForward<T>> make_bert(const ModelConfig& c, const TensorSource& s,
                                            std::size_t n) {
    return std::make_unique<Bert<T>>(c, s, n);
}
template std::unique_ptr<FamilyForward<float>> make_bert(const ModelConfig&, const TensorSource&,
                                                         std::size_t);
template std::unique_ptr<FamilyForward<double>> make_bert(const ModelConfig&, const TensorSource&,
                                                          std::size_t);

}  // namespace attn::model
