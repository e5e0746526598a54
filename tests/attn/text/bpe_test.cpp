#include "attn/text/bpe.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/throws.hpp"

using namespace attn::text;

namespace {

Vocabulary vocabulary(const std::vector<std::string>& tokens) {
    Vocabulary v;
    for (std::size_t i = 0; i < tokens.size(); ++i) v.add(tokens[i], static_cast<TokenId>(i));
    return v;
}

std::vector<std::string> pieces(const Bpe& bpe, const std::string& word) {
    std::vector<Token> tokens;
    bpe.tokenize(word, tokens);
    std::vector<std::string> out;
    for (const Token& t : tokens) out.push_back(t.text);
    return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("BPE: the lowest-ranked pair merges first, whatever its position") {
    const auto v = vocabulary({"a", "b", "c", "ab", "bc"});
    CHECK(pieces(Bpe(v, {{"a", "b"}, {"b", "c"}}, {}), "abc") == V{"ab", "c"});
    CHECK(pieces(Bpe(v, {{"b", "c"}, {"a", "b"}}, {}), "abc") == V{"a", "bc"});
    // Equal ranks: the leftmost pair first ("aaa" -> "aa" "a", then "aa a" is no merge).
    const auto w = vocabulary({"a", "aa", "aaaa"});
    CHECK(pieces(Bpe(w, {{"a", "a"}}, {}), "aaa") == V{"aa", "a"});
    CHECK(pieces(Bpe(w, {{"a", "a"}, {"aa", "aa"}}, {}), "aaaaa") == V{"aaaa", "a"});
}

TEST_CASE("BPE: byte fallback, unknown characters, fused unknowns, ignore_merges") {
    auto v = vocabulary({"<unk>", "a", "<0xC3>", "<0xA9>", "ab"});
    BpeOptions o;
    o.unk_token = "<unk>";
    o.byte_fallback = true;
    CHECK(pieces(Bpe(v, {}, o), "a\xC3\xA9") == V{"a", "<0xC3>", "<0xA9>"});
    CHECK(pieces(Bpe(v, {}, o), "xya") == V{"<unk>", "<unk>", "a"});
    o.fuse_unk = true;
    CHECK(pieces(Bpe(v, {}, o), "xya") == V{"<unk>", "a"});
    CHECK(pieces(Bpe(v, {}, o), "xaz") == V{"<unk>", "a", "<unk>"});
    // Without unk_token an unknown character gives nothing, as in Hugging Face.
    CHECK(pieces(Bpe(v, {}, {}), "xa").size() == 1);
    BpeOptions whole;
    whole.ignore_merges = true;
    CHECK(pieces(Bpe(vocabulary({"a", "b", "ab"}), {}, whole), "ab") == V{"ab"});
    CHECK(pieces(Bpe(vocabulary({"a", "b", "ab"}), {}, {}), "ab") == V{"a", "b"});
}

TEST_CASE("BPE: continuing prefix and end-of-word suffix spell the characters") {
    BpeOptions o;
    o.continuing_subword_prefix = "##";
    o.end_of_word_suffix = "</w>";
    const auto v = vocabulary({"a", "##b", "##c</w>", "ab", "abc</w>", "##bc</w>"});
    CHECK(pieces(Bpe(v, {}, o), "abc") == V{"a", "##b", "##c</w>"});
    CHECK(pieces(Bpe(v, {{"a", "##b"}, {"ab", "##c</w>"}}, o), "abc") == V{"abc</w>"});
}

TEST_CASE("BPE: a merge whose tokens are not in the vocabulary is refused by its rank") {
    const auto v = vocabulary({"a", "b", "ab"});
    CHECK(attn::test::invalid_argument_of([&] {
              Bpe(v, {{"a", "b"}, {"b", "c"}}, {});
          }) == "merge 1 (\"b c\"): \"c\" is not in the vocabulary");
    CHECK(attn::test::invalid_argument_of([&] {
              Bpe(v, {{"b", "a"}}, {});
          }) == "merge 0 (\"b a\"): \"ba\" is not in the vocabulary");
}
