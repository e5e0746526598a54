#include "attn/text/wordpiece.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace attn::text;

namespace {

std::vector<std::string> pieces(const WordPiece& model, const std::string& word) {
    std::vector<Token> tokens;
    model.tokenize(word, tokens);
    std::vector<std::string> out;
    for (const Token& t : tokens) out.push_back(t.text);
    return out;
}

using V = std::vector<std::string>;

WordPiece model(std::size_t max_chars = 100) {
    Vocabulary v;
    TokenId id = 0;
    for (const char* t :
         {"[UNK]", "un", "unaff", "##aff", "##able", "##a", "##ble", "\xC3\xA9t\xC3\xA9"})
        v.add(t, id++);
    WordPieceOptions o;
    o.max_input_chars_per_word = max_chars;
    return WordPiece(v, o);
}

}  // namespace

TEST_CASE("WordPiece: greedy longest match from the left, ## on continuations") {
    CHECK(pieces(model(), "unaffable") == V{"unaff", "##able"});
    CHECK(pieces(model(), "unable") == V{"un", "##able"});
    CHECK(pieces(model(), "\xC3\xA9t\xC3\xA9") == V{"\xC3\xA9t\xC3\xA9"});
}

TEST_CASE("WordPiece: one part missing makes the whole word [UNK]; so does a long word") {
    CHECK(pieces(model(), "unx") == V{"[UNK]"});
    CHECK(pieces(model(), "x") == V{"[UNK]"});
    CHECK(pieces(model(5), "unable") == V{"[UNK]"});  // 6 characters > 5
    CHECK(pieces(model(6), "unable") == V{"un", "##able"});
    CHECK(pieces(model(3), "\xC3\xA9t\xC3\xA9") ==
          V{"\xC3\xA9t\xC3\xA9"});  // characters, not bytes
}
