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

/// Token strings <-> ids, both ways.
class Vocabulary {
  public:
    void add(std::string token, TokenId id);
    std::optional<TokenId> id(std::string_view token) const;
    const std::string* token(TokenId id) const;  // nullptr: no such id
    std::size_t size() const { return tokens_.size(); }
    void reserve(std::size_t n) {
        ids_.reserve(n);
        tokens_.reserve(n);
    }

  private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, TokenId, Hash, std::equal_to<>> ids_;
    std::unordered_map<TokenId, std::string> tokens_;
};

class Model {
  public:
    virtual ~Model() = default;
    /// Appends the tokens of one piece (already normalised and pre-tokenized).
    virtual void tokenize(const std::string& piece, std::vector<Token>& out) const = 0;
    virtual const Vocabulary& vocabulary() const = 0;
};

}  // namespace attn::text
