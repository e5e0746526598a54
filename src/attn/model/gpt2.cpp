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
    using B::feed_forward, B::gated_feed_forward;
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
        return this->position_rows("wpe.weight", "n_positions");
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const std::size_t I = c_.intermediate_size;
        const std::string p = "h." + std::to_string(layer) + ".";
        const auto get = [&](const std::string& name) { return w_.get(p + name); };
        const auto conv1d = [&](const std::string& name, std::size_t in, std::size_t out) {
            return this->projection(p + name, in, out, WeightLayout::in_out);
        };
        // qkv = ln_1(h) c_attn + b                      (n, 3d): [q | k | v], head i at i hd
        const Matrix<T> x = layer_norm(h, get("ln_1.weight"), get("ln_1.bias"), c_.norm_eps);
        const Matrix<T> qkv = linear(x, conv1d("attn.c_attn", d, 3 * d));
        // h = h + concat_i(softmax(q_i k_i^T / sqrt(hd) + causal) v_i) c_proj + b     (n, d)
        LayerResult<T> r = this->attention({this->heads(qkv, H, 0, hd), this->heads(qkv, H, d, hd),
                                            this->heads(qkv, H, 2 * d, hd)},
                                           conv1d("attn.c_proj", d, d), keep, h);
        // h = h + c_proj(gelu_new(c_fc(ln_2(h))))                        (n, 4d) -> (n, d)
        const Matrix<T> x2 = layer_norm(h, get("ln_2.weight"), get("ln_2.bias"), c_.norm_eps);
        feed_forward(h, x2, conv1d("mlp.c_fc", d, I), c_.activation, conv1d("mlp.c_proj", I, d));
        return r;
    }

    std::vector<T> next_logits(const Matrix<T>& h) override {
        // logits = ln_f(h[n-1]) wte^T                                    (V)
        return this->lm_head(h, w_.get("ln_f.weight"), w_.get("ln_f.bias"), "wte.weight");
    }
};

}  // namespace

ATTN_MODEL_FAMILY(make_gpt2, Gpt2)

}  // namespace attn::model
