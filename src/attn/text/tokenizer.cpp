#include "attn/text/tokenizer.hpp"

#include <algorithm>

#include "attn/text/unicode.hpp"

namespace attn::text {

Tokenizer::Tokenizer(Parts parts) : parts_(std::move(parts)) {
    if (!parts_.model) throw TokenizerError("a tokenizer needs a model");
}

Encoding Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
    if (!is_valid_utf8(text)) throw TokenizerError("the text is not valid UTF-8");
    std::vector<Token> tokens;
    if (add_special_tokens) tokens = parts_.post_processor.before;
    auto add_added = [&](const Segment& s) { tokens.push_back({s.token->id, s.token->content}); };
    for (const Segment& raw : parts_.added.split({std::string(text), nullptr, true}, false)) {
        if (raw.token) {
            add_added(raw);
            continue;
        }
        const Segment normalised{parts_.normalizer(raw.text), nullptr, raw.at_start};
        for (const Segment& s : parts_.added.split(normalised, true)) {
            if (s.token) {
                add_added(s);
                continue;
            }
            for (const Piece& p : parts_.pre_tokenizer({{s.text, s.at_start}}))
                parts_.model->tokenize(p.text, tokens);
        }
    }
    if (add_special_tokens)
        tokens.insert(tokens.end(), parts_.post_processor.after.begin(),
                      parts_.post_processor.after.end());
    Encoding e;
    e.ids.reserve(tokens.size());
    e.tokens.reserve(tokens.size());
    for (Token& t : tokens) {
        e.ids.push_back(t.id);
        e.tokens.push_back(std::move(t.text));
    }
    return e;
}

std::optional<std::string> Tokenizer::token(TokenId id) const {
    if (const AddedToken* t = parts_.added.find(id)) return t->content;
    if (const auto s = parts_.model->vocabulary().token(id)) return std::string(*s);
    return std::nullopt;
}

std::optional<TokenId> Tokenizer::id(std::string_view token) const {
    if (const AddedToken* t = parts_.added.find(token)) return t->id;
    return parts_.model->vocabulary().id(token);
}

std::size_t Tokenizer::size() const {
    std::size_t n = parts_.model->vocabulary().size();
    for (const AddedToken& t : parts_.added.tokens()) n = std::max<std::size_t>(n, t.id + 1);
    return n;
}

std::string Tokenizer::label(std::string_view token) const {
    if (parts_.added.find(token)) return visible_text(token);
    return token_label(token, parts_.spelling);
}

}  // namespace attn::text
