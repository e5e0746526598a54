// The T5 encoder (Raffel et al. 2020; transformers' modeling_t5, T5EncoderModel): the shared
// embedding (not scaled), pre-norm blocks with T5's LayerNorm (RMS, no mean, no bias), scores
// q.k unscaled plus a learned bias by relative-position bucket, the table of block 0 used by
// every block; ReLU or gated-GELU feed-forward. Bidirectional; no next token.
#include <memory>
#include <stdexcept>
#include <string>

#include "attn/model/family.hpp"

namespace attn::model {

namespace {

const char* kTable = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight";

template <class T>
class T5 final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::add, B::activate, B::gate, B::layer_norm, B::linear, B::rms_norm;  // compute_dtype
    using B::c_;
    using B::w_;

  public:
    T5(const ModelConfig& c, const TensorSource& s, std::size_t n) : B(c, s, n) {
        // bias_h(i, j) = table[bucket(j - i), h], table (buckets, H) of block 0
        positions::SchemeConfig sc;
        sc.scheme = positions::Scheme::t5;
        sc.n_heads = c.num_heads;
        sc.buckets = c.t5;
        const runtime::TensorView t = w_.view(kTable);
        sc.t5_table = xt::xtensor<double, 2>({t.shape[0], t.shape[1]});
        t.to_double(std::span<double>(sc.t5_table.data(), sc.t5_table.size()));
        if (c.compute_dtype)  // model.to(dtype)
            runtime::round_all(*c.compute_dtype, sc.t5_table.data(), sc.t5_table.size());
        this->scheme_ = positions::PositionScheme<T>(sc, n);
    }

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = shared[ids] (encoder.embed_tokens when stored apart)      (n, d)
        return this->gather("encoder.embed_tokens.weight", ids);
    }

    LayerResult<T> block(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const std::string p = "encoder.block." + std::to_string(layer) + ".layer.";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        // x = RMS(h) w                                                   (n, d)
        const Matrix<T> x = rms_norm(h, get("0.layer_norm.weight"), c_.norm_eps);
        LayerWeights<T> lw;
        for (const char* part : {"q", "k", "v"}) {
            const T* w = get(std::string("0.SelfAttention.") + part + ".weight");
            auto& heads = part[0] == 'q' ? lw.query : part[0] == 'k' ? lw.key : lw.value;
            for (std::size_t i = 0; i < H; ++i)
                heads.push_back(
                    Projection<T>{MatrixRef<T>{w + i * hd * d, hd, d, d}, WeightLayout::out_in});
        }
        lw.output = dense(get("0.SelfAttention.o.weight"), d, H * hd, WeightLayout::out_in);
        LayerInput<T> in;
        in.x = MatrixRef<T>{x.data(), x.shape(0), d, d};
        // scores_h = q_h k_h^T + table[bucket(j - i), h]  (unscaled)     (n, n)
        LayerResult<T> r = forward(in, lw, this->scheme_, this->options(keep));
        add(h, r.output);
        // h = h + wo(relu(wi x2)) or wo(gelu_tanh(wi_0 x2) * wi_1 x2), x2 = RMS(h) w
        const Matrix<T> x2 = rms_norm(h, get("1.layer_norm.weight"), c_.norm_eps);
        Matrix<T> a;
        if (c_.gated_mlp) {
            a = linear(x2, dense(get("1.DenseReluDense.wi_0.weight"), I, d, WeightLayout::out_in));
            gate(a,
                 linear(x2, dense(get("1.DenseReluDense.wi_1.weight"), I, d, WeightLayout::out_in)),
                 c_.activation);
        } else {
            a = linear(x2, dense(get("1.DenseReluDense.wi.weight"), I, d, WeightLayout::out_in));
            activate(a, c_.activation);
        }
        add(h, linear(a, dense(get("1.DenseReluDense.wo.weight"), d, I, WeightLayout::out_in)));
        w_.end_layer(layer);
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>&) override {
        throw std::logic_error("the t5 encoder has no next-token head");
    }
};

}  // namespace

template <class T>
std::unique_ptr<FamilyForward<T>> make_t5(const ModelConfig& c, const TensorSource& s,
                                          std::size_t n) {
    return std::make_unique<T5<T>>(c, s, n);
}
template std::unique_ptr<FamilyForward<float>> make_t5(const ModelConfig&, const TensorSource&,
                                                       std::size_t);
template std::unique_ptr<FamilyForward<double>> make_t5(const ModelConfig&, const TensorSource&,
                                                        std::size_t);

}  // namespace attn::model
