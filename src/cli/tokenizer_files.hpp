// The tokenizer of a model, built from the files io::ModelSource reads (as transformers'
// AutoTokenizer would load them): tokenizer.json when present, else vocab.json + merges.txt
// (GPT-2), vocab.txt (BERT), tokenizer.model or spiece.model (SentencePiece), with
// tokenizer_config.json's options of the slow tokenizers (do_lower_case, strip_accents,
// tokenize_chinese_chars, add_bos_token, add_eos_token); without the last two, a SentencePiece
// model adds what its family's descriptor says (model::Family::sentencepiece_bos/eos).
#pragma once

#include "attn/text/tokenizer.hpp"
#include "io/model_source.hpp"

namespace attn::cli {

/// Throws attn::text::TokenizerError (exit 2) naming the file at fault, or when the folder has
/// none of the files; std::system_error (exit 1) when a file cannot be read.
text::Tokenizer load_tokenizer(const io::ModelSource& source);

}  // namespace attn::cli
