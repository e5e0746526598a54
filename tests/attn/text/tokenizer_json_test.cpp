#include "attn/text/tokenizer_json.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/throws.hpp"

using namespace attn::text;

namespace {

// A Llama-3-like tokenizer.json in miniature: byte-level BPE behind a Split pattern, one
// special token, the template <|begin_of_text|> A.
const std::string kByteLevel = R"({
  "added_tokens": [{"id": 9, "content": "<|begin_of_text|>", "special": true,
                    "lstrip": false, "rstrip": false, "normalized": false, "single_word": false}],
  "normalizer": null,
  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": " ?\\p{L}+|\\s+"}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
  "post_processor": {"type": "Sequence", "processors": [
      {"type": "ByteLevel"},
      {"type": "TemplateProcessing",
       "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
       "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [9], "tokens": ["<|begin_of_text|>"]}}}]},
  "model": {"type": "BPE", "vocab": {"h": 0, "i": 1, "\u0120": 2, "hi": 3, "\u0120h": 4, "\u0120hi": 5},
            "merges": ["\u0120 h", ["h", "i"], ["\u0120h", "i"]]}
})";

std::string with(std::string json, const std::string& from, const std::string& to) {
    json.replace(json.find(from), from.size(), to);
    return json;
}

}  // namespace

TEST_CASE("tokenizer.json: pattern, byte level, merges in both forms, template, special token") {
    const Tokenizer t = tokenizer_from_json(kByteLevel);
    const Encoding e = t.encode("hi hi<|begin_of_text|>");
    CHECK(e.ids == std::vector<TokenId>{9, 3, 5, 9});
    CHECK(e.tokens ==
          std::vector<std::string>{"<|begin_of_text|>", "hi", "\xC4\xA0hi", "<|begin_of_text|>"});
    CHECK(t.encode("").ids == std::vector<TokenId>{9});
    CHECK(t.encode("hi", false).ids == std::vector<TokenId>{3});
    CHECK(t.kind() == "byte-level BPE");
    CHECK(t.token(9) == "<|begin_of_text|>");
    CHECK(t.token(5) == "\xC4\xA0hi");
    CHECK(!t.token(10));
    CHECK(t.id("hi") == 3);
    // labels: the bytes a token stands for, a space shown as U+2423; an added token as written
    CHECK(t.spelling() == Spelling::byte_level);
    CHECK(t.label("\xC4\xA0hi") == "\xE2\x90\xA3hi");
    CHECK(t.label("<|begin_of_text|>") == "<|begin_of_text|>");
}

TEST_CASE("tokenizer.json: WordPiece with BertNormalizer, BertPreTokenizer and BertProcessing") {
    const Tokenizer t = tokenizer_from_json(R"({
      "added_tokens": [{"id": 0, "content": "[UNK]", "special": true}],
      "normalizer": {"type": "BertNormalizer", "lowercase": true, "strip_accents": null},
      "pre_tokenizer": {"type": "BertPreTokenizer"},
      "post_processor": {"type": "BertProcessing", "cls": ["[CLS]", 1], "sep": ["[SEP]", 2]},
      "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "cafe": 3, "!": 4, "un": 5, "##able": 6}}
    })");
    CHECK(t.encode("Caf\xC3\xA9! UNABLE x").ids == std::vector<TokenId>{1, 3, 4, 5, 6, 0, 2});
    CHECK(t.kind() == "WordPiece");
    CHECK(t.label("##able") == "##able");
}

TEST_CASE("tokenizer.json: errors name the field at fault") {
    auto error = [](const std::string& json) {
        return attn::test::invalid_argument_of([&] { tokenizer_from_json(json); });
    };
    CHECK(error("[1]") == "expected a JSON object");
    CHECK(error("{").rfind("not valid JSON: ", 0) == 0);
    CHECK(error("{}") == "model: expected an object");
    CHECK(error(with(kByteLevel, R"("type": "BPE")", R"("type": "Unigram")")) ==
          "model.type: \"Unigram\" is not supported (BPE, WordPiece)");
    CHECK(error(with(kByteLevel, R"("\u0120 h")", R"("\u0120  h")")) ==
          "model.merges[0]: \"\xC4\xA0  h\" is not two tokens separated by one space");
    CHECK(error(with(kByteLevel, R"("hi": 3)", R"("hi": "3")")) ==
          "model.vocab.hi: expected an integer");
    CHECK(error(with(kByteLevel, R"("behavior": "Isolated")", R"("behavior": "Alone")"))
              .rfind("pre_tokenizer.pretokenizers[0].behavior: \"Alone\" is not one of", 0) == 0);
    CHECK(error(with(kByteLevel, R"(" ?\\p{L}+|\\s+")", R"("(")"))
              .rfind("pre_tokenizer.pretokenizers[0].pattern: pattern \"(\" at offset 1: ", 0) ==
          0);
    CHECK(
        error(with(kByteLevel, R"("normalizer": null)", R"("normalizer": {"type": "Precompiled"})"))
            .rfind("normalizer.type: normalizer \"Precompiled\" is not supported", 0) == 0);
    CHECK(error(with(kByteLevel, R"("ids": [9])", R"("ids": [9, 10])")) ==
          "post_processor.processors[1].special_tokens.<|begin_of_text|>: ids and tokens differ in "
          "length");
    CHECK(error(with(kByteLevel, R"("id": 9,)", R"("id": "9",)")) ==
          "added_tokens[0].id: expected an integer");
}

TEST_CASE("tokenizer.json: text that is not UTF-8 is refused") {
    const Tokenizer t = tokenizer_from_json(kByteLevel);
    CHECK(attn::test::invalid_argument_of([&] { t.encode("h\xFFi"); }) ==
          "the text is not valid UTF-8");
}

TEST_CASE("tokenizer.json: escaped vocabulary and merges read from the text as from the tree") {
    // Keys and merges spelled with \uXXXX (surrogate pairs too) and raw UTF-8, both merge forms.
    const Tokenizer t = tokenizer_from_json(R"({"model": {"type": "BPE",
        "vocab": {"\u00e9": 0, "t": 1, "\u00e9t": 2, "\ud83d\ude00": 3, "\u00e9t\ud83d\ude00": 4,
                  "a\"b": 5, "é\\": 6},
        "merges": [["\u00e9", "t"], "\u00e9t \ud83d\ude00"]}})");
    CHECK(t.encode("\xC3\xA9t\xF0\x9F\x98\x80").ids == std::vector<TokenId>{4});
    CHECK(t.encode("\xC3\xA9").ids == std::vector<TokenId>{0});
    CHECK(t.id("a\"b") == 5);
    CHECK(t.id("\xC3\xA9\\") == 6);
    CHECK(t.token(3) == "\xF0\x9F\x98\x80");
}

