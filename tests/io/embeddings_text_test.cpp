// io::read_word_vectors / read_word_list: word2vec and GloVe text files, strictly.
#include "io/embeddings_text.hpp"

#include <sstream>
#include <stdexcept>
#include <string>

#include <doctest/doctest.h>

namespace {

attn::runtime::WordVectors parse(const std::string& text) {
    std::istringstream in(text);
    return attn::io::read_word_vectors(in, "vec.txt");
}

std::string error_of(const std::string& text) {
    try {
        parse(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("read_word_vectors: GloVe lines, word2vec header, CRLF, blank lines") {
    SUBCASE("GloVe") {
        const auto wv = parse("the 0.418 0.24968 -0.41242\nof\t0.70853 0.57088 -4.716e-1\n");
        REQUIRE(wv.words.size() == 2);
        CHECK(wv.dim == 3);
        CHECK(wv.words[1] == "of");
        CHECK(wv.values[5] == -0.4716);
        CHECK(wv.find("of") == std::optional<std::size_t>(1));
        CHECK_FALSE(wv.find("Of"));
    }
    SUBCASE("word2vec header, CRLF, blank line, UTF-8 word, first of a duplicate wins") {
        const auto wv = parse("3 2\r\nLife 1 2\r\n\r\ncafé +3 4\r\nLife 5 6\r\n");
        CHECK(wv.dim == 2);
        CHECK(wv.words.size() == 3);
        CHECK(wv.find("café") == std::optional<std::size_t>(1));
        CHECK(wv.values[2] == 3.0);
        CHECK(wv.find("Life") == std::optional<std::size_t>(0));
    }
}

TEST_CASE("read_word_vectors: malformed files name the file and the line") {
    CHECK(error_of("a 1 2\nb 1 2 3\n") == "vec.txt:2: 3 values, expected 2 as on the first vector");
    CHECK(error_of("2 3\na 1 2\n") == "vec.txt:2: 2 values, but the header line says dimension 3");
    CHECK(error_of("3 2\na 1 2\n") == "vec.txt: the header line says 3 vectors, the file has 1");
    CHECK(error_of("a 1 x\n") == "vec.txt:1: value 2 of 'a' is not a finite number: 'x'");
    CHECK(error_of("a 1 1.5abc\n").find("not a finite number") != std::string::npos);
    CHECK(error_of("a 1 nan\n").find("not a finite number") != std::string::npos);
    CHECK(error_of("a\n") == "vec.txt:1: 'a' has no values");
    CHECK(error_of("") == "vec.txt: no word vectors");
    CHECK(error_of("\n\n") == "vec.txt: no word vectors");
}

TEST_CASE("read_word_list: one word per line") {
    std::istringstream ok("Life\ndessert\r\neat\n\n");
    CHECK(attn::io::read_word_list(ok, "v") == std::vector<std::string>{"Life", "dessert", "eat"});
    const auto error = [](const std::string& text) {
        std::istringstream in(text);
        try {
            attn::io::read_word_list(in, "v");
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(error("a\n\nb\n") == "v:2: empty line in the word list");
    CHECK(error("a\na\n") == "v:2: 'a' is listed twice");
    CHECK(error("a b\n") == "v:1: 2 fields; a word list has one word per line");
    CHECK(error("") == "v: no words");
}

TEST_CASE("read_word_vectors: a missing file is a system error") {
    CHECK_THROWS_AS(attn::io::read_word_vectors("/nonexistent/vectors.txt"), std::system_error);
}
