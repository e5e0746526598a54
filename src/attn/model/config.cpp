#include "attn/model/config.hpp"

#include "attn/model/rope_config.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

namespace attn::model {

using json = nlohmann::json;

namespace {

constexpr std::array<std::pair<std::string_view, Family>, 7> kFamilies{
    {{"gpt2", Family::gpt2},
     {"bert", Family::bert},
     {"llama", Family::llama},
     {"mistral", Family::mistral},
     {"qwen2", Family::qwen2},
     {"bloom", Family::bloom},
     {"t5", Family::t5}}};

constexpr std::size_t kMaxSize = std::size_t{1} << 31;
constexpr std::size_t kMaxLayers = 4096;  // the deepest published models have ~130

/// A value for a message: numbers and short strings as written; arrays and objects by kind
/// (dumping one would recurse as deep as its nesting).
std::string brief(const json& v) {
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    std::string text = v.dump(-1, ' ', true, json::error_handler_t::replace);  // ASCII
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

/// Reads keys of one JSON object; a key holding null counts as absent (transformers writes
/// "head_dim": null, "rope_scaling": null).
class Keys {
  public:
    Keys(const json& object, std::string prefix) : o_(object), prefix_(std::move(prefix)) {}

    const json* find(std::string_view key) const {
        const auto it = o_.find(std::string(key));
        return it == o_.end() || it->is_null() ? nullptr : &*it;
    }
    /// The first of the aliases present, or nullptr; *used names it.
    const json* find_any(std::initializer_list<std::string_view> keys, std::string* used) const {
        for (auto k : keys)
            if (const json* v = find(k)) {
                *used = std::string(k);
                return v;
            }
        *used = std::string(*keys.begin());
        return nullptr;
    }
    /// A size in 1 .. 2^31 (or 0 .. when zero_ok).
    std::size_t size(std::initializer_list<std::string_view> keys, std::size_t fallback,
                     bool zero_ok = false) const {
        std::string key;
        const json* v = find_any(keys, &key);
        if (v == nullptr) return fallback;
        if (!v->is_number_integer() || v->get<std::int64_t>() < (zero_ok ? 0 : 1) ||
            v->get<std::int64_t>() > static_cast<std::int64_t>(kMaxSize))
            fail(key, fmt::format("{} is not an integer in {}..2^31", brief(*v), zero_ok ? 0 : 1));
        return static_cast<std::size_t>(v->get<std::int64_t>());
    }
    double number(std::string_view key, double fallback, bool positive = true) const {
        const json* v = find(key);
        if (v == nullptr) return fallback;
        if (!v->is_number() || !std::isfinite(v->get<double>()) ||
            (positive && !(v->get<double>() > 0)))
            fail(std::string(key),
                 brief(*v) + " is not a finite number" + (positive ? " above 0" : ""));
        return v->get<double>();
    }
    std::optional<double> optional_number(std::string_view key) const {
        if (find(key) == nullptr) return std::nullopt;
        return number(key, 0.0, false);
    }
    bool flag(std::string_view key, bool fallback) const {
        const json* v = find(key);
        if (v == nullptr) return fallback;
        if (!v->is_boolean()) fail(std::string(key), brief(*v) + " is not true or false");
        return v->get<bool>();
    }
    std::string text(std::string_view key, std::string fallback) const {
        const json* v = find(key);
        if (v == nullptr) return fallback;
        if (!v->is_string()) fail(std::string(key), brief(*v) + " is not a string");
        return v->get<std::string>();
    }
    [[noreturn]] void fail(const std::string& key, const std::string& detail) const {
        throw ConfigError(prefix_ + key, detail);
    }

  private:
    const json& o_;
    std::string prefix_;
};

Activation activation(const Keys& k, std::string_view key, std::string name) {
    if (name == "gelu") return Activation::gelu;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
        return Activation::gelu_tanh;
    if (name == "relu") return Activation::relu;
    if (name == "silu" || name == "swish") return Activation::silu;
    k.fail(std::string(key), "'" + name +
                                 "' is not an activation attn computes (gelu, gelu_new, "
                                 "gelu_pytorch_tanh, gelu_fast, relu, silu)");
}

/// Heads and head_dim: H divides d unless head_dim is given; K/V heads divide H.
void read_heads(const Keys& k, ModelConfig& c, std::initializer_list<std::string_view> heads,
                std::initializer_list<std::string_view> kv, std::string_view head_dim_key) {
    c.num_heads = k.size(heads, c.num_heads);
    c.num_kv_heads = k.size(kv, c.num_heads);
    if (!head_dim_key.empty() && k.find(head_dim_key) != nullptr) {
        c.head_dim = k.size({head_dim_key}, 0);
    } else {
        if (c.hidden_size % c.num_heads != 0)
            k.fail(std::string(*heads.begin()),
                   fmt::format("{} heads do not divide the width {}", c.num_heads, c.hidden_size));
        c.head_dim = c.hidden_size / c.num_heads;
    }
    if (c.num_heads % c.num_kv_heads != 0)
        k.fail(std::string(*kv.begin()), fmt::format("{} key/value heads do not divide {} heads",
                                                     c.num_kv_heads, c.num_heads));
}

void read_llama_like(const Keys& k, const json& config, ModelConfig& c) {
    const bool mistral = c.family == Family::mistral, qwen2 = c.family == Family::qwen2;
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
    c.positions = Positions::rope;
    c.rope = parse_rope(config, c.head_dim, max_positions);
    if (mistral) {
        // Absent: MistralConfig's 4096; null: no window.
        if (!config.contains("sliding_window"))
            c.sliding_window = 4096;
        else if (k.find("sliding_window") != nullptr)
            c.sliding_window = k.size({"sliding_window"}, 4096);
    } else if (qwen2 && k.flag("use_sliding_window", false)) {
        c.sliding_window = k.size({"sliding_window"}, 4096);
    }
}

}  // namespace

std::string_view family_name(Family f) {
    for (const auto& [name, family] : kFamilies)
        if (family == f) return name;
    return "?";
}

std::string family_names() {
    std::string out;
    for (const auto& [name, family] : kFamilies)
        out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

ConfigError::ConfigError(std::string k, const std::string& detail)
    : std::invalid_argument(k + ": " + detail), key(std::move(k)) {}

ModelConfig parse_config(std::string_view json_text) {
    const json config = json::parse(json_text.begin(), json_text.end(), nullptr, false);
    if (config.is_discarded()) throw ConfigError("config.json", "is not valid JSON");
    return parse_config(config);
}

ModelConfig parse_config(const json& config) {
    if (!config.is_object()) throw ConfigError("config.json", "is not a JSON object");
    const Keys k(config, "");
    const std::string type = k.text("model_type", "");
    ModelConfig c;
    bool known = false;
    for (const auto& [name, family] : kFamilies)
        if (type == name) c.family = family, known = true;
    if (!known)
        k.fail("model_type", (type.empty() ? std::string("absent") : "'" + type + "'") +
                                 "; attn runs " + family_names());
    switch (c.family) {
        case Family::gpt2:
            c.vocab_size = k.size({"vocab_size"}, 50257);
            c.hidden_size = k.size({"n_embd", "hidden_size"}, 768);
            c.num_layers = k.size({"n_layer", "num_hidden_layers"}, 12);
            c.num_heads = 12;
            read_heads(k, c, {"n_head", "num_attention_heads"}, {"n_head", "num_attention_heads"},
                       "");
            c.intermediate_size = k.size({"n_inner"}, 4 * c.hidden_size);
            c.max_positions = k.size({"n_positions", "max_position_embeddings"}, 1024);
            c.norm_eps = k.number("layer_norm_epsilon", 1e-5);
            c.activation =
                activation(k, "activation_function", k.text("activation_function", "gelu_new"));
            c.qkv_bias = c.o_bias = c.mlp_bias = true;
            c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
            break;
        case Family::bert: {
            c.vocab_size = k.size({"vocab_size"}, 30522);
            c.hidden_size = k.size({"hidden_size"}, 768);
            c.num_layers = k.size({"num_hidden_layers"}, 12);
            c.num_heads = 12;
            read_heads(k, c, {"num_attention_heads"}, {"num_attention_heads"}, "");
            c.intermediate_size = k.size({"intermediate_size"}, 3072);
            c.max_positions = k.size({"max_position_embeddings"}, 512);
            c.type_vocab_size = k.size({"type_vocab_size"}, 2);
            c.norm_eps = k.number("layer_norm_eps", 1e-12);
            c.activation = activation(k, "hidden_act", k.text("hidden_act", "gelu"));
            const std::string kind = k.text("position_embedding_type", "absolute");
            if (kind != "absolute")
                k.fail("position_embedding_type", "'" + kind + "': attn reads absolute only");
            c.post_norm = true;
            c.causal = false;
            c.qkv_bias = c.o_bias = c.mlp_bias = true;
            c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
            break;
        }
        case Family::llama:
        case Family::mistral:
        case Family::qwen2:
            read_llama_like(k, config, c);
            break;
        case Family::bloom:
            c.vocab_size = k.size({"vocab_size"}, 250880);
            c.hidden_size = k.size({"n_embed", "hidden_size"}, 64);
            c.num_layers = k.size({"n_layer", "num_hidden_layers"}, 2);
            c.num_heads = 8;
            read_heads(k, c, {"n_head", "num_attention_heads"}, {"n_head", "num_attention_heads"},
                       "");
            c.intermediate_size = 4 * c.hidden_size;
            c.norm_eps = k.number("layer_norm_epsilon", 1e-5);
            c.activation = Activation::gelu_tanh;
            if (k.flag("apply_residual_connection_post_layernorm", false))
                k.fail("apply_residual_connection_post_layernorm", "true is not supported");
            c.qkv_bias = c.o_bias = c.mlp_bias = true;
            c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
            c.positions = Positions::alibi;
            break;
        case Family::t5: {
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
                    k.fail("feed_forward_proj", "'" + c.feed_forward_proj +
                                                    "' is not ACT or gated-ACT (relu, gated-gelu)");
                act = c.feed_forward_proj.substr(dash + 1);
                c.gated_mlp = true;
            }
            c.activation = c.feed_forward_proj == "gated-gelu"
                               ? Activation::gelu_tanh
                               : activation(k, "feed_forward_proj", act);
            c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
            c.causal = false;
            c.scale_scores = false;
            c.positions = Positions::t5;
            c.t5.num_buckets =
                static_cast<std::int64_t>(k.size({"relative_attention_num_buckets"}, 32));
            c.t5.max_distance =
                static_cast<std::int64_t>(k.size({"relative_attention_max_distance"}, 128));
            c.t5.bidirectional = true;
            try {
                positions::validate(c.t5);
            } catch (const std::invalid_argument& e) {
                const std::string m = e.what();
                throw ConfigError(m.rfind("num_buckets", 0) == 0
                                      ? "relative_attention_num_buckets"
                                      : "relative_attention_max_distance",
                                  m.substr(std::min(m.size(), m.find(':') + 2)));
            }
            break;
        }
    }
    if (c.num_layers > kMaxLayers)
        throw ConfigError(
            c.family == Family::t5 ? "num_layers" : "num_hidden_layers",
            fmt::format("{} layers, above attn's limit of {}", c.num_layers, kMaxLayers));
    return c;
}

std::string ModelConfig::describe() const {
    const std::string name(family_name(family));
    switch (positions) {
        case Positions::learned:
            return fmt::format("{}: learned absolute positions, {} rows", name, max_positions);
        case Positions::rope:
            return fmt::format("{}: RoPE, head_dim {}, rope_theta {}, scaling {}", name, head_dim,
                               rope.base, positions::scaling_name(rope.scaling));
        case Positions::alibi:
            return fmt::format("{}: ALiBi, {} heads", name, num_heads);
        case Positions::t5:
            return fmt::format("{}: relative buckets, {} buckets, max distance {}", name,
                               t5.num_buckets, t5.max_distance);
    }
    return name;
}

}  // namespace attn::model