TEST_CASE("tokenizer.json: what the fast reading leaves to the tree keeps the tree's meaning") {
    // A token given twice: the last id (a JSON object keeps its last value).
    auto t = tokenizer_from_json(with(kByteLevel, R"("hi": 3,)", R"("hi": 7, "hi": 3,)"));
    CHECK(t.id("hi") == 3);
    CHECK(!t.token(7));
    // An id given twice: the first token in the tree's (sorted) order keeps it.
    t = tokenizer_from_json(with(kByteLevel, R"("h": 0, "i": 1,)", R"("i": 1, "h": 0, "z": 0,)"));
    CHECK(t.token(0) == "h");
    t = tokenizer_from_json(with(kByteLevel, R"("h": 0, "i": 1,)", R"("z": 0, "i": 1, "h": 0,)"));
    CHECK(t.token(0) == "h");
    // A repeated "model" or "vocab" key: the last one counts.
    t = tokenizer_from_json(
        with(kByteLevel, R"("model": {)", R"("model": {"vocab": {"q": 0}}, "model": {)"));
    CHECK(t.encode("hi hi", false).ids == std::vector<TokenId>{3, 5});
    CHECK(!t.id("q"));
}

TEST_CASE(
    "tokenizer.json: malformed vocabulary, merges and JSON refused as the tree refuses them") {
    auto error = [](const std::string& json) {
        return attn::test::invalid_argument_of([&] { tokenizer_from_json(json); });
    };
    CHECK(error(with(kByteLevel, R"(["h", "i"])", R"(["h"])")) ==
          "model.merges[1]: expected \"a b\" or [\"a\", \"b\"]");
    CHECK(error(with(kByteLevel, R"(["h", "i"])", R"(["h", "i", "j"])")) ==
          "model.merges[1]: expected \"a b\" or [\"a\", \"b\"]");
    CHECK(error(with(kByteLevel, R"(["h", "i"])", R"(7)")) ==
          "model.merges[1]: expected \"a b\" or [\"a\", \"b\"]");
    CHECK(error(with(kByteLevel, R"("\u0120 h")", R"("\u0120h")")) ==
          "model.merges[0]: \"\xC4\xA0h\" is not two tokens separated by one space");
    CHECK(error(with(kByteLevel, R"("hi": 3)", R"("hi": 3.0)")) ==
          "model.vocab.hi: expected an integer");
    CHECK(error(with(kByteLevel, R"("hi": 3)", R"("hi": 18446744073709551615)")) ==
          "model.vocab.hi: integer out of range");
    CHECK(error(with(kByteLevel, R"("merges": [)", R"("merges": 5, "m": [)")) ==
          "model.merges: expected an array");
    CHECK(error(with(kByteLevel, R"("vocab": {)", R"("vocab": [], "v": {)")) ==
          "model.vocab: expected an object of token: id");
    CHECK(error(with(kByteLevel, R"(["h", "i"])", R"(["h", "x"])")) ==
          "model: merge 1 (\"h x\"): \"x\" is not in the vocabulary");
    // Not JSON: nlohmann::json's own message, wherever the fault is.
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {R"("\u0120 h")", R"("\ud800 h")"},
             {R"("hi": 3)", R"("hi": 03)"},
             {R"("hi": 3)", R"("hi": 1e999)"},
             {R"(["h", "i"])", R"(["h", "i",])"},
             {R"("normalizer")", "\"norm\x01alizer\""}}) {
        const std::string json = with(kByteLevel, from, to);
        std::string tree;
        try {
            [[maybe_unused]] const auto parsed = nlohmann::json::parse(json);
        } catch (const nlohmann::json::exception& e) {
            tree = e.what();
        }
        CAPTURE(to);
        CHECK(!tree.empty());
        CHECK(error(json) == "not valid JSON: " + tree);
    }
}
