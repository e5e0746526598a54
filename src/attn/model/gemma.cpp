// Gemma 2 and Gemma 3's text model (Gemma Team 2024, 2025; transformers' modeling_gemma2 and
// modeling_gemma3, Gemma3ForCausalLM): embeddings times sqrt(d) (the factor rounded to the
// compute dtype), blocks with four RMSNorms x / rms(x) (1 + w) (before and after attention and
// MLP), RoPE, grouped K/V, scores scaled by query_pre_attn_scalar^-0.5, sliding-window and
// global layers, a GeGLU MLP (tanh GELU), the LM head tied to the embeddings.
// Gemma 2: the scores soft-capped cap tanh(s / cap) before the mask (attn_logit_softcapping),
// the even layers sliding unless layer_types says otherwise, the logits soft-capped
// (final_logit_softcapping). Gemma 3: per-head q_norm and k_norm before RoPE, no attention
// soft-cap, layer l global when (l + 1) % sliding_window_pattern == 0 (else layer_types), its
// sliding layers on rope_local_base_freq without rope_scaling (or rope_parameters'
// sliding_attention dictionary).
//
// config.json (key: gemma2 default, gemma3_text default): vocab_size 256000 / 262208,
// hidden_size 2304, intermediate_size 9216, num_hidden_layers 26, num_attention_heads 8,
// num_key_value_heads 4, head_dim 256, hidden_activation gelu_pytorch_tanh, rms_norm_eps 1e-6,
// max_position_embeddings 8192 / 131072, rope_theta 1e4 / 1e6, rope_local_base_freq (1e4),
// query_pre_attn_scalar 256, sliding_window 4096, attn_logit_softcapping 50 / null,
// final_logit_softcapping 30 / null, sliding_window_pattern (6), layer_types, attention_bias
// false, tie_word_embeddings true.
#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"
#include "attn/model/rope_config.hpp"

