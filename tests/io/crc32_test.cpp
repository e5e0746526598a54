#include "io/crc32.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("crc32: the standard check value") {
    CHECK(attn::io::crc32("123456789") == 0xCBF43926u);
    CHECK(attn::io::crc32("") == 0u);
    // zlib.crc32(b"The quick brown fox jumps over the lazy dog")
    CHECK(attn::io::crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339u);
}

TEST_CASE("crc32: feeding pieces gives the CRC of the whole") {
    const std::string text = "Life is short, eat dessert first";
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        attn::io::Crc32 crc;
        crc.update(text.data(), cut);
        crc.update(text.data() + cut, text.size() - cut);
        CHECK(crc.value() == attn::io::crc32(text));
    }
}
