// WordPiece (BERT; Hugging Face tokenizers, models/wordpiece/): greedy longest match from the
// left, pieces after the first spelled with the continuing prefix ("##"); a word with any part
// not in the vocabulary, or longer than max_input_chars_per_word characters, is one unk token.
#pragma once

#include <string>

#include "attn/text/model.hpp"

namespace attn::text {

struct WordPieceOptions {
    std::string unk_token = "[UNK]";
    std::string continuing_subword_prefix = "##";
    std::size_t max_input_chars_per_word = 100;
};

class WordPiece final : public Model {
  public:
    /// Throws TokenizerError when unk_token is not in the vocabulary.
    WordPiece(Vocabulary vocabulary, WordPieceOptions options);
    void tokenize(const std::string& piece, std::vector<Token>& out) const override;
    const Vocabulary& vocabulary() const override { return vocabulary_; }

  private:
    Vocabulary vocabulary_;
    WordPieceOptions options_;
    TokenId unk_;
};

}  // namespace attn::text