namespace attn::model {

namespace {

using json = nlohmann::json;

constexpr std::string_view kPrefixes[] = {"model.", "", "language_model.model."};

// llama.cpp's converter: ARCH.KEY -> config.json (llama.cpp scales the scores by
// key_length^-0.5 but for Gemma 2 27B: that is query_pre_attn_scalar), and its tensor names;
// every norm stored plus one.
constexpr std::pair<std::string_view, std::string_view> kGgufKeys[] = {
    {"context_length", "max_position_embeddings"},
    {"embedding_length", "hidden_size"},
    {"block_count", "num_hidden_layers"},
    {"feed_forward_length", "intermediate_size"},
    {"attention.head_count", "num_attention_heads"},
    {"attention.head_count_kv", "num_key_value_heads"},
    {"attention.key_length", "head_dim"},
    {"attention.key_length", "query_pre_attn_scalar"},
    {"attention.layer_norm_rms_epsilon", "rms_norm_eps"},
    {"attention.sliding_window", "sliding_window"},
    {"attention.sliding_window_pattern", "sliding_window_pattern"},
    {"attn_logit_softcapping", "attn_logit_softcapping"},
    {"final_logit_softcapping", "final_logit_softcapping"},
    {"rope.freq_base", "rope_theta"}};
constexpr GgufTensor kGgufTensors[] = {
    {"token_embd", "embed_tokens"},
    {"output", "lm_head"},
    {"output_norm", "norm", GgufLayout::plus_one},
    {"blk.{}.attn_norm", "layers.{}.input_layernorm", GgufLayout::plus_one},
    {"blk.{}.attn_q", "layers.{}.self_attn.q_proj"},
    {"blk.{}.attn_k", "layers.{}.self_attn.k_proj"},
    {"blk.{}.attn_v", "layers.{}.self_attn.v_proj"},
    {"blk.{}.attn_q_norm", "layers.{}.self_attn.q_norm", GgufLayout::plus_one},
    {"blk.{}.attn_k_norm", "layers.{}.self_attn.k_norm", GgufLayout::plus_one},
    {"blk.{}.attn_output", "layers.{}.self_attn.o_proj"},
    {"blk.{}.post_attention_norm", "layers.{}.post_attention_layernorm", GgufLayout::plus_one},
    {"blk.{}.ffn_norm", "layers.{}.pre_feedforward_layernorm", GgufLayout::plus_one},
    {"blk.{}.ffn_gate", "layers.{}.mlp.gate_proj"},
    {"blk.{}.ffn_up", "layers.{}.mlp.up_proj"},
    {"blk.{}.ffn_down", "layers.{}.mlp.down_proj"},
    {"blk.{}.post_ffw_norm", "layers.{}.post_feedforward_layernorm", GgufLayout::plus_one}};

// Which layers slide: layer_types when given, else gemma2 the even layers, gemma3 all but
// every pattern-th.
std::vector<bool> sliding_layers(const ConfigKeys& k, std::size_t layers, bool gemma3) {
    std::vector<bool> out(layers);
    if (const json* types = k.find("layer_types")) {
        if (!types->is_array() || types->size() != layers)
            k.fail("layer_types",
                   fmt::format("{} is not an array of {} layer types", brief(*types), layers));
        for (std::size_t l = 0; l < layers; ++l) {
            const json& t = (*types)[l];
            if (t != "sliding_attention" && t != "full_attention")
                k.fail(fmt::format("layer_types[{}]", l),
                       brief(t) + " is not sliding_attention or full_attention");
            out[l] = t == "sliding_attention";
        }
        return out;
    }
    const std::size_t pattern =
        gemma3 ? k.size({"sliding_window_pattern", "_sliding_window_pattern"}, 6) : 2;
    for (std::size_t l = 0; l < layers; ++l) out[l] = gemma3 ? (l + 1) % pattern != 0 : l % 2 == 0;
    return out;
}

template <bool gemma3>
void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, gemma3 ? 262208 : 256000);
    c.hidden_size = k.size({"hidden_size"}, 2304);
    c.intermediate_size = k.size({"intermediate_size"}, 9216);
    c.num_layers = k.size({"num_hidden_layers"}, 26);
    c.num_heads = 8;
    read_heads(k, c, {"num_attention_heads"}, {"num_key_value_heads"}, "head_dim");
    if (k.find("num_key_value_heads") == nullptr) {
        c.num_kv_heads = 4;  // the configs' default
        if (c.num_heads % 4 != 0) k.fail("num_key_value_heads", "absent: 4 does not divide heads");
    }
    if (k.find("head_dim") == nullptr) c.head_dim = 256;
    const std::size_t max_positions = k.size({"max_position_embeddings"}, gemma3 ? 131072 : 8192);
    c.norm = Norm::gemma_rms_norm;
    c.norm_eps = k.number("rms_norm_eps", 1e-6);
    const std::string act = k.find("hidden_activation") ? "hidden_activation" : "hidden_act";
    c.activation = activation(k, act, k.text(act, "gelu_pytorch_tanh"));
    c.gated_mlp = true;
    c.qkv_bias = c.o_bias = k.flag("attention_bias", false);
    c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
    c.query_scale = 1.0 / std::sqrt(k.number("query_pre_attn_scalar", 256));
    if (!gemma3) c.attn_softcap = k.optional_number("attn_logit_softcapping");
    if (!k.object().contains("attn_logit_softcapping") && !gemma3) c.attn_softcap = 50.0;
    c.final_softcap = k.optional_number("final_logit_softcapping");
    if (!k.object().contains("final_logit_softcapping") && !gemma3) c.final_softcap = 30.0;
    for (const char* key : {"attn_logit_softcapping", "final_logit_softcapping"})
        if (k.find(key) != nullptr) k.number(key, 1.0);  // above 0
    c.sliding_window = k.size({"sliding_window"}, 4096);
    c.sliding_layers = sliding_layers(k, c.num_layers, gemma3);
    c.positions = positions::Scheme::rope;
    const bool nested = !rope_layer_types(k.object()).empty();
    RopeContext global;
    global.head_dim = c.head_dim;
    global.max_positions = max_positions;
    global.default_theta = gemma3 ? 1e6 : 1e4;
    if (nested) global.layer_type = "full_attention";
    c.rope = parse_rope(k.object(), global);
    if (gemma3) {
        if (nested) {
            RopeContext local = global;
            local.layer_type = "sliding_attention";
            local.default_theta = 1e4;
            c.rope_local = parse_rope(k.object(), local);
        } else {
            const json plain{{"rope_theta", k.number("rope_local_base_freq", 1e4)}};
            c.rope_local = parse_rope(plain, c.head_dim, max_positions);
        }
    }
}

struct Tensors {
    Tensor embed_tokens;  // (V, d)
    struct Block {
        // RMSNorm (d): before and after attention, before and after the MLP
        NormWeights input_norm, post_attention_norm, pre_feedforward_norm, post_feedforward_norm;
        NormWeights q_norm, k_norm;         // Gemma 3: RMSNorm (hd), per head
        Linear q, k, v, o, gate, up, down;  // nn.Linear (out, in)
    };
    std::vector<Block> layers;
    NormWeights norm;
    Tensor lm_head;  // (V, d); absent when tied to embed_tokens
};

