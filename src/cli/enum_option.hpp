// Options whose values are names of an enum: a table of (name, value) written once, a CLI11
// transformer that turns an accepted name into the value (so no string is compared after
// parsing), and the name of a value for titles and defaults.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace attn::cli {

template <class E>
using NameTable = std::vector<std::pair<std::string, E>>;

/// Names compare without regard to ASCII case ("Blues" is "blues").
inline bool same_name(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
        const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
        if (lower(a[k]) != lower(b[k])) return false;
    }
    return true;
}

/// Accepts the names of `table` (in any case) and hands CLI11 the enum's value. Help and errors
/// read as CLI::IsMember's: "{a,b,c}" and "x not in {a,b,c}".
template <class E>
CLI::Validator enum_names(const NameTable<E>& table) {
    std::string set = "{";
    for (const auto& [name, value] : table) set += (set.size() > 1 ? "," : "") + name;
    set += "}";
    return CLI::Validator(
        [table, set](std::string& input) -> std::string {
            for (const auto& [name, value] : table)
                if (same_name(input, name)) {
                    input = std::to_string(static_cast<long long>(value));
                    return {};
                }
            return input + " not in " + set;
        },
        set);
}

/// The name of value in table ("" if absent).
template <class E>
std::string name_of(const NameTable<E>& table, E value) {
    for (const auto& [name, v] : table)
        if (v == value) return name;
    return "";
}

/// An option taking one name of table into `value`, its default shown as the name.
template <class E>
CLI::Option* add_enum_option(CLI::App& app, const std::string& flags, E& value,
                             const NameTable<E>& table, const std::string& help) {
    return app.add_option(flags, value, help)
        ->transform(enum_names(table))
        ->type_name("TEXT")
        ->default_str(name_of(table, value));
}

}  // namespace attn::cli
