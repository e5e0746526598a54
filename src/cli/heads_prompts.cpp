// The prompts of attn heads: the probe's allowed ids (--prompts FILE is cli/prompts.hpp's), and
// --show.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <system_error>

#include "attn/model/head_probe.hpp"
#include "cli/errors.hpp"
#include "cli/heads.hpp"

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
