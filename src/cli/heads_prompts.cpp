// The prompts of attn heads: --ids, --prompts FILE (text lines or .jsonl objects) and the
// probe's allowed ids.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <system_error>

#include "attn/model/head_probe.hpp"
#include "cli/errors.hpp"
#include "cli/heads.hpp"
#include "io/input_file.hpp"
#include "io/text_lines.hpp"

namespace attn::cli {

namespace {

bool parse_whole(std::string_view item, std::int64_t& v) {
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    return !item.empty() && ec == std::errc() && end == item.data() + item.size();
}

}  // namespace

std::vector<std::int64_t> allowed_range(const std::string& probe_ids, std::size_t size,
                                        const std::vector<std::int64_t>& special) {
    std::int64_t first = 0, last = static_cast<std::int64_t>(size);
    if (!probe_ids.empty()) {
        const std::size_t colon = probe_ids.find(':');
        if (colon == std::string::npos || !parse_whole(probe_ids.substr(0, colon), first) ||
            !parse_whole(probe_ids.substr(colon + 1), last) || first < 0 || first >= last ||
            static_cast<std::uint64_t>(last) > size)
            throw std::invalid_argument(fmt::format(
                "'{}' is not a range A:B of ids with 0 <= A < B <= {} (the ids A .. B - 1)",
                probe_ids, size));
    }
    std::vector<std::int64_t> out = model::probe_ids(first, last, special);
    if (out.empty())
        throw std::invalid_argument(
            fmt::format("ids {} .. {} are all special tokens: nothing to draw", first, last - 1));
    return out;
}

std::vector<std::int64_t> allowed_probe_ids(const text::Tokenizer& tokenizer, std::size_t vocab,
                                            const std::string& probe_ids) {
    std::vector<std::int64_t> special;
    for (const text::AddedToken& t : tokenizer.added_tokens())
        special.push_back(static_cast<std::int64_t>(t.id));
    // ids the embedding has no row for are never drawn
    const std::size_t size = std::min(tokenizer.size(), vocab);
    return naming_option("--probe-ids", [&] { return allowed_range(probe_ids, size, special); });
}

std::vector<std::vector<std::int64_t>> read_prompts(const std::string& path,
                                                    const text::Tokenizer* tokenizer,
                                                    std::size_t vocab) {
    const bool jsonl = path.ends_with(".jsonl");
    io::InputFile input(path, true);
    const std::vector<std::string> lines =
        naming_option("--prompts", [&] { return io::read_lines(input.stream(), input.name()); });
    std::vector<std::vector<std::int64_t>> prompts;
    for (std::size_t k = 0; k < lines.size(); ++k) {
        const std::string& line = lines[k];
        if (line.empty()) continue;
        const std::string where = fmt::format("--prompts: {}, line {}", input.name(), k + 1);
        std::vector<std::int64_t> ids;
        std::optional<std::string> text;
        if (jsonl) {
            const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_object() && j.size() == 1 && j.contains("text") && j["text"].is_string()) {
                text = j["text"].get<std::string>();
            } else if (j.is_object() && j.size() == 1 && j.contains("ids") && j["ids"].is_array()) {
                for (const auto& v : j["ids"]) {
                    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
                        v.get<std::uint64_t>() >= vocab)
                        throw UsageError(
                            fmt::format("{}: {} is not a token id of this model (0..{})", where,
                                        v.dump(), vocab - 1));
                    ids.push_back(v.get<std::int64_t>());
                }
            } else {
                throw UsageError(fmt::format(
                    "{}: not a JSON object {{\"text\": \"...\"}} or {{\"ids\": [...]}}", where));
            }
        } else {
            text = line;
        }
        if (text) {
            if (!tokenizer)
                throw UsageError(fmt::format(
                    "{}: a text, and the model's folder has no tokenizer (give ids)", where));
            const auto e = naming_option(where, [&] { return tokenizer->encode(*text); });
            for (const auto id : e.ids) {
                if (static_cast<std::uint64_t>(id) >= vocab)
                    throw UsageError(fmt::format(
                        "{}: the tokenizer gives id {}, beyond the model's vocab_size {}", where,
                        id, vocab));
                ids.push_back(static_cast<std::int64_t>(id));
            }
        }
        if (ids.empty()) throw UsageError(where + ": the prompt gives no tokens");
        prompts.push_back(std::move(ids));
    }
    if (prompts.empty())
        throw UsageError(fmt::format("--prompts: {} holds no prompt", input.name()));
    return prompts;
}

HeadsShow parse_heads_show(const std::string& text) {
    HeadsShow show{false, false};
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        if (item == "scores")
            show.scores = true;
        else if (item == "prompts")
            show.prompts = true;
        else
            throw UsageError(
                fmt::format("--show: '{}' is not an array of heads (scores, prompts)", item));
        pos = comma + 1;
    }
    return show;
}

}  // namespace attn::cli
