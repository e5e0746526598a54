#include "attn/text/pre_tokenizer.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace attn::text;

namespace {

std::vector<std::string> run(const PreTokenizerStep& step, const std::string& text) {
    std::vector<std::string> out;
    for (const Piece& p : PreTokenizer{{step}}({{text, true}})) out.push_back(p.text);
    return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("split: the five behaviors of Hugging Face's documentation on the-final--countdown") {
    const std::string text = "the-final--countdown";
    auto with = [&](SplitBehavior b) { return run(split(Regex("-"), b, false), text); };
    CHECK(with(SplitBehavior::removed) == V{"the", "final", "countdown"});
    CHECK(with(SplitBehavior::isolated) == V{"the", "-", "final", "-", "-", "countdown"});
    CHECK(with(SplitBehavior::merged_with_previous) == V{"the-", "final-", "-", "countdown"});
    CHECK(with(SplitBehavior::merged_with_next) == V{"the", "-final", "-", "-countdown"});
    CHECK(with(SplitBehavior::contiguous) == V{"the", "-", "final", "--", "countdown"});
    // invert: the matches are what stays apart from the rest.
    CHECK(run(split(Regex("\\w+"), SplitBehavior::removed, true), "ab, cd") == V{"ab", "cd"});
}

TEST_CASE("byte level: GPT-2's pattern keeps one space with the next word, and maps the bytes") {
    CHECK(run(byte_level(false, true), "Hello  world's 123!!") == V{"Hello", "\xC4\xA0",
                                                                    "\xC4\xA0world", "'s",
                                                                    "\xC4\xA0"
                                                                    "123",
                                                                    "!!"});
    CHECK(run(byte_level(false, true), "a\n\n b") == V{"a", "\xC4\x8A\xC4\x8A",
                                                       "\xC4\xA0"
                                                       "b"});
    CHECK(run(byte_level(true, false), "x y") == V{"\xC4\xA0x\xC4\xA0y"});
    // \p{L} from PCRE2's Unicode tables: é and 日 are letters, ١ (Arabic-Indic one) a number.
    CHECK(run(byte_level(false, true), "\xC3\xA9t\xC3\xA9 \xD9\xA1").size() == 2);
}

TEST_CASE("Llama 3's pattern: contractions in any case, numbers in threes") {
    Regex llama3(
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
    CHECK(run(split(std::move(llama3), SplitBehavior::isolated, false), "WE'LL 1234567") ==
          V{"WE", "'LL", " ", "123", "456", "7"});
}

TEST_CASE("BERT pre-tokenizer: white space removed, each punctuation mark alone") {
    CHECK(run(bert_pre_tokenizer(), "Hello, world!!  (ok)") ==
          V{"Hello", ",", "world", "!", "!", "(", "ok", ")"});
    CHECK(run(whitespace(), "it's  fine") == V{"it", "'", "s", "fine"});
    CHECK(run(digits(true), "a123") == V{"a", "1", "2", "3"});
    CHECK(run(digits(false), "a123b") == V{"a", "123", "b"});
}

TEST_CASE("metaspace: spaces become the replacement, put first only where the scheme says") {
    const std::string m = "\xE2\x96\x81";  // ▁
    CHECK(run(metaspace(m, PrependScheme::always, true), "hey you") == V{m + "hey", m + "you"});
    CHECK(run(metaspace(m, PrependScheme::never, false), "hey you") == V{"hey" + m + "you"});
    std::vector<std::string> later;
    for (const Piece& p : PreTokenizer{{metaspace(m, PrependScheme::first, false)}}({{"x", false}}))
        later.push_back(p.text);
    CHECK(later == V{"x"});  // not at the start of the text: nothing put first
}
