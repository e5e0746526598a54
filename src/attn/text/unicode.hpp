// UTF-8 and the Unicode facts tokenizers ask about, from utf8proc (normalisation forms, general
// categories, case mapping) rather than tables of our own: the library follows the Unicode
// version it was built for, as the tokenizers' own libraries do.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn::text {

/// Tokenizer files or text that cannot be used (exit 2 at the command line): what() says what
/// and where ("tokenizer.json: model.merges[3]: ...").
struct TokenizerError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// The code point starting at text[at], and its length in bytes. Text must be valid UTF-8.
struct CodePoint {
    char32_t value;
    std::size_t length;
};
CodePoint decode_at(std::string_view text, std::size_t at);

/// Appends the UTF-8 encoding of c.
void append_utf8(std::string& out, char32_t c);

/// Whether text is well-formed UTF-8 (no surrogates, no overlong forms).
bool is_valid_utf8(std::string_view text);

/// Unicode normalisation forms (UAX #15).
enum class NormalForm { nfc, nfd, nfkc, nfkd };
std::string normalize(std::string_view text, NormalForm form);

/// Full lower-case mapping per code point (as Rust's char::to_lowercase, which may lengthen a
/// character: U+0130 becomes "i" + U+0307).
std::string to_lower(std::string_view text);

// Classes of one code point.
bool is_whitespace(char32_t c);       // Unicode White_Space (\t \n \v \f \r, Zs, U+0085, U+2028..9)
bool is_punctuation(char32_t c);      // general category P* or ASCII punctuation
bool is_control(char32_t c);          // category C* except \t \n \r (BERT's "control")
bool is_nonspacing_mark(char32_t c);  // category Mn (what accent stripping drops)
bool is_cjk_ideograph(char32_t c);    // the CJK blocks BERT puts spaces around
bool is_numeric(char32_t c);          // categories Nd, Nl, No (Rust's char::is_numeric)

}  // namespace attn::text
