// The T5 encoder (Raffel et al. 2020; transformers' modeling_t5, T5EncoderModel): the shared
// embedding (not scaled), pre-norm blocks with T5's LayerNorm (RMS, no mean, no bias), scores
// q.k unscaled plus a learned bias by relative-position bucket, the table of block 0 used by
// every block; ReLU or gated-GELU feed-forward. Bidirectional; no next token.
//
// config.json (key: default): vocab_size 32128, d_model 512, d_kv 64, d_ff 2048, num_layers 6,
// num_heads 8, layer_norm_epsilon 1e-6, feed_forward_proj relu ("ACT" or "gated-ACT";
// "gated-gelu": gelu_new, gated), relative_attention_num_buckets 32,
// relative_attention_max_distance 128.
#include <memory>
#include <stdexcept>
#include <string>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"
#include "attn/positions/parameter_error.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {""};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 32128);
    c.hidden_size = k.size({"d_model"}, 512);
    c.head_dim = k.size({"d_kv"}, 64);
    c.intermediate_size = k.size({"d_ff"}, 2048);
    c.num_layers = k.size({"num_layers"}, 6);
    c.num_heads = c.num_kv_heads = k.size({"num_heads"}, 8);
    c.norm = Norm::rms_norm;
    c.norm_eps = k.number("layer_norm_epsilon", 1e-6);
    // feed_forward_proj: "ACT" or "gated-ACT"; "gated-gelu" means gelu_new.
    c.feed_forward_proj = k.text("feed_forward_proj", "relu");
    const auto dash = c.feed_forward_proj.find('-');
    std::string act = c.feed_forward_proj;
    if (dash != std::string::npos) {
        if (c.feed_forward_proj.substr(0, dash) != "gated" ||
            c.feed_forward_proj.find('-', dash + 1) != std::string::npos)
            k.fail("feed_forward_proj",
                   "'" + c.feed_forward_proj + "' is not ACT or gated-ACT (relu, gated-gelu)");
        act = c.feed_forward_proj.substr(dash + 1);
        c.gated_mlp = true;
    }
    c.activation = c.feed_forward_proj == "gated-gelu" ? Activation::gelu_tanh
                                                       : activation(k, "feed_forward_proj", act);
    c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
    c.causal = false;
    c.scale_scores = false;
    c.positions = positions::Scheme::t5;
    c.t5.num_buckets = static_cast<std::int64_t>(k.size({"relative_attention_num_buckets"}, 32));
    c.t5.max_distance = static_cast<std::int64_t>(k.size({"relative_attention_max_distance"}, 128));
    c.t5.bidirectional = true;
    try {
        positions::validate(c.t5);
    } catch (const positions::ParameterError& e) {
        throw ConfigError(e.parameter == "num_buckets" ? "relative_attention_num_buckets"
                                                       : "relative_attention_max_distance",
                          e.detail);
    }
}

