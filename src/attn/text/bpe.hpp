// Byte-pair encoding (Sennrich et al.; Hugging Face tokenizers, models/bpe/): a piece starts as
// its characters, then the adjacent pair with the lowest merge rank is merged, again and
// again (the leftmost of equal ranks first) until no listed merge applies.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attn/text/model.hpp"

namespace attn::text {

struct BpeOptions {
    std::optional<std::string> unk_token;   // for characters outside the vocabulary
    std::string continuing_subword_prefix;  // before every character but the first
    std::string end_of_word_suffix;         // after the last character
    bool fuse_unk = false;                  // neighbouring unknown characters give one unk token
    bool byte_fallback = false;             // an unknown character becomes its bytes' <0xNN> tokens
    bool ignore_merges = false;  // a piece that is a token is taken whole, without merging
};

class Bpe final : public Model {
  public:
    /// merges in priority order (rank 0 first), each a pair of tokens whose concatenation
    /// (the right one without the continuing prefix) is a token. Throws TokenizerError naming
    /// the merge when a token is missing.
    Bpe(Vocabulary vocabulary, const std::vector<std::pair<std::string, std::string>>& merges,
        BpeOptions options);
    void tokenize(const std::string& piece, std::vector<Token>& out) const override;
    const Vocabulary& vocabulary() const override { return vocabulary_; }

  private:
    struct Merge {
        std::size_t rank;
        TokenId result;
    };
    static std::uint64_t key(TokenId left, TokenId right) {
        return (static_cast<std::uint64_t>(left) << 32) ^ static_cast<std::uint64_t>(right);
    }
    std::vector<TokenId> initial_symbols(const std::string& piece) const;
    void merge_all(std::vector<TokenId>& symbols) const;

    Vocabulary vocabulary_;
    std::unordered_map<std::uint64_t, Merge> merges_;
    BpeOptions options_;
    std::optional<TokenId> unk_;
};

}  // namespace attn::text
