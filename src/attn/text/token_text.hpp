// The text a token stands for, and that text as a label people read (pictures, pages, tables).
// The vocabulary spells a token in its model's alphabet; the label undoes the spelling:
//   byte_level (GPT-2, Llama 3, Qwen2): each character of byte_level.hpp's alphabet is its byte
//     ("Ġis" -> " is", "ĠcafÃ©" -> " café", "Ċ" -> "\n"); other characters stand for themselves;
//   metaspace (SentencePiece, Llama 2, Mistral): "▁" is a space, a piece "<0xHH>" the byte HH;
//   wordpiece (BERT): as spelled; "##ing" keeps its "##", the mark that it continues the word
//     before it (what the tokenizer's decoder gives for the token alone);
//   plain: as spelled.
// Then the bytes made visible: ' ' -> "␣" (U+2423), '\n' -> "↵" (U+21B5), '\t' -> "⇥" (U+21E5),
// '\r' -> "␍" (U+240D); other control characters (U+0000..U+001F, U+007F) and bytes that are not
// part of a whole UTF-8 character (a character split across tokens) as "<0xHH>".
#pragma once

#include <string>
#include <string_view>

namespace attn::text {

/// How a vocabulary spells the bytes of its tokens.
enum class Spelling { plain, byte_level, metaspace, wordpiece };

/// The bytes `token` (as `spelling` spells it) stands for; not necessarily valid UTF-8.
std::string token_bytes(std::string_view token, Spelling spelling);

/// Bytes as a label: whole UTF-8 characters as they are, except spaces, newlines, tabs and
/// carriage returns as "␣", "↵", "⇥", "␍"; other controls and stray bytes as "<0xHH>".
std::string visible_text(std::string_view bytes);

/// visible_text(token_bytes(token, spelling)).
std::string token_label(std::string_view token, Spelling spelling);

}  // namespace attn::text
