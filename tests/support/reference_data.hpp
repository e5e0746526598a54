// Readers for the reference files in tests/data (torch-vectors CSV, the notebook's JSON)
// and a bit-exact comparison that reports the first mismatch.
#pragma once

#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace attn::test {

/// tests/data/<relative>, e.g. data_path("torch-vectors/rand_seed0_n10.csv").
inline std::string data_path(std::string_view relative) {
    // fmt, not string +: g++ 12 warns falsely (-Warray-bounds) on the inlined concatenation.
    return fmt::format("{}/{}", ATTN_TEST_DATA_DIR, relative);
}

inline std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// A CSV file as strings: one header row, then records. Fields may be double-quoted
/// (RFC 4180, "" inside quotes is a quote); no field spans lines.
struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    std::size_t column(std::string_view name) const {
        for (std::size_t c = 0; c < header.size(); ++c)
            if (header[c] == name) return c;
        throw std::runtime_error("CSV has no column " + std::string(name));
    }
    /// The field `name` of every row whose field `key` equals `value` (all rows if key is "").
    std::vector<std::string> select(std::string_view name, std::string_view key = {},
                                    std::string_view value = {}) const {
        const std::size_t c = column(name);
        const std::size_t k = key.empty() ? 0 : column(key);
        std::vector<std::string> out;
        for (const auto& row : rows)
            if (key.empty() || row.at(k) == value) out.push_back(row.at(c));
        return out;
    }
};

inline std::vector<std::string> split_csv_line(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (ch == '"') {
                quoted = false;
            } else {
                fields.back() += ch;
            }
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            fields.emplace_back();
        } else {
            fields.back() += ch;
        }
    }
    if (quoted) throw std::runtime_error("unterminated quote in CSV line: " + std::string(line));
    return fields;
}

inline CsvTable read_csv(const std::string& path) {
    std::istringstream in(read_text_file(path));
    CsvTable table;
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        auto fields = split_csv_line(line);
        if (first) {
            table.header = std::move(fields);
            first = false;
        } else {
            if (fields.size() != table.header.size())
                throw std::runtime_error(fmt::format("{}: row {} has {} fields, header has {}",
                                                     path, table.rows.size() + 1, fields.size(),
                                                     table.header.size()));
            table.rows.push_back(std::move(fields));
        }
    }
    if (first) throw std::runtime_error(path + ": empty CSV");
    return table;
}

/// "0x3eacbbc9" -> 0x3eacbbc9 (the whole string must be hex).
inline std::uint64_t parse_hex(std::string_view text) {
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        text.remove_prefix(2);
    if (text.empty() || text.size() > 16) throw std::runtime_error("bad hex: " + std::string(text));
    std::uint64_t v = 0;
    for (const char ch : text) {
        int d;
        if (ch >= '0' && ch <= '9')
            d = ch - '0';
        else if (ch >= 'a' && ch <= 'f')
            d = ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F')
            d = ch - 'A' + 10;
        else
            throw std::runtime_error("bad hex: " + std::string(text));
        v = (v << 4) | static_cast<std::uint64_t>(d);
    }
    return v;
}

inline std::vector<std::uint64_t> parse_hex_all(const std::vector<std::string>& texts) {
    std::vector<std::uint64_t> out;
    out.reserve(texts.size());
    for (const auto& t : texts) out.push_back(parse_hex(t));
    return out;
}

