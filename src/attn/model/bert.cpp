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
        if (this->n_ > c_.max_positions)
            throw std::invalid_argument("bert has " + std::to_string(c_.max_positions) +
                                        " positions (max_position_embeddings); the text has " +
                                        std::to_string(this->n_) + " tokens");
        Matrix<T> p({this->n_, c_.hidden_size});
        w_.rows("embeddings.position_embeddings.weight", 0, this->n_, p.data());
        return p;
    }

    LayerResult<T> block(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::string p = "encoder.layer." + std::to_string(layer) + ".";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        // q, k, v: nn.Linear (H hd, d); head i = rows i hd .. (i+1) hd
        LayerWeights<T> lw;
        for (const char* part : {"query", "key", "value"}) {
            const T* w = get(std::string("attention.self.") + part + ".weight");
            const T* b = get(std::string("attention.self.") + part + ".bias");
            auto& heads = part[0] == 'q' ? lw.query : part[0] == 'k' ? lw.key : lw.value;
            for (std::size_t i = 0; i < H; ++i)
                heads.push_back(Projection<T>{MatrixRef<T>{w + i * hd * d, hd, d, d},
                                              WeightLayout::out_in, b + i * hd});
        }
        lw.output = dense(get("attention.output.dense.weight"), d, H * hd, WeightLayout::out_in,
                          get("attention.output.dense.bias"));
        LayerInput<T> in;
        in.x = MatrixRef<T>{h.data(), h.shape(0), d, d};
        LayerResult<T> r = forward(in, lw, this->scheme_, this->options(keep));
        // h = LayerNorm(h + dense(attention))                            (n, d)
        Matrix<T> s = r.output;
        add(s, h);
        h = layer_norm(s, get("attention.output.LayerNorm.weight"),
                       get("attention.output.LayerNorm.bias"), c_.norm_eps);
        // h = LayerNorm(h + dense(gelu(intermediate(h))))                (n, I) -> (n, d)
        const std::size_t I = c_.intermediate_size;
        Matrix<T> a = linear(h, dense(get("intermediate.dense.weight"), I, d, WeightLayout::out_in,
                                      get("intermediate.dense.bias")));
        activate(a, c_.activation);
        Matrix<T> o = linear(a, dense(get("output.dense.weight"), d, I, WeightLayout::out_in,
                                      get("output.dense.bias")));
        add(o, h);
        h = layer_norm(o, get("output.LayerNorm.weight"), get("output.LayerNorm.bias"),
                       c_.norm_eps);
        w_.end_layer(layer);
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
