#include "attn/text/json_scanner.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <system_error>

namespace attn::text {

namespace {

// plain[c]: byte c stands for itself inside a string (U+0020..U+007F but '"' and '\\').
constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c) plain[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return plain;
}();

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

}  // namespace

JsonScanError::JsonScanError(std::size_t at, const std::string& what)
    : std::runtime_error(fmt::format("at byte {}: {}", at, what)), offset(at) {}

JsonScanner::JsonScanner(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;
}

void JsonScanner::fail(const std::string& what) const {
    throw JsonScanError(at_, what);
}

void JsonScanner::skip_whitespace() {
    while (at_ < text_.size()) {
        const char c = text_[at_];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
        ++at_;
    }
}

char JsonScanner::peek() {
    skip_whitespace();
    return at_ < text_.size() ? text_[at_] : '\0';
}

bool JsonScanner::take(char c) {
    if (peek() != c || at_ == text_.size()) return false;
    ++at_;
    return true;
}

void JsonScanner::expect(char c) {
    if (!take(c)) fail(fmt::format("expected '{}'", c));
}

void JsonScanner::expect_end() {
    skip_whitespace();
    if (at_ != text_.size()) fail("text after the top-level value");
}

// RFC 3629's well-formed sequences: a lead byte C2..F4, then continuation bytes 80..BF, the
// first of them narrowed after E0 (A0..), ED (..9F: no surrogates), F0 (90..) and F4 (..8F:
// nothing beyond U+10FFFF).
void JsonScanner::skip_utf8() {
    const auto byte = [&](std::size_t k) {
        return at_ + k < text_.size() ? static_cast<unsigned char>(text_[at_ + k]) : 0;
    };
    const unsigned char lead = byte(0);
    unsigned char low = 0x80, high = 0xBF;
    std::size_t continuation = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        continuation = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        continuation = 2;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        continuation = 3;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        fail("not valid UTF-8");
    }
    if (byte(1) < low || byte(1) > high) fail("not valid UTF-8");
    for (std::size_t k = 2; k <= continuation; ++k)
        if (byte(k) < 0x80 || byte(k) > 0xBF) fail("not valid UTF-8");
    at_ += continuation + 1;
}

std::string_view JsonScanner::string(std::string& decoded) {
    expect('"');
    const std::size_t start = at_;
    const char* const text = text_.data();
    const std::size_t size = text_.size();
    for (;;) {
        while (at_ < size && kPlain[static_cast<unsigned char>(text[at_])]) ++at_;
        if (at_ == size) fail("a string without its closing quote");
        const auto c = static_cast<unsigned char>(text[at_]);
        if (c == '"') return text_.substr(start, at_++ - start);
        if (c == '\\') return decode_rest(start, decoded);
        if (c < 0x20) fail("a control character in a string");
        skip_utf8();
    }
}

char32_t JsonScanner::hex4() {
    char32_t value = 0;
    for (int k = 0; k < 4; ++k, ++at_) {
        const char c = at_ < text_.size() ? text_[at_] : '\0';
        const int digit = is_digit(c)              ? c - '0'
                          : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                          : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                   : -1;
        if (digit < 0) fail("\\u must be followed by four hexadecimal digits");
        value = value << 4 | static_cast<char32_t>(digit);
    }
    return value;
}

// The string from `start` (after its opening quote) with the cursor on its first backslash.
std::string_view JsonScanner::decode_rest(std::size_t start, std::string& decoded) {
    const std::size_t first = decoded.size();
    decoded.append(text_.substr(start, at_ - start));
    while (at_ < text_.size()) {
        const auto c = static_cast<unsigned char>(text_[at_]);
        if (c == '"') {
            ++at_;
            return std::string_view(decoded).substr(first);
        }
        if (c < 0x20) fail("a control character in a string");
        if (c != '\\') {
            const std::size_t from = at_;
            if (c < 0x80)
                ++at_;
            else
                skip_utf8();
            decoded.append(text_.substr(from, at_ - from));
            continue;
        }
        const char e = ++at_ < text_.size() ? text_[at_++] : '\0';
        switch (e) {
            case '"':
            case '\\':
            case '/':
                decoded += e;
                break;
            case 'b':
                decoded += '\b';
                break;
            case 'f':
                decoded += '\f';
                break;
            case 'n':
                decoded += '\n';
                break;
            case 'r':
                decoded += '\r';
                break;
            case 't':
                decoded += '\t';
                break;
            case 'u': {
                char32_t c32 = hex4();
                if (c32 >= 0xDC00 && c32 <= 0xDFFF)
                    fail("a low surrogate \\uDC00..\\uDFFF without a high one before it");
                if (c32 >= 0xD800 && c32 <= 0xDBFF) {
                    if (text_.substr(at_, 2) != "\\u")
                        fail("a high surrogate \\uD800..\\uDBFF without a low one after it");
                    at_ += 2;
                    const char32_t low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF)
                        fail("a high surrogate \\uD800..\\uDBFF without a low one after it");
                    c32 = 0x10000 + ((c32 - 0xD800) << 10) + (low - 0xDC00);
                }
                append_utf8(decoded, c32);
                break;
            }
            default:
                fail("not an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
        }
    }
    fail("a string without its closing quote");
}

