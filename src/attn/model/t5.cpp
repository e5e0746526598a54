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
    using B::feed_forward, B::gated_feed_forward;
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

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const std::string p = "encoder.block." + std::to_string(layer) + ".layer.";
        // nn.Linear (out, in), no biases
        const auto linear_of = [&](const std::string& name, std::size_t out, std::size_t in) {
            return this->projection(p + name, out, in, WeightLayout::out_in);
        };
        // q, k, v = x W^T (n, H hd), x = RMS(h) w; head i at i hd
        const Matrix<T> x = rms_norm(h, w_.get(p + "0.layer_norm.weight"), c_.norm_eps);
        const Matrix<T> q = linear(x, linear_of("0.SelfAttention.q", H * hd, d));
        const Matrix<T> k = linear(x, linear_of("0.SelfAttention.k", H * hd, d));
        const Matrix<T> v = linear(x, linear_of("0.SelfAttention.v", H * hd, d));
        // scores_h = q_h k_h^T + table[bucket(j - i), h]  (unscaled); h = h + concat o^T
        LayerResult<T> r = this->attention(
            {this->heads(q, H, 0, hd), this->heads(k, H, 0, hd), this->heads(v, H, 0, hd)},
            linear_of("0.SelfAttention.o", d, H * hd), keep, h);
        // h = h + wo(relu(wi x2)) or wo(gelu_tanh(wi_0 x2) * wi_1 x2), x2 = RMS(h) w
        const Matrix<T> x2 = rms_norm(h, w_.get(p + "1.layer_norm.weight"), c_.norm_eps);
        const auto wo = linear_of("1.DenseReluDense.wo", d, I);
        if (c_.gated_mlp)
            gated_feed_forward(h, x2, linear_of("1.DenseReluDense.wi_0", I, d),
                               linear_of("1.DenseReluDense.wi_1", I, d), c_.activation, wo);
        else
            feed_forward(h, x2, linear_of("1.DenseReluDense.wi", I, d), c_.activation, wo);
        return r;
    }
};

}  // namespace

ATTN_MODEL_FAMILY(make_t5, T5)

}  // namespace attn::model