template <bool gemma3>
Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size, hd = c.head_dim;
    const std::uint64_t q = c.num_heads * hd, kv = c.num_kv_heads * hd;
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
        if (gemma3) {
            b.q_norm = t.rms_norm(l + "self_attn.q_norm", hd);
            b.k_norm = t.rms_norm(l + "self_attn.k_norm", hd);
        }
        b.o = t.linear(l + "self_attn.o_proj", d, q, c.o_bias);
        b.post_attention_norm = t.rms_norm(l + "post_attention_layernorm", d);
        b.pre_feedforward_norm = t.rms_norm(l + "pre_feedforward_layernorm", d);
        b.gate = t.linear(l + "mlp.gate_proj", I, d, false);
        b.up = t.linear(l + "mlp.up_proj", I, d, false);
        b.down = t.linear(l + "mlp.down_proj", d, I, false);
        b.post_feedforward_norm = t.rms_norm(l + "post_feedforward_layernorm", d);
        w.layers.push_back(b);
    }
    t.layer(-1);
    w.norm = t.rms_norm("norm", d);
    if (!c.tie_word_embeddings) w.lm_head = t.add_any({"lm_head.weight"}, {c.vocab_size, d});
    return w;
}

template <bool gemma3>
void declare_table(const ModelConfig& c, TensorTable& t) {
    declare<gemma3>(c, t);
}

template <bool gemma3>
struct Gemma {
    template <class T>
    class Forward final : public FamilyForward<T> {
        using B = FamilyForward<T>;
        using B::c_;
        using B::norm, B::linear, B::gated_feed_forward, B::projection;

      public:
        Forward(const ModelConfig& c, const TensorSource& s, std::size_t n)
            : B(c, s, n), t_(declare<gemma3>(c, this->table_)) {}

        Matrix<T> embed(std::span<const std::int64_t> ids) override {
            // h0 = embed_tokens[ids] fl(sqrt(d))                              (n, d)
            Matrix<T> h = this->gather(t_.embed_tokens, ids);
            T factor = static_cast<T>(std::sqrt(static_cast<double>(c_.hidden_size)));
            if (c_.compute_dtype) runtime::round_all(*c_.compute_dtype, &factor, 1);
            h *= factor;
            this->round(h);
            return h;
        }

        LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
            const std::size_t H = c_.num_heads, G = c_.num_kv_heads, hd = c_.head_dim;
            const typename Tensors::Block& b = t_.layers[layer];
            // q = x q_proj^T (n, H hd), k and v (n, G hd), x = norm(h); Gemma 3: q and k
            // normed per head (hd)
            const Matrix<T> x = norm(h, b.input_norm);
            Matrix<T> q = linear(x, projection(b.q));
            Matrix<T> k = linear(x, projection(b.k));
            const Matrix<T> v = linear(x, projection(b.v));
            if (gemma3) {
                this->head_norm(q, H, b.q_norm);
                this->head_norm(k, G, b.k_norm);
            }
            // s_h = rope(q_h) rope(k_g)^T query_pre_attn_scalar^-0.5 (Gemma 2: cap tanh(s / cap)),
            // causal, the window on sliding layers; h = h + norm(concat o_proj^T)      (n, d)
            LayerResult<T> r = this->attend(
                layer,
                {this->heads(q, H, 0, hd), this->heads(k, G, 0, hd), this->heads(v, G, 0, hd)},
                keep, projection(b.o));
            this->add(h, norm(linear(r.output, projection(b.o)), b.post_attention_norm));
            // h = h + norm(down(gelu_tanh(gate(x2)) * up(x2))), x2 = norm(h)  (n, I) -> (n, d)
            const Matrix<T> x2 = norm(h, b.pre_feedforward_norm);
            Matrix<T> m = xt::zeros<T>({h.shape(0), h.shape(1)});
            gated_feed_forward(m, x2, projection(b.gate), projection(b.up), c_.activation,
                               projection(b.down));
            this->add(h, norm(m, b.post_feedforward_norm));
            return r;
        }

        LmHead head() override {
            // logits = cap tanh(norm(h[n-1]) embed_tokens^T / cap)               (V)
            return {t_.norm, c_.tie_word_embeddings ? t_.embed_tokens : t_.lm_head};
        }

      private:
        Tensors t_;
    };
};

constexpr Family gemma_family(std::string_view model_type, bool gemma3) {
    const std::string_view architecture = gemma3 ? "gemma3" : "gemma2";
    return Family{
        .model_type = model_type,
        .layers_key = "num_hidden_layers",
        .read_config = gemma3 ? read_config<true> : read_config<false>,
        .naming = {kPrefixes},
        .tensors = gemma3 ? declare_table<true> : declare_table<false>,
        .position_table = nullptr,
        .forward_float = gemma3 ? construct<Gemma<true>::Forward, float>
                                : construct<Gemma<false>::Forward, float>,
        .forward_double = gemma3 ? construct<Gemma<true>::Forward, double>
                                 : construct<Gemma<false>::Forward, double>,
        .lm_head = true,
        .gguf = {architecture, kGgufKeys, kGgufTensors},
    };
}

}  // namespace

extern const Family gemma2_family = gemma_family("gemma2", false);
extern const Family gemma3_text_family = gemma_family("gemma3_text", true);

}  // namespace attn::model
