// Tokenizers from the older file sets that transformers' slow tokenizers read, when a model
// has no tokenizer.json: GPT-2's vocab.json + merges.txt, BERT's vocab.txt, SentencePiece's
// tokenizer.model. Each takes the files' contents; none reads a file.
#pragma once

#include <optional>
#include <string_view>

#include "attn/text/tokenizer.hpp"

namespace attn::text {

/// GPT2Tokenizer: byte-level BPE with GPT-2's pattern, no special tokens added around the
/// text; <|endoftext|> in the text is its special token (as GPT2Tokenizer treats it).
/// merges_txt: "#version" line, then one "a b" per line in priority order.
Tokenizer tokenizer_from_gpt2_files(std::string_view vocab_json, std::string_view merges_txt);

/// BertTokenizer's options (tokenizer_config.json: do_lower_case, strip_accents,
/// tokenize_chinese_chars).
struct BertOptions {
    bool lowercase = true;
    std::optional<bool> strip_accents;  // nullopt: as lowercase
    bool chinese_chars = true;
};
/// BertTokenizer: one token a line (the line number is its id), BertNormalizer,
/// BertPreTokenizer, WordPiece, [CLS] text [SEP]; [PAD] [UNK] [CLS] [SEP] [MASK] are special.
Tokenizer tokenizer_from_vocab_txt(std::string_view vocab_txt, const BertOptions& options);

/// The slow tokenizers' choice around a SentencePiece model (LlamaTokenizer adds BOS, T5's
/// adds EOS).
struct SentencePieceOptions {
    bool add_bos = true;
    bool add_eos = false;
};
Tokenizer tokenizer_from_sentencepiece(std::string_view model_bytes,
                                       const SentencePieceOptions& options);

}  // namespace attn::text
