#include "attn/text/unicode.hpp"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace attn::text {

namespace {

utf8proc_category_t category(char32_t c) {
    return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

}  // namespace

CodePoint decode_at(std::string_view text, std::size_t at) {
    utf8proc_int32_t c = 0;
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data() + at);
    const utf8proc_ssize_t n =
        utf8proc_iterate(bytes, static_cast<utf8proc_ssize_t>(text.size() - at), &c);
    if (n <= 0) throw TokenizerError("text is not valid UTF-8");
    return {static_cast<char32_t>(c), static_cast<std::size_t>(n)};
}

void append_utf8(std::string& out, char32_t c) {
    utf8proc_uint8_t buffer[4];
    const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buffer);
    out.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(n));
}

bool is_valid_utf8(std::string_view text) {
    std::size_t at = 0;
    while (at < text.size()) {
        utf8proc_int32_t c = 0;
        const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data() + at);
        const utf8proc_ssize_t n =
            utf8proc_iterate(bytes, static_cast<utf8proc_ssize_t>(text.size() - at), &c);
        if (n <= 0) return false;
        at += static_cast<std::size_t>(n);
    }
    return true;
}

std::string normalize(std::string_view text, NormalForm form) {
    int options = UTF8PROC_STABLE;
    switch (form) {
        case NormalForm::nfc:
            options |= UTF8PROC_COMPOSE;
            break;
        case NormalForm::nfd:
            options |= UTF8PROC_DECOMPOSE;
            break;
        case NormalForm::nfkc:
            options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
            break;
        case NormalForm::nfkd:
            options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
            break;
    }
    utf8proc_uint8_t* result = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &result,
                                            static_cast<utf8proc_option_t>(options));
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(result, &std::free);
    if (n < 0)
        throw TokenizerError(std::string("text cannot be normalised: ") + utf8proc_errmsg(n));
    return std::string(reinterpret_cast<const char*>(result), static_cast<std::size_t>(n));
}

std::string to_lower(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const CodePoint c = decode_at(text, at);
        at += c.length;
        if (c.value == 0x130) {  // the one code point whose lower case is two: i + combining dot
            out += "i\xCC\x87";
            continue;
        }
        append_utf8(
            out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c.value))));
    }
    return out;
}

bool is_whitespace(char32_t c) {
    if ((c >= 0x09 && c <= 0x0D) || c == 0x85) return true;
    const auto k = category(c);
    return k == UTF8PROC_CATEGORY_ZS || k == UTF8PROC_CATEGORY_ZL || k == UTF8PROC_CATEGORY_ZP;
}

bool is_punctuation(char32_t c) {
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
        (c >= 123 && c <= 126))
        return true;
    const auto k = category(c);
    return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

bool is_control(char32_t c) {
    if (c == '\t' || c == '\n' || c == '\r') return false;
    const auto k = category(c);
    return k == UTF8PROC_CATEGORY_CC || k == UTF8PROC_CATEGORY_CF || k == UTF8PROC_CATEGORY_CN ||
           k == UTF8PROC_CATEGORY_CO || k == UTF8PROC_CATEGORY_CS;
}

bool is_nonspacing_mark(char32_t c) {
    return category(c) == UTF8PROC_CATEGORY_MN;
}

bool is_cjk_ideograph(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
           (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_numeric(char32_t c) {
    const auto k = category(c);
    return k >= UTF8PROC_CATEGORY_ND && k <= UTF8PROC_CATEGORY_NO;
}

}  // namespace attn::text
