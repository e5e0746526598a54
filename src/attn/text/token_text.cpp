#include "attn/text/token_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "attn/text/byte_level.hpp"
#include "attn/text/unicode.hpp"

namespace attn::text {

namespace {

constexpr std::string_view kMetaspace = "\xE2\x96\x81";  // U+2581 '▁'

// The byte-level alphabet backwards: a character's UTF-8 -> its byte.
const std::unordered_map<std::string, unsigned char>& byte_of_character() {
    static const auto table = [] {
        std::unordered_map<std::string, unsigned char> t;
        for (int b = 0; b < 256; ++b) {
            const char c = static_cast<char>(b);
            t.emplace(byte_level_encode(std::string_view(&c, 1)), static_cast<unsigned char>(b));
        }
        return t;
    }();
    return table;
}

// Length of a whole, valid UTF-8 character at s[at] (1..4), or 0 when s[at] starts none.
std::size_t character_length(std::string_view s, std::size_t at) {
    const auto lead = static_cast<unsigned char>(s[at]);
    const std::size_t len = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (at + len > s.size() || !is_valid_utf8(s.substr(at, len))) return 0;
    return len;
}

// "<0xHH>" of SentencePiece's byte pieces: the byte, or nullopt for any other token.
std::optional<char> byte_piece(std::string_view token) {
    if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>') return std::nullopt;
    unsigned value = 0;
    for (const char c : token.substr(3, 2)) {
        const int digit = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                 : -1;
        if (digit < 0) return std::nullopt;
        value = value * 16 + static_cast<unsigned>(digit);
    }
    return static_cast<char>(value);
}

}  // namespace

std::string token_bytes(std::string_view token, Spelling spelling) {
    std::string out;
    switch (spelling) {
        case Spelling::plain:
        case Spelling::wordpiece:
            return std::string(token);
        case Spelling::metaspace:
            if (const auto b = byte_piece(token)) return std::string(1, *b);
            for (std::size_t at = 0; at < token.size();) {
                if (token.substr(at).starts_with(kMetaspace)) {
                    out += ' ';
                    at += kMetaspace.size();
                } else {
                    out += token[at++];
                }
            }
            return out;
        case Spelling::byte_level: {
            const auto& table = byte_of_character();
            for (std::size_t at = 0; at < token.size();) {
                const std::size_t len = std::max<std::size_t>(1, character_length(token, at));
                const std::string c(token.substr(at, len));
                const auto it = table.find(c);
                out += it != table.end() ? std::string(1, static_cast<char>(it->second)) : c;
                at += len;
            }
            return out;
        }
    }
    return std::string(token);
}

std::string visible_text(std::string_view bytes) {
    std::string out;
    for (std::size_t at = 0; at < bytes.size();) {
        const std::size_t len = character_length(bytes, at);
        const auto b = static_cast<unsigned char>(bytes[at]);
        if (len == 1 && b == ' ')
            out += "\xE2\x90\xA3";  // ␣
        else if (len == 1 && b == '\n')
            out += "\xE2\x86\xB5";  // ↵
        else if (len == 1 && b == '\t')
            out += "\xE2\x87\xA5";  // ⇥
        else if (len == 1 && b == '\r')
            out += "\xE2\x90\x8D";  // ␍
        else if (len == 0 || (len == 1 && (b < 0x20 || b == 0x7F)))
            out += fmt::format("<0x{:02X}>", b);
        else
            out += bytes.substr(at, len);
        at += std::max<std::size_t>(1, len);
    }
    return out;
}

std::string token_label(std::string_view token, Spelling spelling) {
    return visible_text(token_bytes(token, spelling));
}

}  // namespace attn::text
