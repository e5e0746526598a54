// A reader of JSON text that builds no tree: the caller walks the document, asking for the value
// it expects next and skipping the others whole. For the large parts of tokenizer.json
// (model.vocab: 150,000 "token": id members; model.merges: 280,000 pairs), where a DOM costs a
// heap node per entry.
//
// It accepts exactly what nlohmann::json::parse accepts (RFC 8259): an optional UTF-8 byte-order
// mark, whitespace " \t\n\r", strings of well-formed UTF-8 without raw control characters (below
// U+0020), the escapes \" \\ \/ \b \f \n \r \t \uXXXX (a high surrogate \uD800..\uDBFF only
// followed by a low one \uDC00..\uDFFF), numbers -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
// true, false, null, and nothing but whitespace after the top-level value. Every read
// validates what it passes; anything else throws JsonScanError at the offending byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn::text {

struct JsonScanError : std::runtime_error {
    JsonScanError(std::size_t at, const std::string& what);
    std::size_t offset;  // of the offending byte in the text
};

class JsonScanner {
  public:
    explicit JsonScanner(std::string_view text);  // skips a UTF-8 byte-order mark

    /// The first byte of the next value or delimiter (after whitespace); '\0' at the end.
    char peek();
    /// Consumes c if it comes next (after whitespace).
    bool take(char c);
    void expect(char c);
    std::size_t offset() const { return at_; }
    std::string_view text() const { return text_; }

    /// A string value. Without escapes: a view into the text. With escapes: the decoded bytes are
    /// appended to `decoded` and the view is of them (valid until `decoded` reallocates).
    std::string_view string(std::string& decoded);
    /// An integer written without fraction or exponent in at most 18 digits (|n| < 10^18) is
    /// consumed and returned; any other value is skipped (validated) and gives nullopt.
    std::optional<std::int64_t> small_integer();
    /// Skips one value of any kind, validating it; nesting depth is bounded by memory only.
    void skip_value();
    /// Throws unless only whitespace remains.
    void expect_end();

    /// {"key": value, ...}: member(key) is called with the cursor on each value and must consume
    /// it. Keys are decoded into a buffer reused from one key to the next.
    template <class Member>
    void object(Member&& member) {
        expect('{');
        if (take('}')) return;
        do {
            key_.clear();
            const std::string_view key = string(key_);
            expect(':');
            member(key);
        } while (take(','));
        expect('}');
    }
    /// [value, ...]: element() is called with the cursor on each value and must consume it.
    template <class Element>
    void array(Element&& element) {
        expect('[');
        if (take(']')) return;
        do element();
        while (take(','));
        expect(']');
    }

  private:
    [[noreturn]] void fail(const std::string& what) const;
    void skip_whitespace();
    void skip_scalar();
    void skip_key();  // "key":
    void skip_number();
    void skip_utf8();  // one multi-byte sequence at at_
    char32_t hex4();   // the XXXX of \uXXXX
    std::string_view decode_rest(std::size_t start, std::string& decoded);

    std::string_view text_;
    std::size_t at_ = 0;
    std::string key_;
};

}  // namespace attn::text
