// A tokenizer's output as text, one text at a time as its line of standard input is read
// (attn tokenize): csv and tsv rows position,id,token (a leading text column for the texts of
// standard input), the aligned table (numbers right, tokens left, two spaces between columns,
// a blank line between texts) or a JSON line {"ids": [...], "tokens": [...]}. The array
// writers (ArraySink) need an array's rows before they start; these write a text as it comes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/csv.hpp"
#include "io/format.hpp"
#include "io/json.hpp"
#include "io/labels.hpp"

namespace attn::io {

/// One text's tokens. line: its line on standard input (nullopt: the one TEXT); header: the
/// csv/tsv header row (the table always has one); shown: how the table prints a token (control
/// characters escaped).
struct TokenRows {
    const std::vector<std::int64_t>& ids;
    const std::vector<std::string>& tokens;
    std::optional<std::size_t> line;
    bool header = true;
    std::function<std::string(std::string_view)> shown;
};

namespace token_rows_detail {

using Rows = std::vector<std::vector<std::string>>;

inline Rows rows(const TokenRows& t, bool header) {
    Rows rows;
    if (header)
        rows.push_back(t.line ? std::vector<std::string>{"text", "position", "id", "token"}
                              : std::vector<std::string>{"position", "id", "token"});
    for (std::size_t i = 0; i < t.ids.size(); ++i) {
        std::vector<std::string> row{std::to_string(i), std::to_string(t.ids[i]), t.tokens[i]};
        if (t.line) row.insert(row.begin(), std::to_string(*t.line));
        rows.push_back(std::move(row));
    }
    return rows;
}

inline std::string json(const TokenRows& t) {
    std::string out = "{\"ids\": [";
    for (std::size_t i = 0; i < t.ids.size(); ++i)
        out += (i ? ", " : "") + std::to_string(t.ids[i]);
    out += "], \"tokens\": [";
    for (std::size_t i = 0; i < t.tokens.size(); ++i)
        out += (i ? ", " : "") + json_string(t.tokens[i]);
    return out + "]}\n";
}

inline std::string table(const TokenRows& t) {
    Rows all = rows(t, true);
    std::vector<std::size_t> width(all.front().size(), 0);
    for (auto& row : all) {
        row.back() = t.shown(row.back());
        for (std::size_t c = 0; c < row.size(); ++c)
            width[c] = std::max(width[c], display_width(row[c]));
    }
    std::string out = t.line && *t.line > 0 ? "\n" : "";
    for (const auto& row : all) {
        for (std::size_t c = 0; c + 1 < row.size(); ++c)
            out += std::string(width[c] - display_width(row[c]), ' ') + row[c] + "  ";
        out += row.back() + "\n";
    }
    return out;
}

template <char separator>
std::string separated(const TokenRows& t) {
    std::string out;
    for (const auto& row : rows(t, t.header)) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c > 0) out += separator;
            out += separator == ',' ? csv_field(row[c]) : tsv_field(row[c]);
        }
        out += "\n";
    }
    return out;
}

using Writer = std::string (*)(const TokenRows&);
inline constexpr std::array<std::pair<Format, Writer>, 4> kWriters{{{Format::csv, separated<','>},
                                                                    {Format::tsv, separated<'\t'>},
                                                                    {Format::table, table},
                                                                    {Format::json, json}}};

}  // namespace token_rows_detail

/// The writer of one text's tokens in f: csv, tsv, table or json; nullptr for the others.
inline token_rows_detail::Writer token_rows_writer(Format f) {
    for (const auto& [format, writer] : token_rows_detail::kWriters)
        if (format == f) return writer;
    return nullptr;
}

}  // namespace attn::io
