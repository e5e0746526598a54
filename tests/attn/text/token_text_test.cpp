// The text a token stands for: GPT-2's byte-level alphabet undone (byte_level_encode's inverse,
// checked on every byte), SentencePiece's "▁" and "<0xHH>" pieces, WordPiece as spelled, then
// spaces, newlines, controls and split characters made visible.
#include "attn/text/token_text.hpp"

#include <doctest/doctest.h>

#include <string>

#include "attn/text/byte_level.hpp"

using attn::text::byte_level_encode;
using attn::text::Spelling;
using attn::text::token_bytes;
using attn::text::token_label;
using attn::text::visible_text;

TEST_CASE("token text: byte-level spellings decode to their bytes") {
    CHECK(token_bytes("\xC4\xA0is", Spelling::byte_level) == " is");  // Ġis
    CHECK(token_bytes("\xC4\xA0"
                      "caf\xC3\x83\xC2\xA9",
                      Spelling::byte_level) == " caf\xC3\xA9");
    CHECK(token_bytes("\xC4\x8A\xC4\x8A", Spelling::byte_level) == "\n\n");  // ĊĊ
    CHECK(token_bytes("<|endoftext|>", Spelling::byte_level) == "<|endoftext|>");
    // every byte round-trips through the alphabet
    for (int b = 0; b < 256; ++b) {
        const std::string byte(1, static_cast<char>(b));
        CHECK(token_bytes(byte_level_encode(byte), Spelling::byte_level) == byte);
    }
    // a character outside the alphabet stands for itself
    CHECK(token_bytes("\xE2\x96\x81x", Spelling::byte_level) == "\xE2\x96\x81x");
}

TEST_CASE("token text: metaspace and byte pieces, wordpiece as spelled") {
    CHECK(token_bytes("\xE2\x96\x81is", Spelling::metaspace) == " is");  // ▁is
    CHECK(token_bytes("\xE2\x96\x81\xE2\x96\x81", Spelling::metaspace) == "  ");
    CHECK(token_bytes("<0x0A>", Spelling::metaspace) == "\n");
    CHECK(token_bytes("<0xE2>", Spelling::metaspace) == "\xE2");
    CHECK(token_bytes("<0xZZ>", Spelling::metaspace) == "<0xZZ>");
    CHECK(token_bytes("<s>", Spelling::metaspace) == "<s>");
    CHECK(token_bytes("##ing", Spelling::wordpiece) == "##ing");
    CHECK(token_bytes("[CLS]", Spelling::wordpiece) == "[CLS]");
}

TEST_CASE("token text: spaces, newlines, controls and stray bytes made visible") {
    CHECK(visible_text(" caf\xC3\xA9") ==
          "\xE2\x90\xA3"
          "caf\xC3\xA9");  // ␣café
    CHECK(visible_text("a\nb\tc\r") ==
          "a\xE2\x86\xB5"
          "b\xE2\x87\xA5"
          "c\xE2\x90\x8D");
    CHECK(visible_text(std::string("\0\x1B\x7F", 3)) == "<0x00><0x1B><0x7F>");
    CHECK(visible_text("\xE2\x82") == "<0xE2><0x82>");  // the first two bytes of €
    CHECK(visible_text("\xE2\x82\xAC") == "\xE2\x82\xAC");
    CHECK(visible_text("\xA9x") == "<0xA9>x");
    CHECK(token_label("\xC4\xA0"
                      "caf\xC3\x83\xC2\xA9",
                      Spelling::byte_level) ==
          "\xE2\x90\xA3"
          "caf\xC3\xA9");
    CHECK(token_label("\xC4\x8A", Spelling::byte_level) == "\xE2\x86\xB5");
    CHECK(token_label("<0x0A>", Spelling::metaspace) == "\xE2\x86\xB5");
    CHECK(token_label("\xE2\x96\x81is", Spelling::metaspace) == "\xE2\x90\xA3is");
    CHECK(token_label("##ing", Spelling::wordpiece) == "##ing");
}
