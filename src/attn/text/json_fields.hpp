// Reading tokenizer files' JSON fields with their path in every error message
// ("pre_tokenizer.pretokenizers[1].pattern: expected a string").
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "attn/text/unicode.hpp"

namespace attn::text::json_fields {

using Json = nlohmann::json;

[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
    throw TokenizerError(where + ": " + what);
}

inline const Json* member(const Json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

inline bool boolean(const Json& object, const char* key, bool fallback, const std::string& where) {
    const Json* v = member(object, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(where + "." + key, "expected true or false");
    return v->get<bool>();
}

inline std::string string(const Json& object, const char* key, const std::string& fallback,
                          const std::string& where) {
    const Json* v = member(object, key);
    if (!v) return fallback;
    if (!v->is_string()) fail(where + "." + key, "expected a string");
    return v->get<std::string>();
}

inline std::int64_t integer(const Json& value, const std::string& where) {
    if (!value.is_number_integer()) fail(where, "expected an integer");
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > (std::uint64_t{1} << 62))
        fail(where, "integer out of range");
    return value.get<std::int64_t>();
}

inline const Json& array(const Json& object, const char* key, const std::string& where) {
    const Json* v = member(object, key);
    if (!v || !v->is_array()) fail(where + "." + key, "expected an array");
    return *v;
}

inline std::string type_of(const Json& object, const std::string& where) {
    if (!object.is_object()) fail(where, "expected an object");
    const Json* t = member(object, "type");
    if (!t || !t->is_string()) fail(where + ".type", "expected a string");
    return t->get<std::string>();
}

}  // namespace attn::text::json_fields
