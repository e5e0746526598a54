// A SentencePiece tokenizer.model (Llama 2's, T5's, ...), run by the SentencePiece library
// itself (Debian's libsentencepiece): its own normalisation, its own unigram or BPE search.
#pragma once

#include <memory>
#include <string_view>

#include "attn/text/model.hpp"

namespace attn::text {

class SentencePieceModel final : public Model {
  public:
    /// model_bytes: the file's contents (a serialised ModelProto). Throws TokenizerError
    /// with the library's reason when it does not load.
    explicit SentencePieceModel(std::string_view model_bytes);
    ~SentencePieceModel() override;
    /// The whole segment (text between added tokens) at once: SentencePiece normalises and
    /// marks word starts with "▁" itself.
    void tokenize(const std::string& piece, std::vector<Token>& out) const override;
    const Vocabulary& vocabulary() const override { return vocabulary_; }
    /// bos_id and eos_id of the model (-1: none).
    TokenId bos() const;
    TokenId eos() const;

  private:
    struct Processor;
    std::unique_ptr<Processor> processor_;
    Vocabulary vocabulary_;
};

}  // namespace attn::text
