// Reading a config.json's keys as the families' files do (each reads its own keys: gpt2.cpp,
// llama.cpp ...): a key holding null counts as absent, aliases are tried in order, and a key of
// the wrong type or out of range is a ConfigError naming it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "attn/model/config.hpp"

namespace attn::model {

class ConfigKeys {
  public:
    ConfigKeys(const nlohmann::json& object, std::string prefix)
        : o_(object), prefix_(std::move(prefix)) {}

    const nlohmann::json& object() const { return o_; }
    /// The value of key, or nullptr when absent or null.
    const nlohmann::json* find(std::string_view key) const;
    /// The first of the aliases present, or nullptr; *used names it (the first when none).
    const nlohmann::json* find_any(std::initializer_list<std::string_view> keys,
                                   std::string* used) const;
    /// A size in 1 .. 2^31 (or 0 .. when zero_ok).
    std::size_t size(std::initializer_list<std::string_view> keys, std::size_t fallback,
                     bool zero_ok = false) const;
    /// A finite number (above 0 when positive).
    double number(std::string_view key, double fallback, bool positive = true) const;
    std::optional<double> optional_number(std::string_view key) const;
    bool flag(std::string_view key, bool fallback) const;
    std::string text(std::string_view key, std::string fallback) const;
    [[noreturn]] void fail(const std::string& key, const std::string& detail) const;

  private:
    const nlohmann::json& o_;
    std::string prefix_;
};

/// A value for a message: numbers and short strings as written; arrays and objects by kind.
std::string brief(const nlohmann::json& v);

/// An activation's name (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, silu, swish) as
/// the value of `key`.
Activation activation(const ConfigKeys& k, std::string_view key, const std::string& name);

/// Heads and head_dim: H divides d unless head_dim_key is given (and present); K/V heads
/// divide H. c.num_heads holds the default of heads on entry.
void read_heads(const ConfigKeys& k, ModelConfig& c, std::initializer_list<std::string_view> heads,
                std::initializer_list<std::string_view> kv, std::string_view head_dim_key);

/// rope_theta and rope_scaling onto c.rope (d = c.head_dim); max_positions is
/// max_position_embeddings, dynamic's M and yarn's default original context.
void parse_rope(const ConfigKeys& k, ModelConfig& c, std::size_t max_positions);

}  // namespace attn::model
