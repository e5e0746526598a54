// The normalizer and pre_tokenizer objects of tokenizer.json (used by tokenizer_json.cpp).
#pragma once

#include <string>

#include "attn/text/json_fields.hpp"
#include "attn/text/normalizer.hpp"
#include "attn/text/pre_tokenizer.hpp"

namespace attn::text {

/// Appends the steps of one normalizer object (a Sequence appends each of its own).
void read_normalizer(const nlohmann::json& object, const std::string& where, Normalizer& out);
void read_pre_tokenizer(const nlohmann::json& object, const std::string& where, PreTokenizer& out);
/// Whether a pre_tokenizer object maps bytes to GPT-2's byte-level alphabet.
bool is_byte_level(const nlohmann::json& pre_tokenizer);

}  // namespace attn::text
