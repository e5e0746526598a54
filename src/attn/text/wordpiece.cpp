#include "attn/text/wordpiece.hpp"

#include "attn/text/unicode.hpp"

namespace attn::text {

WordPiece::WordPiece(Vocabulary vocabulary, WordPieceOptions options)
    : vocabulary_(std::move(vocabulary)), options_(std::move(options)) {
    const auto unk = vocabulary_.id(options_.unk_token);
    if (!unk)
        throw TokenizerError("unk_token \"" + options_.unk_token + "\" is not in the vocabulary");
    unk_ = *unk;
}

void WordPiece::tokenize(const std::string& piece, std::vector<Token>& out) const {
    // Character boundaries: bounds[k] is where character k starts; bounds.back() the end.
    std::vector<std::size_t> bounds{0};
    for (std::size_t at = 0; at < piece.size();) {
        at += decode_at(piece, at).length;
        bounds.push_back(at);
    }
    const std::size_t chars = bounds.size() - 1;
    if (chars == 0) return;
    if (chars > options_.max_input_chars_per_word) {
        out.push_back({unk_, options_.unk_token});
        return;
    }
    std::vector<Token> pieces;
    for (std::size_t start = 0; start < chars;) {
        std::optional<Token> found;
        std::size_t end = chars;
        for (; end > start; --end) {
            std::string candidate = start > 0 ? options_.continuing_subword_prefix : std::string();
            candidate.append(piece, bounds[start], bounds[end] - bounds[start]);
            if (const auto id = vocabulary_.id(candidate)) {
                found = Token{*id, std::move(candidate)};
                break;
            }
        }
        if (!found) {
            out.push_back({unk_, options_.unk_token});
            return;
        }
        pieces.push_back(std::move(*found));
        start = end;
    }
    for (Token& t : pieces) out.push_back(std::move(t));
}

}  // namespace attn::text
