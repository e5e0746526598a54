// The tokenizer of a model folder, chosen by the files it holds (as transformers' AutoTokenizer
// would load it): tokenizer.json when present, else vocab.json + merges.txt (GPT-2), vocab.txt
// (BERT), tokenizer.model or spiece.model (SentencePiece). tokenizer_config.json adds the slow
// tokenizers' options (do_lower_case, strip_accents, tokenize_chinese_chars, add_bos_token,
// add_eos_token); config.json's model_type is read only for a SentencePiece model without them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "attn/text/tokenizer.hpp"

namespace attn::cli {

/// Throws attn::text::TokenizerError (exit 2) naming the file at fault, or when the folder has
/// none of the files; std::system_error (exit 1) when a file cannot be read.
text::Tokenizer load_tokenizer(const std::filesystem::path& folder);

/// The files a tokenizer is read from, in the order load_tokenizer looks for them:
/// tokenizer.json, vocab.json + merges.txt, vocab.txt, tokenizer.model or spiece.model.
enum class TokenizerFiles { none, tokenizer_json, vocab_json_merges, vocab_txt, sentencepiece };

/// Which files load_tokenizer reads in `folder` (none when it has none of them).
TokenizerFiles tokenizer_files(const std::filesystem::path& folder);

}  // namespace attn::cli
