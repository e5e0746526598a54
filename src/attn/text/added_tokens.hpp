// Added and special tokens (<|endoftext|>, <s>, [CLS], <|im_start|> ...): found in the text
// before the model runs and kept whole. Tokens with normalized = false are looked for in the
// raw text, the others in the normalised text (Hugging Face's AddedVocabulary). At each
// position the longest token that matches wins, the leftmost position first.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "attn/text/model.hpp"

namespace attn::text {

struct AddedToken {
    std::string content;
    TokenId id = 0;
    bool special = false;
    bool lstrip = false;       // swallows the white space on its left
    bool rstrip = false;       // swallows the white space on its right
    bool normalized = false;   // matched in the normalised text rather than the raw text
    bool single_word = false;  // only between white space or text ends
};

/// A stretch of text, or an added token found there (token != nullptr).
struct Segment {
    std::string text;
    const AddedToken* token = nullptr;
    bool at_start = false;  // begins where the whole text begins
};

class AddedVocabulary {
  public:
    AddedVocabulary() = default;
    explicit AddedVocabulary(std::vector<AddedToken> tokens);
    /// The segments of `text`, looking for the tokens whose normalized flag is `normalized`.
    std::vector<Segment> split(const Segment& text, bool normalized) const;
    const std::vector<AddedToken>& tokens() const { return tokens_; }
    const AddedToken* find(std::string_view content) const;
    const AddedToken* find(TokenId id) const;

  private:
    std::vector<AddedToken> tokens_;
    // Indices into tokens_ by the first byte of their content, longest content first.
    std::array<std::vector<std::size_t>, 256> by_first_byte_;
};

}  // namespace attn::text
