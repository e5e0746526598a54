// A GGUF file's tokenizer (tokenizer.ggml.*) as the tokenizer.json Hugging Face's converter
// started from, so that attn::text builds it as it builds any other. Byte-level BPE (model
// "gpt2"):
//   model        BPE: tokenizer.ggml.tokens (id = index) and .merges ("a b", by rank);
//                ignore_merges for Llama 3's pre-tokenizer, as its tokenizer.json says;
//   added_tokens the tokens of type CONTROL (3: special) and USER_DEFINED (4: not special) of
//                tokenizer.ggml.token_type;
//   pre-tokenizer what tokenizer.ggml.pre names, as llama.cpp maps it: gpt-2 (and the names
//                llama.cpp reads as GPT-2's: gpt2, phi-2, roberta-bpe, mpt, olmo) GPT-2's
//                ByteLevel regex; llama-bpe, llama3, llama-v3: Llama 3's Split pattern then
//                ByteLevel; qwen2, deepseek-r1-qwen: Qwen2's pattern, after NFC;
//   post-processor BOS (tokenizer.ggml.bos_token_id) before the text when
//                tokenizer.ggml.add_bos_token says so, else as llama.cpp defaults (Llama 3's
//                pre-tokenizer: yes; the others: no).
// SentencePiece files (model "llama"), as llama.cpp's SPM tokenizer reads them:
//   model        BPE with byte fallback (<0xXX> tokens) over tokenizer.ggml.tokens, unk_token
//                tokens[unknown_token_id]; merges: every split l + r = t of a token into two
//                tokens, t's tokenizer.ggml.scores highest first (llama.cpp merges the adjacent
//                pair whose concatenation scores highest);
//   normalizer   " " -> "▁", a "▁" prepended when tokenizer.ggml.add_space_prefix
//                (default true; Gemma's converter writes false);
//   added_tokens CONTROL (3) and UNKNOWN (2) special, USER_DEFINED (4) not, all in the raw text;
//   post-processor BOS (bos_token_id, default 1) unless add_bos_token is false, EOS
//                (eos_token_id, default 2) when add_eos_token is true.
// Other models and pre-tokenizers are refused naming the key.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "io/gguf.hpp"

namespace attn::io {

/// Whether the file holds a tokenizer attn reads (tokenizer.ggml.model is "gpt2" or "llama").
bool has_gguf_tokenizer(const GgufFile& file);

/// The tokenizer.json text; GgufError (exit 2) naming the key that attn cannot read
/// (tokenizer.ggml.model other than gpt2 and llama, tokenizer.ggml.pre not listed, tokens
/// missing, scores or token types shorter than the tokens).
std::string gguf_tokenizer_json(const GgufFile& file);

/// The tokenizer.json of a file whose tokenizer.ggml.model is "llama" (gguf_tokenizer_spm.cpp).
std::string gguf_spm_tokenizer_json(const GgufFile& file);

/// GgufError (metadata, naming the key and the entry) unless every string of `values` is
/// UTF-8 (no overlong form, surrogate or code point past U+10FFFF), as tokenizer.json needs.
void require_utf8(const GgufFile& file, std::string_view key,
                  std::span<const std::string_view> values);

}  // namespace attn::io