struct Tensors {
    Tensor embed;          // (V, d): encoder.embed_tokens, else shared
    Tensor relative_bias;  // (buckets, H), block 0's
    struct Block {
        NormWeights attention_norm, mlp_norm;   // T5's LayerNorm: RMS, weight only
        Linear q, k, v, o, wi, wi_0, wi_1, wo;  // nn.Linear (out, in), no biases
    };
    std::vector<Block> block;
    NormWeights final_norm;
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t hd = c.num_heads * c.head_dim;
    Tensors w;
    w.embed = t.add_any({"encoder.embed_tokens.weight", "shared.weight"}, {c.vocab_size, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string b = "encoder.block." + std::to_string(i) + ".layer.";
        Tensors::Block k;
        k.attention_norm = t.rms_norm(b + "0.layer_norm", d);
        k.q = t.linear(b + "0.SelfAttention.q", hd, d, false);
        k.k = t.linear(b + "0.SelfAttention.k", hd, d, false);
        k.v = t.linear(b + "0.SelfAttention.v", hd, d, false);
        k.o = t.linear(b + "0.SelfAttention.o", d, hd, false);
        if (i == 0)
            w.relative_bias = t.add(b + "0.SelfAttention.relative_attention_bias.weight",
                                    {static_cast<std::uint64_t>(c.t5.num_buckets), c.num_heads});
        k.mlp_norm = t.rms_norm(b + "1.layer_norm", d);
        if (c.gated_mlp) {
            k.wi_0 = t.linear(b + "1.DenseReluDense.wi_0", I, d, false);
            k.wi_1 = t.linear(b + "1.DenseReluDense.wi_1", I, d, false);
        } else {
            k.wi = t.linear(b + "1.DenseReluDense.wi", I, d, false);
        }
        k.wo = t.linear(b + "1.DenseReluDense.wo", d, I, false);
        w.block.push_back(k);
    }
    t.layer(-1);
    w.final_norm = t.rms_norm("encoder.final_layer_norm", d);
    return w;
}

template <class T>
class T5 final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::c_;
    using B::rms_norm, B::linear, B::feed_forward, B::gated_feed_forward, B::projection;
    using B::w_;

  public:
    T5(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {
        // bias_h(i, j) = table[bucket(j - i), h], table (buckets, H) of block 0
        positions::SchemeConfig sc;
        sc.scheme = positions::Scheme::t5;
        sc.n_heads = c.num_heads;
        sc.buckets = c.t5;
        const runtime::TensorView t = w_.view(t_.relative_bias);
        sc.t5_table = xt::xtensor<double, 2>({t.shape[0], t.shape[1]});
        t.to_double(std::span<double>(sc.t5_table.data(), sc.t5_table.size()));
        if (c.compute_dtype)  // model.to(dtype)
            runtime::round_all(*c.compute_dtype, sc.t5_table.data(), sc.t5_table.size());
        this->scheme_ = positions::PositionScheme<T>(sc, n);
    }

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = shared[ids] (encoder.embed_tokens when stored apart)      (n, d)
        return this->gather(t_.embed, ids);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.block[layer];
        // q, k, v = x W^T (n, H hd), x = RMS(h) w; head i at i hd
        const Matrix<T> x = rms_norm(h, b.attention_norm);
        const Matrix<T> q = linear(x, projection(b.q));
        const Matrix<T> k = linear(x, projection(b.k));
        const Matrix<T> v = linear(x, projection(b.v));
        // scores_h = q_h k_h^T + table[bucket(j - i), h]  (unscaled); h = h + concat o^T
        LayerResult<T> r = this->attention(
            layer, {this->heads(q, H, 0, hd), this->heads(k, H, 0, hd), this->heads(v, H, 0, hd)},
            projection(b.o), keep, h);
        // h = h + wo(relu(wi x2)) or wo(gelu_tanh(wi_0 x2) * wi_1 x2), x2 = RMS(h) w
        const Matrix<T> x2 = rms_norm(h, b.mlp_norm);
        const auto wo = projection(b.wo);
        if (c_.gated_mlp)
            gated_feed_forward(h, x2, projection(b.wi_0), projection(b.wi_1), c_.activation, wo);
        else
            feed_forward(h, x2, projection(b.wi), c_.activation, wo);
        return r;
    }

    void check_lens() override {
        throw std::invalid_argument(
            "t5: attn runs T5's encoder, and T5's LM head reads the decoder's output (no lens)");
    }

  private:
    Tensors t_;
};

}  // namespace

extern const Family t5_family{
    .model_type = "t5",
    .layers_key = "num_layers",
    .read_config = read_config,
    .naming = {kPrefixes},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = [](const ModelConfig& c,
                         TensorTable& t) { return declare(c, t).relative_bias; },
    .forward_float = construct<T5, float>,
    .forward_double = construct<T5, double>,
    .sentencepiece_bos = false,
    .sentencepiece_eos = true,
    .gguf = {},  // not read from GGUF files yet
};

}  // namespace attn::model
