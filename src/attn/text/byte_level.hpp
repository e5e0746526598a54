// GPT-2's byte-level alphabet: every byte of UTF-8 text shown as one printable character, so
// a vocabulary of strings covers any byte sequence. Bytes '!'..'~', U+00A1..U+00AC and
// U+00AE..U+00FF stand for themselves; the other 68 bytes (controls, space, DEL, U+00A0,
// U+00AD), in increasing order, become U+0100, U+0101, ... (space is U+0120 'Ġ', '\n' U+010A 'Ċ').
#pragma once

#include <string>
#include <string_view>

namespace attn::text {

/// Each byte of `bytes` replaced by its character in the byte-level alphabet (UTF-8 encoded).
std::string byte_level_encode(std::string_view bytes);

}  // namespace attn::text
