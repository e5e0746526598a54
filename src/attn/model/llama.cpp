// Llama (Touvron et al. 2023; transformers' modeling_llama), and Mistral and Qwen2, which share
// its block: RMSNorm before attention and MLP, RoPE on q and k (split halves, the config's
// head_dim, rope_theta and rope_scaling), grouped K/V (num_key_value_heads), SwiGLU MLP, an LM
// head or the tied embedding. Mistral: a sliding window; Qwen2: q/k/v biases. nn.Linear weights.
//
// config.json (key: default): vocab_size 32000 (qwen2 151936), hidden_size 4096,
// intermediate_size 11008 (mistral 14336, qwen2 22016), num_hidden_layers 32,
// num_attention_heads 32, num_key_value_heads = heads (mistral 8), head_dim = hidden / heads,
// max_position_embeddings 2048 (mistral 131072, qwen2 32768), rms_norm_eps 1e-6, hidden_act
// silu, attention_bias and mlp_bias false, tie_word_embeddings false, rope_theta 1e4 and
// rope_scaling; mistral's sliding_window 4096 (null: none), qwen2's only with
// use_sliding_window.
#include <memory>
#include <string>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"model.", ""};

// llama.cpp's converter: ARCH.KEY -> config.json, and its tensor names; `llama` q and k rows
// permuted for interleaved RoPE (qwen2's are not: llama.cpp rotates its halves as HF does).
constexpr std::pair<std::string_view, std::string_view> kGgufKeys[] = {
    {"context_length", "max_position_embeddings"},
    {"embedding_length", "hidden_size"},
    {"block_count", "num_hidden_layers"},
    {"feed_forward_length", "intermediate_size"},
    {"attention.head_count", "num_attention_heads"},
    {"attention.head_count_kv", "num_key_value_heads"},
    {"attention.key_length", "head_dim"},
    {"attention.layer_norm_rms_epsilon", "rms_norm_eps"},
    {"rope.freq_base", "rope_theta"}};
template <GgufLayout qk>
constexpr GgufTensor kGgufTensors[] = {{"token_embd", "embed_tokens"},
                                       {"output", "lm_head"},
                                       {"output_norm", "norm"},
                                       {"blk.{}.attn_norm", "layers.{}.input_layernorm"},
                                       {"blk.{}.attn_q", "layers.{}.self_attn.q_proj", qk},
                                       {"blk.{}.attn_k", "layers.{}.self_attn.k_proj", qk},
                                       {"blk.{}.attn_v", "layers.{}.self_attn.v_proj"},
                                       {"blk.{}.attn_output", "layers.{}.self_attn.o_proj"},
                                       {"blk.{}.ffn_norm", "layers.{}.post_attention_layernorm"},
                                       {"blk.{}.ffn_gate", "layers.{}.mlp.gate_proj"},
                                       {"blk.{}.ffn_up", "layers.{}.mlp.up_proj"},
                                       {"blk.{}.ffn_down", "layers.{}.mlp.down_proj"}};
constexpr GgufNames kLlamaGguf{"llama", kGgufKeys, kGgufTensors<GgufLayout::rope_interleaved>};
constexpr GgufNames kQwen2Gguf{"qwen2", kGgufKeys, kGgufTensors<GgufLayout::as_is>};

enum class Variant { llama, mistral, qwen2 };

template <Variant variant>
void read_config(const ConfigKeys& k, ModelConfig& c) {
    const bool mistral = variant == Variant::mistral, qwen2 = variant == Variant::qwen2;
    c.vocab_size = k.size({"vocab_size"}, qwen2 ? 151936 : 32000);
    c.hidden_size = k.size({"hidden_size"}, 4096);
    c.intermediate_size = k.size({"intermediate_size"}, mistral ? 14336 : qwen2 ? 22016 : 11008);
    c.num_layers = k.size({"num_hidden_layers"}, 32);
    c.num_heads = 32;
    read_heads(k, c, {"num_attention_heads"}, {"num_key_value_heads"}, "head_dim");
    if (mistral && k.find("num_key_value_heads") == nullptr) {
        c.num_kv_heads = 8;  // MistralConfig's default
        if (c.num_heads % 8 != 0) k.fail("num_key_value_heads", "absent: 8 does not divide heads");
    }
    const std::size_t max_positions = k.size({"max_position_embeddings"}, mistral ? 4096 * 32
                                                                          : qwen2 ? 32768
                                                                                  : 2048);
    c.norm = Norm::rms_norm;
    c.norm_eps = k.number("rms_norm_eps", 1e-6);
    c.activation = activation(k, "hidden_act", k.text("hidden_act", "silu"));
    c.gated_mlp = true;
    const bool attention_bias = k.flag("attention_bias", false);
    c.qkv_bias = qwen2 || attention_bias;
    c.o_bias = attention_bias;
    c.mlp_bias = k.flag("mlp_bias", false);
    c.tie_word_embeddings = k.flag("tie_word_embeddings", false);
    c.positions = positions::Scheme::rope;
    parse_rope(k, c, max_positions);
    if (mistral) {
        // Absent: MistralConfig's 4096; null: no window.
        if (!k.object().contains("sliding_window"))
            c.sliding_window = 4096;
        else if (k.find("sliding_window") != nullptr)
            c.sliding_window = k.size({"sliding_window"}, 4096);
    } else if (qwen2 && k.flag("use_sliding_window", false)) {
        c.sliding_window = k.size({"sliding_window"}, 4096);
    }
}