/// The elements of the array `field` of tensor `name` in notebook_seed123.json:
///   "tensors": { ..., "NAME": { ..., "FIELD": [ e0, e1, ... ], ... }, ... }
/// as raw tokens with string quotes removed. A minimal scan for this one trusted file:
/// tensor objects contain no nested objects.
inline std::vector<std::string> json_tensor_array(const std::string& json, std::string_view name,
                                                  std::string_view field) {
    const auto skip_ws = [&](std::size_t p) {
        while (p < json.size() && std::isspace(static_cast<unsigned char>(json[p]))) ++p;
        return p;
    };
    // Position just after `"key"<ws>:<ws><open>` searching from `from`, or npos.
    const auto find_key = [&](std::string_view key, char open, std::size_t from, std::size_t to) {
        std::string quoted(1, '"');  // built by append: GCC 12 warns falsely on "\"" + s
        quoted.append(key).push_back('"');
        for (std::size_t p = json.find(quoted, from); p != std::string::npos && p < to;
             p = json.find(quoted, p + 1)) {
            std::size_t q = skip_ws(p + quoted.size());
            if (q >= json.size() || json[q] != ':') continue;
            q = skip_ws(q + 1);
            if (q < json.size() && json[q] == open) return q + 1;
        }
        return std::string::npos;
    };
    const std::size_t tensors = find_key("tensors", '{', 0, json.size());
    if (tensors == std::string::npos) throw std::runtime_error("JSON has no \"tensors\" object");
    const std::size_t obj = find_key(name, '{', tensors, json.size());
    if (obj == std::string::npos)
        throw std::runtime_error("JSON has no tensor " + std::string(name));
    const std::size_t obj_end = json.find('}', obj);
    const std::size_t arr = find_key(field, '[', obj, obj_end);
    if (arr == std::string::npos)
        throw std::runtime_error("JSON tensor " + std::string(name) + " has no array " +
                                 std::string(field));
    const std::size_t arr_end = json.find(']', arr);
    std::vector<std::string> out;
    std::string token;
    const auto flush = [&] {
        std::size_t b = 0;
        std::size_t e = token.size();
        while (b < e && std::isspace(static_cast<unsigned char>(token[b]))) ++b;
        while (e > b && std::isspace(static_cast<unsigned char>(token[e - 1]))) --e;
        std::string t = token.substr(b, e - b);
        if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
        if (!t.empty()) out.push_back(t);
        token.clear();
    };
    for (std::size_t p = arr; p < arr_end; ++p) {
        if (json[p] == ',')
            flush();
        else
            token += json[p];
    }
    flush();
    return out;
}

/// The tensor's "values" as doubles (float32 values are exact in double).
inline std::vector<double> json_tensor_values(const std::string& json, std::string_view name) {
    std::vector<double> out;
    for (const auto& t : json_tensor_array(json, name, "values")) out.push_back(std::stod(t));
    return out;
}

template <class T>
std::uint64_t bits_of(T v) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    if constexpr (std::is_same_v<T, float>)
        return std::bit_cast<std::uint32_t>(v);
    else
        return std::bit_cast<std::uint64_t>(v);
}

/// CHECKs that got[i] has exactly the bit pattern want_bits[i] for every i. On failure the
/// message names `what`, the number of mismatches, and the first: index, got and want bits.
template <class T>
void check_bits(std::span<const T> got, const std::vector<std::uint64_t>& want_bits,
                std::string_view what) {
    constexpr int kHexDigits = sizeof(T) * 2;
    REQUIRE_MESSAGE(got.size() == want_bits.size(),
                    fmt::format("{}: got {} values, want {}", what, got.size(), want_bits.size()));
    std::size_t mismatches = 0;
    std::string first;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const std::uint64_t g = bits_of(got[i]);
        if (g == want_bits[i]) continue;
        if (mismatches++ == 0) {
            const T want = [&] {
                if constexpr (std::is_same_v<T, float>)
                    return std::bit_cast<float>(static_cast<std::uint32_t>(want_bits[i]));
                else
                    return std::bit_cast<double>(want_bits[i]);
            }();
            first = fmt::format("index {}: got 0x{:0{}x} ({}), want 0x{:0{}x} ({})", i, g,
                                kHexDigits, got[i], want_bits[i], kHexDigits, want);
        }
    }
    CHECK_MESSAGE(mismatches == 0, fmt::format("{}: {} of {} values differ; first at {}", what,
                                               mismatches, got.size(), first));
}

template <class T>
void check_bits(const std::vector<T>& got, const std::vector<std::uint64_t>& want_bits,
                std::string_view what) {
    check_bits(std::span<const T>(got), want_bits, what);
}

}  // namespace attn::test
