#include "attn/text/normalizer.hpp"

#include <doctest/doctest.h>

using namespace attn::text;

TEST_CASE("normal forms from utf8proc: composed and decomposed accents meet") {
    const std::string composed = "caf\xC3\xA9", decomposed = "cafe\xCC\x81";
    CHECK(normalize(decomposed, NormalForm::nfc) == composed);
    CHECK(normalize(composed, NormalForm::nfd) == decomposed);
    CHECK(normalize("\xEF\xAC\x81", NormalForm::nfkc) == "fi");           // the ligature ﬁ
    CHECK(normalize("\xEF\xAC\x81", NormalForm::nfc) == "\xEF\xAC\x81");  // kept without K
    CHECK(normalize("\xE2\x91\xA0", NormalForm::nfkd) == "1");            // ①
}

TEST_CASE("lower case: full mapping, U+0130 becomes i with a combining dot") {
    CHECK(to_lower("\xC3\x89"
                   "COLE \xC3\x85ngstr\xC3\xB6m") ==
          "\xC3\xA9"
          "cole \xC3\xA5ngstr\xC3\xB6m");
    CHECK(to_lower("\xC4\xB0") == "i\xCC\x87");
}

TEST_CASE("BertNormalizer: controls dropped, white space to ' ', CJK spaced, accents, lower case") {
    const Normalizer bert{{bert_normalizer({})}};
    CHECK(bert("H\xC3\xA9llo\tWORLD\x07 \xE4\xB8\xAD\xE6\x96\x87") ==
          "hello world  \xE4\xB8\xAD  \xE6\x96\x87 ");
    BertNormalization cased;
    cased.lowercase = false;
    cased.strip_accents = false;
    CHECK(Normalizer{{bert_normalizer(cased)}}("H\xC3\xA9llo\r\n") == "H\xC3\xA9llo  ");
}

TEST_CASE("Mistral's normalizer: ▁ put first, spaces replaced; an empty text stays empty") {
    const std::string m = "\xE2\x96\x81";
    const Normalizer mistral{{prepend(m), replace(Regex(quote_regex(" ")), m)}};
    CHECK(mistral("Hello world ") == m + "Hello" + m + "world" + m);
    CHECK(mistral("").empty());
    CHECK(Normalizer{{strip(true, true)}}(" \t a b \n") == "a b");
    CHECK(Normalizer{{replace(Regex(quote_regex("a.b\\E")), "!")}}("xa.b\\Ey a-b") == "x!y a-b");
}