struct Tensors {
    Tensor embed_tokens;  // (V, d)
    struct Block {
        NormWeights input_norm, post_attention_norm;  // RMSNorm (d)
        Linear q, k, v, o, gate, up, down;            // nn.Linear (out, in)
    };
    std::vector<Block> layers;
    NormWeights norm;
    Tensor lm_head;  // (V, d); absent when tied to embed_tokens
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t q = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
    Tensors w;
    w.embed_tokens = t.add("embed_tokens.weight", {c.vocab_size, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string l = "layers." + std::to_string(i) + ".";
        Tensors::Block b;
        b.input_norm = t.rms_norm(l + "input_layernorm", d);
        b.q = t.linear(l + "self_attn.q_proj", q, d, c.qkv_bias);
        b.k = t.linear(l + "self_attn.k_proj", kv, d, c.qkv_bias);
        b.v = t.linear(l + "self_attn.v_proj", kv, d, c.qkv_bias);
        b.o = t.linear(l + "self_attn.o_proj", d, q, c.o_bias);
        b.post_attention_norm = t.rms_norm(l + "post_attention_layernorm", d);
        b.gate = t.linear(l + "mlp.gate_proj", I, d, c.mlp_bias);
        b.up = t.linear(l + "mlp.up_proj", I, d, c.mlp_bias);
        b.down = t.linear(l + "mlp.down_proj", d, I, c.mlp_bias);
        w.layers.push_back(b);
    }
    t.layer(-1);
    w.norm = t.rms_norm("norm", d);
    if (!c.tie_word_embeddings) w.lm_head = t.add_any({"lm_head.weight"}, {c.vocab_size, d});
    return w;
}

template <class T>
class Llama final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::c_;
    using B::rms_norm, B::linear, B::gated_feed_forward, B::projection;

  public:
    Llama(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // h0 = embed_tokens[ids]                                         (n, d)
        return this->gather(t_.embed_tokens, ids);
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, G = c_.num_kv_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.layers[layer];
        // q = x q_proj^T (n, H hd), k and v (n, G hd), x = RMSNorm(h); head i at i hd (with
        // the bias Qwen2 gives q, k and v)
        const Matrix<T> x = rms_norm(h, b.input_norm);
        const Matrix<T> q = linear(x, projection(b.q));
        const Matrix<T> k = linear(x, projection(b.k));
        const Matrix<T> v = linear(x, projection(b.v));
        // scores_h = rope(q_h) rope(k_{h / (H/G)})^T / sqrt(hd), causal (and the window);
        // h = h + concat_h(softmax(scores_h) v_{h / (H/G)}) o_proj^T                (n, d)
        LayerResult<T> r = this->attention(
            layer, {this->heads(q, H, 0, hd), this->heads(k, G, 0, hd), this->heads(v, G, 0, hd)},
            projection(b.o), keep, h);
        // h = h + down(silu(gate(x2)) * up(x2)),  x2 = RMSNorm(h)        (n, I) -> (n, d)
        const Matrix<T> x2 = rms_norm(h, b.post_attention_norm);
        gated_feed_forward(h, x2, projection(b.gate), projection(b.up), c_.activation,
                           projection(b.down));
        return r;
    }

    LmHead head() override {
        // logits = RMSNorm(h[n-1]) lm_head^T (or embed_tokens^T when tied)   (V)
        return {t_.norm, c_.tie_word_embeddings ? t_.embed_tokens : t_.lm_head};
    }

  private:
    Tensors t_;
};

constexpr Family llama_like(std::string_view model_type,
                            void (*read)(const ConfigKeys&, ModelConfig&), GgufNames gguf = {}) {
    return Family{
        .model_type = model_type,
        .layers_key = "num_hidden_layers",
        .read_config = read,
        .naming = {kPrefixes},
        .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
        .position_table = nullptr,
        .forward_float = construct<Llama, float>,
        .forward_double = construct<Llama, double>,
        .lm_head = true,
        .gguf = gguf,
    };
}

}  // namespace

extern const Family llama_family = llama_like("llama", read_config<Variant::llama>, kLlamaGguf);
extern const Family mistral_family = llama_like("mistral", read_config<Variant::mistral>);
extern const Family qwen2_family = llama_like("qwen2", read_config<Variant::qwen2>, kQwen2Gguf);

}  // namespace attn::model
