#include "attn/text/tokenizer_json_large.hpp"

#include <algorithm>

#include "attn/text/json_scanner.hpp"

namespace attn::text {

namespace {

// {"token": id, ...}: nullopt (the value still scanned, so validated) at the first member the
// fast reading does not cover.
std::optional<Vocabulary> read_vocabulary(JsonScanner& in) {
    BulkVocabulary bulk;
    bool fast = true;
    in.object([&](std::string_view token) {
        const std::optional<std::int64_t> id = in.small_integer();
        if (!id)
            fast = false;
        else if (fast)
            bulk.append(token, *id);
    });
    return fast ? std::move(bulk).done() : std::nullopt;
}

// ["a b", ...] or [["a", "b"], ...], the two forms mixed or not: nullopt at the first entry that
// is neither.
std::optional<std::vector<MergePair>> read_merges(JsonScanner& in, std::string& arena) {
    std::optional<std::vector<MergePair>> merges(std::in_place);
    // An entry takes 6 bytes at least ("a b",): an upper bound, so the vector never moves; the
    // pages beyond what is used are never touched.
    merges->reserve((in.text().size() - in.offset()) / 6 + 1);
    if (arena.capacity() < in.text().size())
        arena.reserve(std::max<std::size_t>(in.text().size(), 64));
    in.array([&] {
        if (in.peek() == '"') {
            const std::string_view s = in.string(arena);
            const std::size_t space = s.find(' ');
            if (merges && space != std::string_view::npos &&
                s.find(' ', space + 1) == std::string_view::npos)
                merges->emplace_back(s.substr(0, space), s.substr(space + 1));
            else
                merges.reset();
            return;
        }
        if (in.peek() != '[') {
            in.skip_value();
            merges.reset();
            return;
        }
        std::string_view pair[2];
        std::size_t n = 0;
        in.array([&] {
            if (in.peek() == '"' && n < 2)
                pair[n++] = in.string(arena);
            else
                in.skip_value(), n = 3;
        });
        if (merges && n == 2)
            merges->emplace_back(pair[0], pair[1]);
        else
            merges.reset();
    });
    return merges;
}

}  // namespace

LargeFields scan_large_fields(std::string_view json_text) {
    LargeFields out;
    JsonScanner in(json_text);
    // [begin, end) of each value cut out of the document, in order, and what replaces it.
    struct Cut {
        std::size_t begin, end;
        const char* with;
    };
    std::vector<Cut> cuts;
    const auto cut = [&](std::size_t begin, const char* with) {
        cuts.push_back({begin, in.offset(), with});
        return json_text.substr(begin, in.offset() - begin);
    };
    const auto read_model = [&] {
        // A reader keeps the last of repeated keys: so does this, "model" and its members alike.
        out.vocabulary.reset();
        out.merges.reset();
        out.vocab_text = out.merges_text = {};
        in.object([&](std::string_view key) {
            const char next = in.peek();
            const std::size_t begin = in.offset();
            if (key == "vocab" && next == '{') {
                out.vocabulary = read_vocabulary(in);
                out.vocab_text = cut(begin, "{}");
            } else if (key == "merges" && next == '[') {
                out.merges = read_merges(in, out.arena);
                out.merges_text = cut(begin, "[]");
            } else {
                if (key == "vocab") out.vocabulary.reset(), out.vocab_text = {};
                if (key == "merges") out.merges.reset(), out.merges_text = {};
                in.skip_value();
            }
        });
    };
    if (in.peek() == '{')
        in.object([&](std::string_view key) {
            if (key == "model" && in.peek() == '{')
                read_model();
            else
                in.skip_value();
        });
    else
        in.skip_value();
    in.expect_end();

    std::size_t from = 0;
    for (const Cut& c : cuts) {
        out.rest.append(json_text.substr(from, c.begin - from)).append(c.with);
        from = c.end;
    }
    out.rest.append(json_text.substr(from));
    return out;
}

}  // namespace attn::text
