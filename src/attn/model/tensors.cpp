#include "attn/model/tensors.hpp"

#include <stdexcept>

#include "runtime/memory_budget.hpp"

namespace attn::model {

namespace {

using Shape = std::vector<std::uint64_t>;

/// The list being built, with the family's prefixes.
struct Specs {
    std::vector<std::string> prefixes;  // "" first where the base model's names are usual
    bool legacy_norm = false;           // bert: LayerNorm.weight/bias also as gamma/beta
    int layer = -1;
    std::vector<TensorSpec> out;

    void add(const std::string& name, Shape shape) {
        TensorSpec t;
        t.shape = std::move(shape);
        t.layer = layer;
        for (const auto& p : prefixes) t.names.push_back(p + name);
        if (legacy_norm && name.find("LayerNorm.") != std::string::npos) {
            std::string legacy = name;
            const auto dot = legacy.rfind('.');
            legacy = legacy.substr(0, dot + 1) + (name.ends_with(".weight") ? "gamma" : "beta");
            for (const auto& p : prefixes) t.names.push_back(p + legacy);
        }
        out.push_back(std::move(t));
    }
    /// weight (out, in) and, when bias, bias (out).
    void linear(const std::string& name, std::uint64_t out_dim, std::uint64_t in_dim, bool bias) {
        add(name + ".weight", {out_dim, in_dim});
        if (bias) add(name + ".bias", {out_dim});
    }
    void layer_norm(const std::string& name, std::uint64_t d) {
        add(name + ".weight", {d});
        add(name + ".bias", {d});
    }
};

std::string block(const char* stem, std::size_t i) {
    return stem + std::to_string(i) + ".";
}

void gpt2(const ModelConfig& c, Specs& s) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    s.add("wte.weight", {c.vocab_size, d});
    s.add("wpe.weight", {c.max_positions, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        s.layer = static_cast<int>(i);
        const std::string h = block("h.", i);
        s.layer_norm(h + "ln_1", d);
        // Conv1D: weight (in, out), y = x W + b.
        s.add(h + "attn.c_attn.weight", {d, 3 * d});
        s.add(h + "attn.c_attn.bias", {3 * d});
        s.add(h + "attn.c_proj.weight", {d, d});
        s.add(h + "attn.c_proj.bias", {d});
        s.layer_norm(h + "ln_2", d);
        s.add(h + "mlp.c_fc.weight", {d, I});
        s.add(h + "mlp.c_fc.bias", {I});
        s.add(h + "mlp.c_proj.weight", {I, d});
        s.add(h + "mlp.c_proj.bias", {d});
    }
    s.layer = -1;
    s.layer_norm("ln_f", d);
}

void bert(const ModelConfig& c, Specs& s) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t hd = c.num_heads * c.head_dim;
    s.add("embeddings.word_embeddings.weight", {c.vocab_size, d});
    s.add("embeddings.position_embeddings.weight", {c.max_positions, d});
    s.add("embeddings.token_type_embeddings.weight", {c.type_vocab_size, d});
    s.layer_norm("embeddings.LayerNorm", d);
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        s.layer = static_cast<int>(i);
        const std::string l = block("encoder.layer.", i);
        s.linear(l + "attention.self.query", hd, d, true);
        s.linear(l + "attention.self.key", hd, d, true);
        s.linear(l + "attention.self.value", hd, d, true);
        s.linear(l + "attention.output.dense", d, hd, true);
        s.layer_norm(l + "attention.output.LayerNorm", d);
        s.linear(l + "intermediate.dense", I, d, true);
        s.linear(l + "output.dense", d, I, true);
        s.layer_norm(l + "output.LayerNorm", d);
    }
}

void llama(const ModelConfig& c, Specs& s) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t q = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
    s.add("embed_tokens.weight", {c.vocab_size, d});
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        s.layer = static_cast<int>(i);
        const std::string l = block("layers.", i);
        s.add(l + "input_layernorm.weight", {d});
        s.linear(l + "self_attn.q_proj", q, d, c.qkv_bias);
        s.linear(l + "self_attn.k_proj", kv, d, c.qkv_bias);
        s.linear(l + "self_attn.v_proj", kv, d, c.qkv_bias);
        s.linear(l + "self_attn.o_proj", d, q, c.o_bias);
        s.add(l + "post_attention_layernorm.weight", {d});
        s.linear(l + "mlp.gate_proj", I, d, c.mlp_bias);
        s.linear(l + "mlp.up_proj", I, d, c.mlp_bias);
        s.linear(l + "mlp.down_proj", d, I, c.mlp_bias);
    }
    s.layer = -1;
    s.add("norm.weight", {d});
    if (!c.tie_word_embeddings) {
        s.prefixes = {""};
        s.add("lm_head.weight", {c.vocab_size, d});
    }
}

