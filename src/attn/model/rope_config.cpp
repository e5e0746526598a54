#include "attn/model/rope_config.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace

positions::RopeParameters parse_rope(const json& config, std::size_t rotary_dim,
                                     std::size_t max_positions) {
    const Keys k(config, "");
    positions::RopeParameters p;
    p.d = rotary_dim;
    p.base = k.number("rope_theta", 10000.0);
    const json* scaling = k.find("rope_scaling");
    if (scaling != nullptr) {
        if (!scaling->is_object()) k.fail("rope_scaling", brief(*scaling) + " is not an object");
        const Keys s(*scaling, "rope_scaling.");
        const std::string type_key = s.find("rope_type") != nullptr ? "rope_type" : "type";
        const std::string name = s.text(type_key, "default");
        using positions::RopeScaling;
        if (name == "default")
            p.scaling = RopeScaling::none;
        else if (name == "linear")
            p.scaling = RopeScaling::linear;
        else if (name == "dynamic")
            p.scaling = RopeScaling::dynamic;
        else if (name == "yarn")
            p.scaling = RopeScaling::yarn;
        else if (name == "llama3")
            p.scaling = RopeScaling::llama3;
        else
            s.fail(type_key, "'" + name +
                                 "' is not a scaling attn computes (default, linear, dynamic, "
                                 "yarn, llama3)");
        for (const char* unsupported : {"attention_factor", "mscale", "mscale_all_dim"})
            if (s.find(unsupported) != nullptr)
                s.fail(unsupported, "is not supported (yarn's factor is 0.1 ln F + 1)");
        if (p.scaling != RopeScaling::none) p.factor = s.optional_number("factor");
        const auto original = s.optional_number("original_max_position_embeddings");
        if (p.scaling == RopeScaling::dynamic)
            p.original_max_position_embeddings = static_cast<double>(max_positions);
        else if (p.scaling == RopeScaling::yarn)
            p.original_max_position_embeddings =
                original ? *original : static_cast<double>(max_positions);
        else if (p.scaling == RopeScaling::llama3)
            p.original_max_position_embeddings = original;
        if (p.scaling == RopeScaling::llama3) {
            p.low_freq_factor = s.optional_number("low_freq_factor");
            p.high_freq_factor = s.optional_number("high_freq_factor");
        }
        if (p.scaling == RopeScaling::yarn) {
            p.beta_fast = s.optional_number("beta_fast");
            p.beta_slow = s.optional_number("beta_slow");
        }
    }
    try {
        positions::validate(p);
    } catch (const std::invalid_argument& e) {
        // positions' messages begin with Hugging Face's key: "factor: ...".
        const std::string message = e.what();
        const std::string key = message.substr(0, message.find(':'));
        const std::string where = key == "d"      ? "head_dim"
                                  : key == "base" ? "rope_theta"
                                                  : "rope_scaling." + key;
        throw ConfigError(where, message.substr(std::min(message.size(), key.size() + 2)));
    }
    return p;
}

}  // namespace attn::model
