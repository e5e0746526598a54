#include "attn/model/rope_config.hpp"

#include "attn/positions/parameter_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::model {

using json = nlohmann::json;

namespace {

/// A value for a message: numbers and short strings as written; arrays and objects by kind.
std::string brief(const json& v) {
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    std::string text = v.dump(-1, ' ', true, json::error_handler_t::replace);  // ASCII
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

/// Keys of one JSON object, errors prefixed ("rope_scaling."); null counts as absent.
class Keys {
  public:
    Keys(const json& object, std::string prefix) : o_(object), prefix_(std::move(prefix)) {}

    const json* find(std::string_view key) const {
        const auto it = o_.find(std::string(key));
        return it == o_.end() || it->is_null() ? nullptr : &*it;
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

/// The dictionary of RoPE parameters and where its keys are reported.
struct Source {
    const json* dict = nullptr;  // nullptr: none (default RoPE)
    std::string prefix;          // "rope_scaling.", "rope_parameters.full_attention.", ...
    bool nested = false;
};

bool nested_by_layer_type(const json& v) {
    if (!v.is_object()) return false;
    for (const auto& item : v.items())
        if (item.value().is_object()) return true;
    return false;
}

// transformers: rope_parameters = rope_scaling or rope_parameters (a non-empty one).
Source rope_source(const json& config, const std::string& layer_type) {
    const Keys k(config, "");
    Source s;
    const json* scaling = k.find("rope_scaling");
    const json* params = k.find("rope_parameters");
    const bool use_scaling = scaling != nullptr && !(scaling->is_object() && scaling->empty());
    const json* chosen = use_scaling ? scaling : params;
    const std::string key = use_scaling ? "rope_scaling" : "rope_parameters";
    if (chosen == nullptr) return s;
    if (!chosen->is_object()) k.fail(key, brief(*chosen) + " is not an object");
    s.prefix = key + ".";
    if (!nested_by_layer_type(*chosen)) {
        s.dict = chosen;
        return s;
    }
    std::string types;
    for (const auto& item : chosen->items()) types += (types.empty() ? "" : ", ") + item.key();
    if (layer_type.empty())
        k.fail(key, "holds one dictionary per layer type (" + types +
                        "); this family reads one for every layer");
    const Keys nested(*chosen, s.prefix);
    s.dict = nested.find(layer_type);
    if (s.dict == nullptr) nested.fail(layer_type, "absent; the layer types are " + types);
    if (!s.dict->is_object()) nested.fail(layer_type, brief(*s.dict) + " is not an object");
    s.prefix += layer_type + ".";
    s.nested = true;
    return s;
}

/// A list of d/2 numbers (longrope's short_factor, long_factor).
std::vector<double> numbers(const Keys& s, const json& dict, const std::string& key) {
    const json* v = Keys(dict, "").find(key);
    if (v == nullptr) return {};
    if (!v->is_array()) s.fail(key, brief(*v) + " is not a list of numbers");
    std::vector<double> out;
    for (const json& x : *v) {
        if (!x.is_number())
            s.fail(key,
                   "element " + std::to_string(out.size()) + " is " + brief(x) + ", not a number");
        out.push_back(x.get<double>());
    }
    return out;
}

}  // namespace

std::vector<std::string> rope_layer_types(const json& config) {
    std::vector<std::string> out;
    if (!config.is_object()) return out;
    const Keys k(config, "");
    const json* scaling = k.find("rope_scaling");
    const json* chosen = scaling != nullptr && !(scaling->is_object() && scaling->empty())
                             ? scaling
                             : k.find("rope_parameters");
    if (chosen != nullptr && nested_by_layer_type(*chosen))
        for (const auto& item : chosen->items())
            if (item.value().is_object()) out.push_back(item.key());
    return out;
}

positions::RopeParameters parse_rope(const json& config, std::size_t head_dim,
                                     std::size_t max_positions) {
    RopeContext context;
    context.head_dim = head_dim;
    context.max_positions = max_positions;
    return parse_rope(config, context);
}

positions::RopeParameters parse_rope(const json& config, const RopeContext& context) {
    using positions::RopeScaling;
    const Keys k(config, "");
    const Source source = rope_source(config, context.layer_type);
    static const json kEmpty = json::object();
    const json& dict = source.dict != nullptr ? *source.dict : kEmpty;
    const Keys s(dict, source.prefix);
    // Where each value came from, for the messages of positions::validate.
    std::string theta_key = "rope_theta", d_key = "head_dim", m_key;

    positions::RopeParameters p;
    if (s.find("rope_theta") != nullptr) {
        p.base = s.number("rope_theta", context.default_theta);
        theta_key = source.prefix + "rope_theta";
    } else {
        p.base = k.number("rope_theta", context.default_theta);
    }
    double partial = context.partial_rotary_factor;
    if (s.find("partial_rotary_factor") != nullptr) {
        partial = s.number("partial_rotary_factor", 1.0);
        d_key = source.prefix + "partial_rotary_factor";
    } else if (k.find("partial_rotary_factor") != nullptr) {
        partial = k.number("partial_rotary_factor", 1.0);
        d_key = "partial_rotary_factor";
    }
    if (!(partial > 0.0 && partial <= 1.0))
        throw ConfigError(d_key == "head_dim" ? "partial_rotary_factor" : d_key,
                          fmt::format("{} is not in (0, 1]", partial));
    p.d = static_cast<std::size_t>(static_cast<double>(context.head_dim) * partial);
    if (partial != 1.0 && d_key == "head_dim") d_key = "partial_rotary_factor";

    const std::string type_key = s.find("rope_type") != nullptr ? "rope_type" : "type";
    const std::string name = s.text(type_key, "default");
    constexpr std::pair<std::string_view, RopeScaling> kTypes[] = {
        {"default", RopeScaling::none},      {"linear", RopeScaling::linear},
        {"dynamic", RopeScaling::dynamic},   {"yarn", RopeScaling::yarn},
        {"longrope", RopeScaling::longrope}, {"llama3", RopeScaling::llama3}};
    bool known = false;
    for (const auto& [type_name, scaling] : kTypes)
        if (name == type_name) p.scaling = scaling, known = true;
    if (!known)
        s.fail(type_key, "'" + name +
                             "' is not a scaling attn computes (default, linear, dynamic, yarn, "
                             "longrope, llama3)");
    const auto max_positions = static_cast<double>(context.max_positions);
    const bool yarn = p.scaling == RopeScaling::yarn, longrope = p.scaling == RopeScaling::longrope;
    if (p.scaling == RopeScaling::dynamic) {
        p.original_max_position_embeddings = max_positions;
        m_key = "max_position_embeddings";
    } else if (yarn || longrope || p.scaling == RopeScaling::llama3) {
        // Phi-3 keeps the pretraining length beside rope_scaling; transformers prefers it.
        const std::string m = "original_max_position_embeddings";
        if (!source.nested && k.find(m) != nullptr) {
            p.original_max_position_embeddings = k.number(m, 1.0);
            m_key = m;
        } else if (!source.nested && context.original_max_positions) {
            p.original_max_position_embeddings = context.original_max_positions;
            m_key = m;
        } else if (s.find(m) != nullptr) {
            p.original_max_position_embeddings = s.number(m, 1.0);
            m_key = source.prefix + m;
        } else {
            p.original_max_position_embeddings = max_positions;
            m_key = "max_position_embeddings";
        }
    }
    if (p.scaling != RopeScaling::none) p.factor = s.optional_number("factor");
    // yarn: "factor": null (present) and longrope: absent or null give max / M.
    const bool factor_null = dict.contains("factor") && dict["factor"].is_null();
    if (!p.factor && (longrope || (yarn && factor_null)))
        p.factor = max_positions / *p.original_max_position_embeddings;
    if (p.scaling == RopeScaling::llama3) {
        p.low_freq_factor = s.optional_number("low_freq_factor");
        p.high_freq_factor = s.optional_number("high_freq_factor");
    }
    if (yarn) {
        // `or 32`, `or 1`: 0 counts as absent.
        p.beta_fast = s.optional_number("beta_fast");
        p.beta_slow = s.optional_number("beta_slow");
        if (p.beta_fast == 0.0) p.beta_fast.reset();
        if (p.beta_slow == 0.0) p.beta_slow.reset();
        p.mscale = s.optional_number("mscale");
        p.mscale_all_dim = s.optional_number("mscale_all_dim");
        p.truncate = s.flag("truncate", true);
    }
    if (yarn || longrope) p.attention_factor = s.optional_number("attention_factor");
    if (longrope) {
        p.short_factor = numbers(s, dict, "short_factor");
        p.long_factor = numbers(s, dict, "long_factor");
        if (p.short_factor.empty()) s.fail("short_factor", "required by longrope scaling");
        if (p.long_factor.empty()) s.fail("long_factor", "required by longrope scaling");
    }
    try {
        positions::validate(p);
    } catch (const positions::ParameterError& e) {
        // the parameter is Hugging Face's key ("factor"), the dictionary's or a top-level one
        const std::string& key = e.parameter;
        const std::string where = key == "d"                                  ? d_key
                                  : key == "base"                             ? theta_key
                                  : key == "original_max_position_embeddings" ? m_key
                                                                              : source.prefix + key;
        std::string detail = e.detail;
        if (key == "d" && partial != 1.0)
            detail =
                fmt::format("d = int(head_dim {} x {}) = {}", context.head_dim, partial, detail);
        throw ConfigError(where, detail);
    }
    return p;
}

}  // namespace attn::model
