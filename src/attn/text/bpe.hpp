// Byte-pair encoding (Sennrich et al.; Hugging Face tokenizers, models/bpe/): a piece starts as
// its characters, then the adjacent pair with the lowest merge rank is merged, again and
// again (the leftmost of equal ranks first) until no listed merge applies.
#pragma once

#include <optional>
#include <string>
#include <string_view>
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

/// One merge rule, (left, right), as views into the text it was read from.
using MergePair = std::pair<std::string_view, std::string_view>;

class Bpe final : public Model {
  public:
    /// merges in priority order (rank 0 first), each a pair of tokens whose concatenation
    /// (the right one without the continuing prefix) is a token. Throws TokenizerError naming
    /// the merge when a token is missing.
    Bpe(Vocabulary vocabulary, const std::vector<MergePair>& merges, BpeOptions options);
    void tokenize(const std::string& piece, std::vector<Token>& out) const override;
    const Vocabulary& vocabulary() const override { return vocabulary_; }

  private:
    // One slot of the open-addressing merge table: the pair (left << 32 | right), its rank
    // and the token it makes (16 bytes: ids below 2^32); key kEmpty marks a free slot.
    struct Merge {
        std::uint64_t key;
        std::uint32_t rank, result;
    };
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
    static std::uint64_t key(TokenId left, TokenId right) {
        return (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint64_t>(right);
    }
    const Merge* find(std::uint64_t key) const;
    std::vector<TokenId> initial_symbols(const std::string& piece) const;
    void merge_all(std::vector<TokenId>& symbols) const;

    Vocabulary vocabulary_;
    std::vector<Merge> merges_;  // a power of two slots, at most 2/3 of them used
    BpeOptions options_;
    std::optional<TokenId> unk_;
};

}  // namespace attn::text
