#include "attn/text/byte_level.hpp"

#include <doctest/doctest.h>

using attn::text::byte_level_encode;

TEST_CASE("byte level: printable bytes stand for themselves, the 68 others shift to U+0100 on") {
    CHECK(byte_level_encode("a~!") == "a~!");
    CHECK(byte_level_encode(std::string(1, '\0')) == "\xC4\x80");  // U+0100
    CHECK(byte_level_encode("\t") == "\xC4\x89");                  // U+0109 ĉ
    CHECK(byte_level_encode("\n") == "\xC4\x8A");                  // U+010A Ċ
    CHECK(byte_level_encode(" ") == "\xC4\xA0");                   // U+0120 Ġ
    CHECK(byte_level_encode("\x7F") == "\xC4\xA1");  // DEL: U+0121, after the 33 controls and space
    CHECK(byte_level_encode("\xA0") == "\xC5\x82");  // U+00A0: U+0142
    CHECK(byte_level_encode("\xAD") == "\xC5\x83");  // soft hyphen: U+0143, the last one
    CHECK(byte_level_encode("\xA1\xAC\xAE\xFF") == "\xC2\xA1\xC2\xAC\xC2\xAE\xC3\xBF");
    CHECK(byte_level_encode("caf\xC3\xA9") == "caf\xC3\x83\xC2\xA9");  // é's bytes: "Ã©"
}
