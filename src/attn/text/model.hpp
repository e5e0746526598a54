// What every tokenizer model (BPE, WordPiece, SentencePiece) offers: a vocabulary of token
// strings and ids, and the tokens of one pre-tokenized piece.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
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
    /// False (and nothing changes) when the string or the id is already in.
    bool add(std::string_view token, TokenId id);
    std::optional<TokenId> id(std::string_view token) const;
    /// ids[i] = id(tokens[i]) for many tokens at once (equal sizes): the lookups go in groups,
    /// each step's memory fetched for the whole group before it is read, so the cache misses
    /// of a group overlap instead of following one another (a tokenizer's merges make 3
    /// lookups each: 840,000 for Llama 3's, at random places in megabytes of table).
    void find(std::span<const std::string_view> tokens,
              std::span<std::optional<TokenId>> ids) const;
    std::optional<std::string_view> token(TokenId id) const;
    std::size_t size() const { return entries_.size(); }
    void reserve(std::size_t n);

  private:
    friend class BulkVocabulary;
    struct Entry {
        std::uint32_t offset, length;  // in text_
        std::uint64_t hash;            // of the string (a rehash reads it, not the string)
        TokenId id;
    };
    // One slot of the index: 1 + the entry's index (0: free) and the high 32 bits of its hash,
    // so that a probe compares strings only when those bits agree.
    struct Slot {
        std::uint32_t entry, tag;
    };
    std::string_view text_of(const Entry& e) const { return {text_.data() + e.offset, e.length}; }
    std::optional<std::uint32_t> token_index(TokenId id) const;           // into entries_
    void append(std::string_view token, TokenId id, std::uint64_t hash);  // unindexed
    bool index_all();  // the index of every entry; false at a repeated string or id

    std::string text_;                  // every token string, back to back
    std::vector<Entry> entries_;        // in the order added
    std::vector<Slot> slots_;           // a power of two of them, at most half used; linear probing
    std::vector<std::uint32_t> dense_;  // 1 + index by id, for ids below dense_.size()
    std::unordered_map<TokenId, std::uint32_t> sparse_;  // the other ids
};

/// A vocabulary whose strings and ids should all differ, built faster than by add() one at a
/// time: append() only stores (in one buffer, in order); done() indexes everything at once,
/// sized for the final count, a group of entries' slots fetched ahead. done() gives nullopt
/// when a string or an id repeats (add() keeps the first of each; a JSON reader keeps the last
/// string: which one is the caller's choice).
class BulkVocabulary {
  public:
    void append(std::string_view token, TokenId id);
    std::optional<Vocabulary> done() &&;

  private:
    Vocabulary v_;
};

class Model {
  public:
    virtual ~Model() = default;
    /// Appends the tokens of one piece (already normalised and pre-tokenized).
    virtual void tokenize(const std::string& piece, std::vector<Token>& out) const = 0;
    virtual const Vocabulary& vocabulary() const = 0;
};

}  // namespace attn::text