// The JSON number grammar; a number too large for a double (nlohmann::json refuses it as an
// overflow) is refused too, while one too small for it (0 in nlohmann::json) is accepted.
void JsonScanner::skip_number() {
    const std::size_t start = at_;
    const auto at = [&] { return at_ < text_.size() ? text_[at_] : '\0'; };
    const auto digits = [&] {
        if (!is_digit(at())) fail("a digit expected in a number");
        while (is_digit(at())) ++at_;
    };
    if (at() == '-') ++at_;
    if (at() == '0')
        ++at_;
    else
        digits();
    bool plain = true;
    if (at() == '.') {
        ++at_;
        digits();
        plain = false;
    }
    if (at() == 'e' || at() == 'E') {
        ++at_;
        if (at() == '+' || at() == '-') ++at_;
        digits();
        plain = false;
    }
    if (plain && at_ - start <= 19) return;  // below 10^19: an exact integer
    double value = 0;
    const auto [end, error] = std::from_chars(text_.data() + start, text_.data() + at_, value);
    if (error != std::errc::result_out_of_range) return;
    // Out of range: overflow when the leading significant digit's power of ten is positive.
    std::int64_t power = 0, exponent = 0;
    bool significant = false, fraction = false;
    std::size_t k = start;
    for (; k < at_ && text_[k] != 'e' && text_[k] != 'E'; ++k) {
        if (text_[k] == '.') fraction = true;
        if (!is_digit(text_[k])) continue;
        significant = significant || text_[k] != '0';
        if (!fraction && significant) ++power;
        if (fraction && !significant) --power;
    }
    if (k < at_) {
        const char* from = text_.data() + k + 1 + (text_[k + 1] == '+');
        const auto parsed = std::from_chars(from, text_.data() + at_, exponent);
        if (parsed.ec == std::errc::result_out_of_range)
            exponent = *from == '-' ? -(1LL << 62) : 1LL << 62;
    }
    if (power + exponent > 0) {
        at_ = start;
        fail("a number beyond the range of a double");
    }
}

std::optional<std::int64_t> JsonScanner::small_integer() {
    const char c = peek();
    if (c != '-' && !is_digit(c)) {
        skip_value();
        return std::nullopt;
    }
    const std::size_t start = at_;
    skip_number();
    const std::string_view number = text_.substr(start, at_ - start);
    const std::string_view digits = number.substr(c == '-' ? 1 : 0);
    if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    std::int64_t value = 0;
    for (const char d : digits) value = value * 10 + (d - '0');
    return c == '-' ? -value : value;
}

void JsonScanner::skip_scalar() {
    const char c = peek();
    const auto literal = [&](std::string_view word) {
        if (text_.substr(at_, word.size()) != word) fail("expected a value");
        at_ += word.size();
    };
    if (c == '"') {
        key_.clear();
        string(key_);
    } else if (c == 't') {
        literal("true");
    } else if (c == 'f') {
        literal("false");
    } else if (c == 'n') {
        literal("null");
    } else if (c == '-' || is_digit(c)) {
        skip_number();
    } else {
        fail("expected a value");
    }
}

void JsonScanner::skip_key() {
    key_.clear();
    string(key_);
    expect(':');
}

// Iterative: `open` holds the containers the cursor is inside ('{' or '['), innermost last.
void JsonScanner::skip_value() {
    std::string open;
    for (;;) {
        const char c = peek();
        if ((c == '{' || c == '[') && at_ < text_.size()) {
            ++at_;
            const char close = c == '{' ? '}' : ']';
            if (!take(close)) {
                open += c;
                if (c == '{') skip_key();
                continue;
            }
        } else {
            skip_scalar();
        }
        // After a value: close the containers it ends, or go on to the next member.
        for (;;) {
            if (open.empty()) return;
            if (take(',')) {
                if (open.back() == '{') skip_key();
                break;
            }
            expect(open.back() == '{' ? '}' : ']');
            open.pop_back();
        }
    }
}

}  // namespace attn::text
