// A tokenizer as Hugging Face runs one (tokenizers' TokenizerImpl::encode): added tokens split
// out of the raw text, the rest normalised, added tokens split out again, pre-tokenized into
// pieces, each piece through the model, then the post-processor's special tokens around it.
//
// Made from the files' contents (tokenizer_json.hpp, vocab_files.hpp); reads no file itself.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/text/added_tokens.hpp"
#include "attn/text/model.hpp"
#include "attn/text/normalizer.hpp"
#include "attn/text/post_processor.hpp"
#include "attn/text/pre_tokenizer.hpp"
#include "attn/text/token_text.hpp"

namespace attn::text {

/// What tokenizer(text) gives: ids and the tokens as the vocabulary spells them, in order.
struct Encoding {
    std::vector<TokenId> ids;
    std::vector<std::string> tokens;
};

class Tokenizer {
  public:
    struct Parts {
        AddedVocabulary added;
        Normalizer normalizer;
        PreTokenizer pre_tokenizer;
        std::shared_ptr<const Model> model;
        PostProcessor post_processor;
        std::string kind;  // "byte-level BPE (tokenizer.json)", "WordPiece (vocab.txt)" ...
        Spelling spelling = Spelling::plain;  // how the vocabulary spells bytes (token_text.hpp)
    };
    explicit Tokenizer(Parts parts);

    /// Text must be UTF-8 (TokenizerError otherwise). An empty text gives only the
    /// post-processor's tokens.
    Encoding encode(std::string_view text, bool add_special_tokens = true) const;

    /// The token string of an id (the vocabulary's, or an added token's); nullopt when neither
    /// has it.
    std::optional<std::string> token(TokenId id) const;
    /// The id of a token string, if the vocabulary or the added tokens have it.
    std::optional<TokenId> id(std::string_view token) const;
    const std::string& kind() const { return parts_.kind; }
    Spelling spelling() const { return parts_.spelling; }
    /// The text a token of this vocabulary stands for, made visible (token_text.hpp): an added
    /// token as it is written, any other decoded from the vocabulary's spelling.
    std::string label(std::string_view token) const;
    /// The added tokens, special or not (special tokens, <|endoftext|>, [CLS] ...).
    const std::vector<AddedToken>& added_tokens() const { return parts_.added.tokens(); }
    /// Ids 0 .. size() - 1: 1 + the largest id of the vocabulary and the added tokens.
    std::size_t size() const;
    /// The special tokens the post-processor puts before every text (<s>, [CLS], ...).
    const std::vector<Token>& prefix() const { return parts_.post_processor.before; }

  private:
    Parts parts_;
};

}  // namespace attn::text
