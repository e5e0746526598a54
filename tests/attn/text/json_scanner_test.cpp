#include "attn/text/json_scanner.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

using namespace attn::text;
using Json = nlohmann::json;

namespace {

// Whether the scanner accepts the whole text as one JSON document.
bool scans(const std::string& text) {
    try {
        JsonScanner in(text);
        in.skip_value();
        in.expect_end();
        return true;
    } catch (const JsonScanError&) {
        return false;
    }
}

std::string scanned_string(const std::string& literal) {
    JsonScanner in(literal);
    std::string decoded;
    const std::string out(in.string(decoded));
    in.expect_end();
    return out;
}

// A document with every kind of value, escapes and non-ASCII text in keys and strings.
const std::string kDocument =
    "\xEF\xBB\xBF"
    R"({"a\u00e9": [1, -0, 2.5e-3, 1E+2, true, false, null],
  "\ud83d\ude00 x": {"": "", "k": ["\"\\\/\b\f\n\r\t", "caf)"
    "\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x98\x80"
    R"("]}, "n": {"m": [[], {}, [[{}]]]}})";

}  // namespace

TEST_CASE("JSON scanner: strings decode as nlohmann::json decodes them") {
    for (const std::string literal :
         {R"("plain")", R"("")", R"("caf\u00e9 \u00E9")", R"("\ud83d\ude00\uD834\uDD1E")",
          R"("\"\\\/\b\f\n\r\t")", R"("\u0000x\u001f")", "\"raw \xE6\x97\xA5\xF0\x9F\x98\x80\"",
          R"("\u0120 h")", R"("a\u0020b")"}) {
        CAPTURE(literal);
        CHECK(scanned_string(literal) == Json::parse(literal).get<std::string>());
    }
    // An escape-free string is a view into the text; a decoded one is appended to the buffer.
    const std::string text = R"(["ab", "c\u0064", "e\n"])";
    JsonScanner in(text);
    std::string decoded = "x";
    std::vector<std::string_view> views;
    in.array([&] { views.push_back(in.string(decoded)); });
    CHECK(views[0].data() == text.data() + 2);
    CHECK(decoded == "xcde\n");
    CHECK(views[1] == "cd");
}

TEST_CASE("JSON scanner: random strings, as nlohmann::json writes them, read back the same") {
    // Code points of every UTF-8 length, control characters, '"' and '\\' among them; written
    // raw (ensure_ascii off) and as \uXXXX escapes with surrogate pairs (ensure_ascii on).
    std::mt19937 random(42);
    const auto utf8 = [](std::string& out, std::uint32_t c) {
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else if (c < 0x800) {
            out += static_cast<char>(0xC0 | c >> 6);
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += static_cast<char>(0xE0 | c >> 12);
            out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | c >> 18);
            out += static_cast<char>(0x80 | (c >> 12 & 0x3F));
            out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        }
    };
    for (int k = 0; k < 2000; ++k) {
        std::string s;
        const std::uint32_t length = random() % 12;
        for (std::uint32_t i = 0; i < length; ++i) {
            std::uint32_t c = 0;
            switch (random() % 4) {
                case 0:
                    c = random() % 0x80;
                    break;
                case 1:
                    c = 0x80 + random() % 0x780;
                    break;
                case 2:
                    c = 0x800 + random() % 0xF800;
                    if (c >= 0xD800 && c <= 0xDFFF) c -= 0x800;  // no lone surrogates
                    break;
                default:
                    c = 0x10000 + random() % 0x100000;
            }
            utf8(s, c);
        }
        const std::string raw = Json(s).dump(), ascii = Json(s).dump(-1, ' ', true);
        CAPTURE(ascii);
        CHECK(scanned_string(raw) == s);
        CHECK(scanned_string(ascii) == s);
    }
}

TEST_CASE("JSON scanner: accepts and refuses what nlohmann::json does") {
    CHECK(scans(kDocument));
    CHECK(Json::accept(kDocument));
    for (const std::string text : {"",
                                   " ",
                                   "{",
                                   "[1,]",
                                   R"({"a":1,})",
                                   "{1:2}",
                                   "[1 2]",
                                   R"("abc)",
                                   "01",
                                   "1.",
                                   ".5",
                                   "-",
                                   "1e",
                                   "1e+",
                                   "+1",
                                   "tru",
                                   "nul",
                                   "truex",
                                   "[] x",
                                   "\"\\x\"",
                                   "\"\\u12\"",
                                   R"("\ud800")",
                                   R"("\udc00")",
                                   R"("\ud800\u0041")",
                                   R"("\ud800x")",
                                   "\"a\x01\"",
                                   "\"\xC0\x80\"",
                                   "\"\xED\xA0\x80\"",
                                   "\"\xF4\x90\x80\x80\"",
                                   "\"\xE6\x97\"",
                                   "\"\x80\"",
                                   "\xEF\xBB",
                                   "1e400",
                                   "-1e400",
                                   "[1e999]",
                                   "123456789012345678901234567890e300",
                                   "\"\xFF\"",
                                   "{\"a\" 1}",
                                   "[\"a\":1]",
                                   "nan",
                                   "[01]"}) {
        CAPTURE(text);
        CHECK(!Json::accept(text));
        CHECK(!scans(text));
    }
    for (const std::string text :
         {"0", "-0", "1e-400", "0.0000001e-400", "[[[[[]]]]]", " \t\n\r1", "\xEF\xBB\xBF[]",
          "\"\\u0000\"", "1.5E3", "123456789012345678901234567890", "{\"\":{}}"}) {
        CAPTURE(text);
        CHECK(Json::accept(text));
        CHECK(scans(text));
    }
    // Nesting is bounded by memory only, as in nlohmann::json.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    CHECK(scans(deep));
    // Every prefix of the document, and every one-byte change of it, gets the same verdict.
    for (std::size_t n = 0; n < kDocument.size(); ++n) {
        const std::string prefix = kDocument.substr(0, n);
        CAPTURE(prefix);
        CHECK(scans(prefix) == Json::accept(prefix));
    }
    for (std::size_t at = 0; at < kDocument.size(); ++at)
        for (const char c : std::string("\"\\ ,:[]{}0e.-u\x01\x80\xC3")) {
            std::string changed = kDocument;
            changed[at] = c;
            CAPTURE(changed);
            CHECK(scans(changed) == Json::accept(changed));
        }
}

TEST_CASE("JSON scanner: small integers, objects and arrays walked by the caller") {
    JsonScanner in(R"({"a": 0, "b": -0, "c": 999999999999999999, "d": -12, "e": 1000000000000000000,
                      "f": 1.0, "g": 1e2, "h": "5", "i": [1], "j": null})");
    std::vector<std::string> keys;
    std::vector<std::optional<std::int64_t>> values;
    in.object([&](std::string_view key) {
        keys.emplace_back(key);
        values.push_back(in.small_integer());
    });
    in.expect_end();
    CHECK(keys == std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"});
    CHECK(values == std::vector<std::optional<std::int64_t>>{
                        0, 0, 999999999999999999LL, -12, std::nullopt, std::nullopt, std::nullopt,
                        std::nullopt, std::nullopt, std::nullopt});
    JsonScanner bad(R"({"a": 1 "b": 2})");
    CHECK_THROWS_AS(bad.object([&](std::string_view) { bad.skip_value(); }), JsonScanError);
}
