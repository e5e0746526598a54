// tokenizer.json, the file Hugging Face's tokenizers library saves: model (BPE, WordPiece),
// added_tokens, normalizer, pre_tokenizer and post_processor, read into a Tokenizer.
//
// Supported: models BPE (byte-level as GPT-2, Llama 3, Qwen2; SentencePiece-style with byte
// fallback as Llama 2 and Mistral; merges as "a b" strings or [a, b] pairs) and WordPiece;
// normalizers BertNormalizer, Lowercase, NFC, NFD, NFKC, NFKD, StripAccents, Strip, Prepend,
// Replace, Sequence; pre-tokenizers ByteLevel, Split, BertPreTokenizer, Whitespace,
// WhitespaceSplit, Punctuation, Digits, Metaspace, Sequence; post-processors
// TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence. Anything else
// is refused by name (TokenizerError), never ignored.
#pragma once

#include <string_view>

#include "attn/text/tokenizer.hpp"

namespace attn::text {

/// Throws TokenizerError naming the field at fault ("model.merges[12]: ...").
Tokenizer tokenizer_from_json(std::string_view json_text);

}  // namespace attn::text
