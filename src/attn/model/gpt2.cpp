// GPT-2 (Radford et al. 2019; transformers' modeling_gpt2, nanoGPT's model.py): pre-LN blocks,
// learned absolute positions added to the token embedding, causal attention, gelu_new MLP, the
// LM head tied to wte. Weights are Conv1D: stored (in, out), y = x W + b.
#include <memory>
#include <stdexcept>
#include <string>

#include "attn/model/family.hpp"

namespace attn::model {

namespace {

template <class T>
class Gpt2 final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::add, B::activate, B::gate, B::layer_norm, B::linear, B::rms_norm;  // compute_dtype
    using B::c_;
    using B::w_;

  public:
    using B::B;

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = wte[ids] + wpe[0..n)                                      (n, d)
        Matrix<T> h = this->gather("wte.weight", ids);
        add(h, learned_positions());
        return h;
    }

    Matrix<T> learned_positions() override {
        if (this->n_ > c_.max_positions)
            throw std::invalid_argument("gpt2 has " + std::to_string(c_.max_positions) +
                                        " positions (n_positions); the text has " +
                                        std::to_string(this->n_) + " tokens");
        Matrix<T> p({this->n_, c_.hidden_size});
        w_.rows("wpe.weight", 0, this->n_, p.data());
        return p;
    }

    LayerResult<T> block(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::string p = "h." + std::to_string(layer) + ".";
        const auto get = [&](const char* name) { return w_.get(p + name); };
        // x = ln_1(h)                                                    (n, d)
        const Matrix<T> x = layer_norm(h, get("ln_1.weight"), get("ln_1.bias"), c_.norm_eps);
        // c_attn (d, 3d) Conv1D: columns [q | k | v], head i's q columns i hd .. (i+1) hd
        const T* qkv = get("attn.c_attn.weight");
        const T* qkv_b = get("attn.c_attn.bias");
        LayerWeights<T> lw;
        for (std::size_t i = 0; i < H; ++i) {
            const auto column = [&](std::size_t part) {
                const std::size_t c0 = part * d + i * hd;
                return Projection<T>{MatrixRef<T>{qkv + c0, d, hd, 3 * d}, WeightLayout::in_out,
                                     qkv_b + c0};
            };
            lw.query.push_back(column(0));
            lw.key.push_back(column(1));
            lw.value.push_back(column(2));
        }
        // output = concat(heads) c_proj + b                              (n, d)
        lw.output =
            dense(get("attn.c_proj.weight"), d, d, WeightLayout::in_out, get("attn.c_proj.bias"));
        LayerInput<T> in;
        in.x = MatrixRef<T>{x.data(), x.shape(0), d, d};
        LayerResult<T> r = forward(in, lw, this->scheme_, this->options(keep));
        // h = h + attn(ln_1(h))
        add(h, r.output);
        // h = h + c_proj(gelu_new(c_fc(ln_2(h))))                        (n, 4d) -> (n, d)
        const Matrix<T> x2 = layer_norm(h, get("ln_2.weight"), get("ln_2.bias"), c_.norm_eps);
        const std::size_t I = c_.intermediate_size;
        Matrix<T> a = linear(
            x2, dense(get("mlp.c_fc.weight"), d, I, WeightLayout::in_out, get("mlp.c_fc.bias")));
        activate(a, c_.activation);
        add(h, linear(a, dense(get("mlp.c_proj.weight"), I, d, WeightLayout::in_out,
                               get("mlp.c_proj.bias"))));
        w_.end_layer(layer);
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>& h) override {
        // logits = ln_f(h[n-1]) wte^T                                    (V)
        const Matrix<T> last = this->last_row(h);
        const Matrix<T> y =
            layer_norm(last, w_.get("ln_f.weight"), w_.get("ln_f.bias"), c_.norm_eps);
        return this->logits("wte.weight", std::span<const T>(y.data(), y.size()));
    }
};

}  // namespace

template <class T>
std::unique_ptr<FamilyForward<T>> make_gpt2(const ModelConfig& c, const TensorSource& s,
                                            std::size_t n) {
    return std::make_unique<Gpt2<T>>(c, s, n);
}
template std::unique_ptr<FamilyForward<float>> make_gpt2(const ModelConfig&, const TensorSource&,
                                                         std::size_t);
template std::unique_ptr<FamilyForward<double>> make_gpt2(const ModelConfig&, const TensorSource&,
                                                          std::size_t);

}  // namespace attn::model
