// attn::tokenize and attn::Vocabulary against the notebook's dictionary and ids.
#include "attn/tokenizer.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

using Tokens = std::vector<std::string>;
using Ids = std::vector<std::size_t>;

TEST_CASE("tokenizer: the notebook's sentence, vocabulary and ids") {
    const auto tokens = attn::tokenize("Life is short, eat dessert first");
    CHECK(tokens == Tokens{"Life", "is", "short", "eat", "dessert", "first"});
    const attn::Vocabulary vocab(tokens);
    // {'Life': 0, 'dessert': 1, 'eat': 2, 'first': 3, 'is': 4, 'short': 5}
    CHECK(vocab.tokens() == Tokens{"Life", "dessert", "eat", "first", "is", "short"});
    CHECK(vocab.size() == 6);
    CHECK(vocab.id("Life") == 0);
    CHECK(vocab.id("short") == 5);
    CHECK(vocab.token(2) == "eat");
    CHECK(vocab.ids(tokens) == Ids{0, 4, 5, 2, 1, 3});
}

TEST_CASE("tokenizer: commas go, other punctuation and case stay by default") {
    CHECK(attn::tokenize("  Hello,world!  It's\tNew\n") == Tokens{"Helloworld!", "It's", "New"});
    CHECK(attn::tokenize("a ,b") == Tokens{"a", "b"});
}

TEST_CASE("tokenizer: options lowercase and strip_punctuation") {
    const std::string s = "The cat; the CAT, (the) \"cat\"!";
    SUBCASE("lowercase") {
        CHECK(attn::tokenize(s, {.lowercase = true}) ==
              Tokens{"the", "cat;", "the", "cat", "(the)", "\"cat\"!"});
    }
    SUBCASE("strip_punctuation removes every ASCII punctuation character") {
        CHECK(attn::tokenize(s, {.strip_punctuation = true}) ==
              Tokens{"The", "cat", "the", "CAT", "the", "cat"});
        CHECK(attn::tokenize("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ x", {.strip_punctuation = true}) ==
              Tokens{"x"});
    }
    SUBCASE("both") {
        const auto tokens = attn::tokenize(s, {.lowercase = true, .strip_punctuation = true});
        CHECK(tokens == Tokens{"the", "cat", "the", "cat", "the", "cat"});
        const attn::Vocabulary vocab(tokens);
        CHECK(vocab.tokens() == Tokens{"cat", "the"});
        CHECK(vocab.ids(tokens) == Ids{1, 0, 1, 0, 1, 0});
    }
}

TEST_CASE("tokenizer: no tokens is an error") {
    CHECK_THROWS_AS(attn::tokenize(""), std::invalid_argument);
    CHECK_THROWS_AS(attn::tokenize(" \t\n "), std::invalid_argument);
    CHECK_THROWS_AS(attn::tokenize(", ,,"), std::invalid_argument);
    CHECK_THROWS_AS(attn::tokenize("?! ...", {.strip_punctuation = true}), std::invalid_argument);
    CHECK_THROWS_WITH_AS(attn::tokenize(""), doctest::Contains("the sentence has no tokens"),
                         std::invalid_argument);
    CHECK_THROWS_AS(attn::Vocabulary(Tokens{}), std::invalid_argument);
}

TEST_CASE("tokenizer: unknown token ids throw") {
    const attn::Vocabulary vocab(Tokens{"b", "a"});
    CHECK_FALSE(vocab.contains("c"));
    CHECK(vocab.contains("a"));
    CHECK_THROWS_AS(vocab.id("c"), std::invalid_argument);
}

TEST_CASE("tokenizer: UTF-8 passes through untouched and sorts by code point") {
    // "A vida é curta, coma a sobremesa primeiro" with non-ASCII letters and an emoji.
    const std::string s = "Ávila é curta, Zé come 🍰 sobremesa";
    const auto tokens = attn::tokenize(s, {.lowercase = true, .strip_punctuation = true});
    CHECK(tokens == Tokens{"Ávila", "é", "curta", "zé", "come", "🍰", "sobremesa"});
    const attn::Vocabulary vocab(tokens);
    // Python: sorted(...) == ['come', 'curta', 'sobremesa', 'zé', 'Ávila', 'é', '🍰']
    CHECK(vocab.tokens() == Tokens{"come", "curta", "sobremesa", "zé", "Ávila", "é", "🍰"});
    // U+00A0 (no-break space) is not ASCII white space: it stays inside the token.
    CHECK(attn::tokenize("a\u00a0b c") == Tokens{"a\u00a0b", "c"});
}
