// What every tokenizer model (BPE, WordPiece, SentencePiece) offers: a vocabulary of token
// strings and ids, and the tokens of one pre-tokenized piece.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn::text {

using TokenId = std::int64_t;

struct Token {
    TokenId id;
    std::string text;  // as the vocabulary spells it ("Ġis", "▁is", "##ing")
};

/// Token strings <-> ids, both ways. A flat table: the strings back to back in one buffer and
/// an open-addressing index over them, so Llama 3's 128,000 tokens and 280,000 merges load
/// without a heap node per entry. A string given twice keeps its first id, an id given twice
/// its first string.
class Vocabulary {
  public:
    void add(std::string_view token, TokenId id);
    std::optional<TokenId> id(std::string_view token) const;
    std::optional<std::string_view> token(TokenId id) const;
    std::size_t size() const { return entries_.size(); }
    void reserve(std::size_t n);

  private:
    struct Entry {
        std::size_t offset, length;  // in text_
        TokenId id;
    };
    std::string_view text_of(const Entry& e) const { return {text_.data() + e.offset, e.length}; }
    void grow();
    std::optional<std::uint32_t> token_index(TokenId id) const;  // into entries_

    std::string text_;                  // every token string, back to back
    std::vector<Entry> entries_;        // in the order added
    std::vector<std::uint32_t> slots_;  // 1 + index into entries_ by string hash; 0 = empty
    std::vector<std::uint32_t> dense_;  // 1 + index by id, for ids below dense_.size()
    std::unordered_map<TokenId, std::uint32_t> sparse_;  // the other ids
};

class Model {
  public:
    virtual ~Model() = default;
    /// Appends the tokens of one piece (already normalised and pre-tokenized).
    virtual void tokenize(const std::string& piece, std::vector<Token>& out) const = 0;
    virtual const Vocabulary& vocabulary() const = 0;
};

}  // namespace attn::text