void bloom(const ModelConfig& c, Specs& s) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    s.add("word_embeddings.weight", {c.vocab_size, d});
    s.layer_norm("word_embeddings_layernorm", d);
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        s.layer = static_cast<int>(i);
        const std::string h = block("h.", i);
        s.layer_norm(h + "input_layernorm", d);
        // Fused per head: rows [h (3 hd) ..) are head h's q, k, v.
        s.linear(h + "self_attention.query_key_value", 3 * d, d, true);
        s.linear(h + "self_attention.dense", d, d, true);
        s.layer_norm(h + "post_attention_layernorm", d);
        s.linear(h + "mlp.dense_h_to_4h", I, d, true);
        s.linear(h + "mlp.dense_4h_to_h", d, I, true);
    }
    s.layer = -1;
    s.layer_norm("ln_f", d);
}

void t5(const ModelConfig& c, Specs& s) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t hd = c.num_heads * c.head_dim;
    TensorSpec embed;
    embed.names = {"encoder.embed_tokens.weight", "shared.weight"};
    embed.shape = {c.vocab_size, d};
    s.out.push_back(embed);
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        s.layer = static_cast<int>(i);
        const std::string b = block("encoder.block.", i);
        s.add(b + "layer.0.layer_norm.weight", {d});
        for (const char* p : {"q", "k", "v"})
            s.add(b + "layer.0.SelfAttention." + p + ".weight", {hd, d});
        s.add(b + "layer.0.SelfAttention.o.weight", {d, hd});
        if (i == 0)
            s.add(b + "layer.0.SelfAttention.relative_attention_bias.weight",
                  {static_cast<std::uint64_t>(c.t5.num_buckets), c.num_heads});
        s.add(b + "layer.1.layer_norm.weight", {d});
        if (c.gated_mlp) {
            s.add(b + "layer.1.DenseReluDense.wi_0.weight", {I, d});
            s.add(b + "layer.1.DenseReluDense.wi_1.weight", {I, d});
        } else {
            s.add(b + "layer.1.DenseReluDense.wi.weight", {I, d});
        }
        s.add(b + "layer.1.DenseReluDense.wo.weight", {d, I});
    }
    s.layer = -1;
    s.add("encoder.final_layer_norm.weight", {d});
}

Specs specs_of(const ModelConfig& c) {
    Specs s;
    switch (c.family) {
        case Family::gpt2:
            s.prefixes = {"", "transformer."};
            break;
        case Family::bert:
            s.prefixes = {"", "bert."};
            s.legacy_norm = true;
            break;
        case Family::llama:
        case Family::mistral:
        case Family::qwen2:
            s.prefixes = {"model.", ""};
            break;
        case Family::bloom:
            s.prefixes = {"", "transformer."};
            break;
        case Family::t5:
            s.prefixes = {""};
            break;
    }
    return s;
}

}  // namespace

std::vector<TensorSpec> model_tensors(const ModelConfig& c) {
    Specs s = specs_of(c);
    switch (c.family) {
        case Family::gpt2:
            gpt2(c, s);
            break;
        case Family::bert:
            bert(c, s);
            break;
        case Family::llama:
        case Family::mistral:
        case Family::qwen2:
            llama(c, s);
            break;
        case Family::bloom:
            bloom(c, s);
            break;
        case Family::t5:
            t5(c, s);
            break;
    }
    return std::move(s.out);
}

TensorSpec position_table(const ModelConfig& c) {
    Specs s = specs_of(c);
    if (c.family == Family::gpt2)
        s.add("wpe.weight", {c.max_positions, c.hidden_size});
    else if (c.family == Family::bert)
        s.add("embeddings.position_embeddings.weight", {c.max_positions, c.hidden_size});
    else if (c.family == Family::t5)
        s.add("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
              {static_cast<std::uint64_t>(c.t5.num_buckets), c.num_heads});
    else
        throw std::invalid_argument(std::string(family_name(c.family)) +
                                    " has no learned position table");
    return s.out.front();
}

std::uint64_t forward_bytes(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes) {
    using runtime::checked_add;
    using runtime::checked_mul;
    using runtime::checked_product;
    const char* what = "the forward of the model";
    // One block's weights, widened: the largest block (t5's block 0 holds the bias table too).
    std::uint64_t block = 0;
    for (const TensorSpec& t : model_tensors(c)) {
        if (t.layer != 0) continue;
        std::uint64_t count = 1;
        for (const auto s : t.shape) count = checked_mul(count, s, what);
        block = checked_add(block, count, what);
    }
    const std::uint64_t d = c.hidden_size, H = c.num_heads;
    const std::uint64_t qkv = checked_product({n, H + 2 * c.num_kv_heads, c.head_dim}, what);
    const std::uint64_t scores = checked_product({2, H, n, n}, what);  // scores and weights
    const std::uint64_t mlp =
        checked_product({c.gated_mlp ? 3u : 2u, n, c.intermediate_size}, what);
    const std::uint64_t stream = checked_product({4, n, d}, what);  // residual, normed, out, ctx
    std::uint64_t values = block;
    for (const auto v : {qkv, scores, mlp, stream, std::uint64_t{c.vocab_size}})
        values = checked_add(values, v, what);
    return checked_mul(values, value_bytes, what);
}

}  // namespace attn::model
