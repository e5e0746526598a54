#include "attn/text/byte_level.hpp"

#include <array>

#include "attn/text/unicode.hpp"

namespace attn::text {

namespace {

// byte -> its character, UTF-8 encoded.
std::array<std::string, 256> make_alphabet() {
    std::array<std::string, 256> alphabet;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        append_utf8(alphabet[static_cast<std::size_t>(b)],
                    printable ? static_cast<char32_t>(b) : next++);
    }
    return alphabet;
}

}  // namespace

std::string byte_level_encode(std::string_view bytes) {
    static const std::array<std::string, 256> alphabet = make_alphabet();
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char b : bytes) out += alphabet[static_cast<unsigned char>(b)];
    return out;
}

}  // namespace attn::text
