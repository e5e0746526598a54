// GPT-2 (Radford et al. 2019; transformers' modeling_gpt2, nanoGPT's model.py): pre-LN blocks,
// learned absolute positions added to the token embedding, causal attention, gelu_new MLP, the
// LM head tied to wte. Weights are Conv1D: stored (in, out), y = x W + b.
//
// config.json (key: default): vocab_size 50257, n_embd 768, n_layer 12, n_head 12, n_inner null
// = 4 n_embd, n_positions 1024 (the rows of wpe), layer_norm_epsilon 1e-5, activation_function
// gelu_new, tie_word_embeddings true.
#include <memory>
#include <string>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"", "transformer."};

// llama.cpp's converter: gpt2.KEY -> config.json; its tensor names (Conv1D stored (out, in)).
constexpr std::pair<std::string_view, std::string_view> kGgufKeys[] = {
    {"context_length", "n_positions"},  {"embedding_length", "n_embd"},
    {"block_count", "n_layer"},         {"feed_forward_length", "n_inner"},
    {"attention.head_count", "n_head"}, {"attention.layer_norm_epsilon", "layer_norm_epsilon"}};
constexpr GgufTensor kGgufTensors[] = {
    {"token_embd", "wte"},
    {"position_embd", "wpe"},
    {"output", "lm_head"},
    {"output_norm", "ln_f"},
    {"blk.{}.attn_norm", "h.{}.ln_1"},
    {"blk.{}.attn_qkv", "h.{}.attn.c_attn", GgufLayout::transposed},
    {"blk.{}.attn_output", "h.{}.attn.c_proj", GgufLayout::transposed},
    {"blk.{}.ffn_norm", "h.{}.ln_2"},
    {"blk.{}.ffn_up", "h.{}.mlp.c_fc", GgufLayout::transposed},
    {"blk.{}.ffn_down", "h.{}.mlp.c_proj", GgufLayout::transposed}};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 50257);
    c.hidden_size = k.size({"n_embd", "hidden_size"}, 768);
    c.num_layers = k.size({"n_layer", "num_hidden_layers"}, 12);
    c.num_heads = 12;
    read_heads(k, c, {"n_head", "num_attention_heads"}, {"n_head", "num_attention_heads"}, "");
    c.intermediate_size = k.size({"n_inner"}, 4 * c.hidden_size);
    c.max_positions = k.size({"n_positions", "max_position_embeddings"}, 1024);
    c.norm_eps = k.number("layer_norm_epsilon", 1e-5);
    c.activation = activation(k, "activation_function", k.text("activation_function", "gelu_new"));
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
}

struct Tensors {
    Tensor wte, wpe;  // (V, d), (max_positions, d)
    struct Block {
        NormWeights ln_1, ln_2;
        Linear c_attn, c_proj, c_fc, mlp_proj;  // Conv1D (in, out)
    };
    std::vector<Block> h;
    NormWeights ln_f;
    Tensor lm_head;  // (V, d); only when not tied to wte (a GGUF file's output)
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    Tensors w;
    w.wte = t.add("wte.weight", {c.vocab_size, d});
    w.wpe = t.add("wpe.weight", {c.max_positions, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string h = "h." + std::to_string(i) + ".";
        Tensors::Block b;
        b.ln_1 = t.layer_norm(h + "ln_1", d);
        b.c_attn = t.conv1d(h + "attn.c_attn", d, 3 * d);
        b.c_proj = t.conv1d(h + "attn.c_proj", d, d);
        b.ln_2 = t.layer_norm(h + "ln_2", d);
        b.c_fc = t.conv1d(h + "mlp.c_fc", d, I);
        b.mlp_proj = t.conv1d(h + "mlp.c_proj", I, d);
        w.h.push_back(b);
    }
    t.layer(-1);
    w.ln_f = t.layer_norm("ln_f", d);
    if (!c.tie_word_embeddings) w.lm_head = t.add_any({"lm_head.weight"}, {c.vocab_size, d});
    return w;
}

template <class T>
class Gpt2 final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::add, B::layer_norm, B::linear, B::feed_forward, B::projection;
    using B::c_;

  public:
    Gpt2(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = wte[ids] + wpe[0..n)                                      (n, d)
        Matrix<T> h = this->gather(t_.wte, ids);
        add(h, learned_positions());
        return h;
    }

    Matrix<T> learned_positions() override { return this->position_rows(t_.wpe, "n_positions"); }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t d = c_.hidden_size, H = c_.num_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.h[layer];
        // qkv = ln_1(h) c_attn + b                      (n, 3d): [q | k | v], head i at i hd
        const Matrix<T> x = layer_norm(h, b.ln_1);
        const Matrix<T> qkv = linear(x, projection(b.c_attn));
        // h = h + concat_i(softmax(q_i k_i^T / sqrt(hd) + causal) v_i) c_proj + b     (n, d)
        LayerResult<T> r = this->attention(layer,
                                           {this->heads(qkv, H, 0, hd), this->heads(qkv, H, d, hd),
                                            this->heads(qkv, H, 2 * d, hd)},
                                           projection(b.c_proj), keep, h);
        // h = h + c_proj(gelu_new(c_fc(ln_2(h))))                        (n, 4d) -> (n, d)
        const Matrix<T> x2 = layer_norm(h, b.ln_2);
        feed_forward(h, x2, projection(b.c_fc), c_.activation, projection(b.mlp_proj));
        return r;
    }

    LmHead head() override {
        // logits = ln_f(h[n-1]) wte^T (lm_head^T when untied)            (V)
        return {t_.ln_f, c_.tie_word_embeddings ? t_.wte : t_.lm_head};
    }

  private:
    Tensors t_;
};

}  // namespace

extern const Family gpt2_family{
    .model_type = "gpt2",
    .layers_key = "num_hidden_layers",
    .read_config = read_config,
    .naming = {kPrefixes},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = [](const ModelConfig& c, TensorTable& t) { return declare(c, t).wpe; },
    .forward_float = construct<Gpt2, float>,
    .forward_double = construct<Gpt2, double>,
    .lm_head = true,
    .gguf = {"gpt2", kGgufKeys, kGgufTensors},
};

}  // namespace attn::model
