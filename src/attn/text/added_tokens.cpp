#include "attn/text/added_tokens.hpp"

#include <algorithm>

#include "attn/text/unicode.hpp"

namespace attn::text {

namespace {

// The code point that ends at `end` (end > 0).
char32_t code_point_before(std::string_view text, std::size_t end) {
    std::size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    return decode_at(text, start).value;
}

}  // namespace

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
    for (std::size_t i = 0; i < tokens_.size(); ++i)
        if (!tokens_[i].content.empty())
            by_first_byte_[static_cast<unsigned char>(tokens_[i].content[0])].push_back(i);
    for (auto& list : by_first_byte_)
        std::stable_sort(list.begin(), list.end(), [this](std::size_t a, std::size_t b) {
            return tokens_[a].content.size() > tokens_[b].content.size();
        });
}

std::vector<Segment> AddedVocabulary::split(const Segment& whole, bool normalized) const {
    const std::string& text = whole.text;
    std::vector<Segment> out;
    std::size_t done = 0;  // text before this is in out
    auto push_text = [&](std::size_t begin, std::size_t end) {
        if (end > begin)
            out.push_back({text.substr(begin, end - begin), nullptr, whole.at_start && begin == 0});
    };
    for (std::size_t at = 0; at < text.size();) {
        const AddedToken* match = nullptr;
        for (const std::size_t i : by_first_byte_[static_cast<unsigned char>(text[at])]) {
            const AddedToken& t = tokens_[i];
            if (t.normalized != normalized || text.compare(at, t.content.size(), t.content) != 0)
                continue;
            const std::size_t end = at + t.content.size();
            if (t.single_word &&
                ((at > 0 && !is_whitespace(code_point_before(text, at))) ||
                 (end < text.size() && !is_whitespace(decode_at(text, end).value))))
                continue;
            match = &t;
            break;
        }
        if (!match) {
            at += decode_at(text, at).length;
            continue;
        }
        std::size_t begin = at, end = at + match->content.size();
        if (match->lstrip)
            while (begin > done && is_whitespace(code_point_before(text, begin))) {
                std::size_t start = begin - 1;
                while (start > done && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
                    --start;
                begin = start;
            }
        if (match->rstrip)
            while (end < text.size() && is_whitespace(decode_at(text, end).value))
                end += decode_at(text, end).length;
        push_text(done, begin);
        out.push_back({match->content, match, false});
        done = at = end;
    }
    push_text(done, text.size());
    return out;
}

const AddedToken* AddedVocabulary::find(std::string_view content) const {
    for (const AddedToken& t : tokens_)
        if (t.content == content) return &t;
    return nullptr;
}

const AddedToken* AddedVocabulary::find(TokenId id) const {
    for (const AddedToken& t : tokens_)
        if (t.id == id) return &t;
    return nullptr;
}

}  // namespace attn::text
