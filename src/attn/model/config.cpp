#include "attn/model/config.hpp"

#include "attn/model/rope_config.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>

#include "attn/model/config_keys.hpp"
#include "attn/model/families.hpp"

namespace attn::model {

using json = nlohmann::json;

namespace {

constexpr std::size_t kMaxSize = std::size_t{1} << 31;
constexpr std::size_t kMaxLayers = 4096;  // the deepest published models have ~130

}  // namespace

/// A value for a message: numbers and short strings as written; arrays and objects by kind
/// (dumping one would recurse as deep as its nesting).
std::string brief(const json& v) {
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    std::string text = v.dump(-1, ' ', true, json::error_handler_t::replace);  // ASCII
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

const json* ConfigKeys::find(std::string_view key) const {
    const auto it = o_.find(std::string(key));
    return it == o_.end() || it->is_null() ? nullptr : &*it;
}

const json* ConfigKeys::find_any(std::initializer_list<std::string_view> keys,
                                 std::string* used) const {
    for (auto k : keys)
        if (const json* v = find(k)) {
            *used = std::string(k);
            return v;
        }
    *used = std::string(*keys.begin());
    return nullptr;
}

std::size_t ConfigKeys::size(std::initializer_list<std::string_view> keys, std::size_t fallback,
                             bool zero_ok) const {
    std::string key;
    const json* v = find_any(keys, &key);
    if (v == nullptr) return fallback;
    if (!v->is_number_integer() || v->get<std::int64_t>() < (zero_ok ? 0 : 1) ||
        v->get<std::int64_t>() > static_cast<std::int64_t>(kMaxSize))
        fail(key, fmt::format("{} is not an integer in {}..2^31", brief(*v), zero_ok ? 0 : 1));
    return static_cast<std::size_t>(v->get<std::int64_t>());
}

double ConfigKeys::number(std::string_view key, double fallback, bool positive) const {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_number() || !std::isfinite(v->get<double>()) ||
        (positive && !(v->get<double>() > 0)))
        fail(std::string(key),
             brief(*v) + " is not a finite number" + (positive ? " above 0" : ""));
    return v->get<double>();
}

std::optional<double> ConfigKeys::optional_number(std::string_view key) const {
    if (find(key) == nullptr) return std::nullopt;
    return number(key, 0.0, false);
}

bool ConfigKeys::flag(std::string_view key, bool fallback) const {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) fail(std::string(key), brief(*v) + " is not true or false");
    return v->get<bool>();
}

std::string ConfigKeys::text(std::string_view key, std::string fallback) const {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_string()) fail(std::string(key), brief(*v) + " is not a string");
    return v->get<std::string>();
}

void ConfigKeys::fail(const std::string& key, const std::string& detail) const {
    throw ConfigError(prefix_ + key, detail);
}

Activation activation(const ConfigKeys& k, std::string_view key, const std::string& name) {
    if (name == "gelu") return Activation::gelu;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
        return Activation::gelu_tanh;
    if (name == "relu") return Activation::relu;
    if (name == "silu" || name == "swish") return Activation::silu;
    k.fail(std::string(key), "'" + name +
                                 "' is not an activation attn computes (gelu, gelu_new, "
                                 "gelu_pytorch_tanh, gelu_fast, relu, silu)");
}

// rope_scaling or rope_parameters onto positions::RopeParameters (rope_config.hpp).
void parse_rope(const ConfigKeys& k, ModelConfig& c, std::size_t max_positions) {
    c.rope = model::parse_rope(k.object(), c.head_dim, max_positions);
}

/// Heads and head_dim: H divides d unless head_dim is given; K/V heads divide H.
void read_heads(const ConfigKeys& k, ModelConfig& c, std::initializer_list<std::string_view> heads,
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

// key "": the whole document ("is not valid JSON (byte 1)"), named by the caller's path.
ConfigError::ConfigError(std::string k, const std::string& detail)
    : std::invalid_argument(k.empty() ? detail : k + ": " + detail), key(std::move(k)) {}

ModelConfig parse_config(std::string_view json_text) {
    json config;
    try {
        config = json::parse(json_text.begin(), json_text.end());
    } catch (const json::parse_error& e) {
        throw ConfigError("", fmt::format("is not valid JSON (byte {})", e.byte));
    }
    return parse_config(config);
}

ModelConfig parse_config(const json& config) {
    if (!config.is_object()) throw ConfigError("", "is not a JSON object");
    const ConfigKeys k(config, "");
    const std::string type = k.text("model_type", "");
    ModelConfig c;
    c.family = find_family(type);
    if (c.family == nullptr)
        k.fail("model_type", (type.empty() ? std::string("absent") : "'" + type + "'") +
                                 "; attn runs " + family_names());
    c.family->read_config(k, c);
    if (c.num_layers > kMaxLayers)
        throw ConfigError(
            std::string(c.family->layers_key),
            fmt::format("{} layers, above attn's limit of {}", c.num_layers, kMaxLayers));
    return c;
}

std::string_view ModelConfig::model_type() const {
    return family->model_type;
}

std::string ModelConfig::describe() const {
    const std::string name(model_type());
    switch (positions) {
        case positions::Scheme::none:
            return fmt::format("{}: learned absolute positions, {} rows", name, max_positions);
        case positions::Scheme::rope: {
            std::string line =
                fmt::format("{}: RoPE, head_dim {}, rope_theta {}, scaling {}", name, head_dim,
                            rope.base, positions::scaling_name(rope.scaling));
            if (rope.d != head_dim) line += fmt::format(", the first {} dims rotated", rope.d);
            if (rope_local)
                line += fmt::format("; sliding layers rope_theta {}, scaling {}", rope_local->base,
                                    positions::scaling_name(rope_local->scaling));
            return line;
        }
        case positions::Scheme::alibi:
            return fmt::format("{}: ALiBi, {} heads", name, num_heads);
        case positions::Scheme::t5:
            return fmt::format("{}: relative buckets, {} buckets, max distance {}", name,
                               t5.num_buckets, t5.max_distance);
        case positions::Scheme::sinusoidal:  // no family adds P inside attention
            break;
    }
    return name;
}

}  // namespace attn::model
