#include "attn/text/added_tokens.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace attn::text;

namespace {

// Each segment as its text, added tokens in brackets.
std::vector<std::string> split(const AddedVocabulary& added, const std::string& text,
                               bool normalized = false) {
    std::vector<std::string> out;
    for (const Segment& s : added.split({text, nullptr, true}, normalized))
        out.push_back(s.token ? "[" + s.text + "]" : s.text);
    return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("added tokens: the longest match at the leftmost position, the rest kept as text") {
    const AddedVocabulary added({{"<s>", 1, true}, {"<s>x", 2, true}, {"</s>", 3, true}});
    CHECK(split(added, "a<s>b</s>") == V{"a", "[<s>]", "b", "[</s>]"});
    CHECK(split(added, "<s>xy") == V{"[<s>x]", "y"});
    CHECK(split(added, "<s") == V{"<s"});
    CHECK(split(added, "").empty());
    CHECK(split(added, "<s>", true) == V{"<s>"});  // only normalized tokens are looked for
}

TEST_CASE("added tokens: lstrip and rstrip swallow white space, single_word needs spaces around") {
    AddedToken mask{"<mask>", 4, true};
    mask.lstrip = true;
    CHECK(split(AddedVocabulary({mask}), "a  <mask> b") == V{"a", "[<mask>]", " b"});
    mask.lstrip = false;
    mask.rstrip = true;
    CHECK(split(AddedVocabulary({mask}), "a  <mask> b") == V{"a  ", "[<mask>]", "b"});
    AddedToken word{"hi", 5, false};
    word.single_word = true;
    CHECK(split(AddedVocabulary({word}), "hi this hi") == V{"[hi]", " this ", "[hi]"});
}
