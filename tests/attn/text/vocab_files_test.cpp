#include "attn/text/vocab_files.hpp"

#include <doctest/doctest.h>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <string>
#include <vector>

#include "support/throws.hpp"

using namespace attn::text;

TEST_CASE("GPT-2 files: byte-level BPE, <|endoftext|> special, no tokens added around") {
    const std::string vocab =
        R"({"h": 0, "i": 1, "\u0120": 2, "hi": 3, "\u0120h": 4, "\u0120hi": 5, "<|endoftext|>": 6})";
    const Tokenizer t =
        tokenizer_from_gpt2_files(vocab, "#version: 0.2\n\u0120 h\nh i\n\u0120h i\n");
    CHECK(t.encode("hi hi<|endoftext|>hi").ids == std::vector<TokenId>{3, 5, 6, 3});
    CHECK(t.encode("").ids.empty());
    CHECK(attn::test::invalid_argument_of([&] {
              tokenizer_from_gpt2_files(vocab, "h i\nh  i\n");
          }) == "merges.txt: line 2 is not two tokens separated by one space");
    CHECK(attn::test::invalid_argument_of([&] { tokenizer_from_gpt2_files("[]", ""); }) ==
          "vocab.json: expected an object of token: id");
}

TEST_CASE("vocab.txt: BertTokenizer's lower case, accents, [CLS] ... [SEP], specials in the text") {
    const std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n,\nworld\n##s\n";
    const Tokenizer t = tokenizer_from_vocab_txt(vocab, {});
    CHECK(t.encode("H\xC3\xA9LLO, worlds [MASK] x").ids ==
          std::vector<TokenId>{2, 5, 6, 7, 8, 4, 1, 3});
    CHECK(t.encode("").ids == std::vector<TokenId>{2, 3});
    BertOptions cased;
    cased.lowercase = false;
    CHECK(tokenizer_from_vocab_txt(vocab, cased).encode("Hello").ids ==
          std::vector<TokenId>{2, 1, 3});
    CHECK(attn::test::invalid_argument_of([] { tokenizer_from_vocab_txt("a\nb\n", {}); }) ==
          "vocab.txt: [CLS] and [SEP] must be in the vocabulary");
}

namespace {

// The sentences a tiny SentencePiece model is trained on, in memory.
class Sentences : public sentencepiece::SentenceIterator {
  public:
    explicit Sentences(std::vector<std::string> s) : s_(std::move(s)) {}
    bool done() const override { return i_ >= s_.size(); }
    void Next() override { ++i_; }
    const std::string& value() const override { return s_[i_]; }
    sentencepiece::util::Status status() const override { return {}; }

  private:
    std::vector<std::string> s_;
    std::size_t i_ = 0;
};

}  // namespace

TEST_CASE("tokenizer.model: the SentencePiece library's own ids, with <s> put first") {
    std::vector<std::string> corpus;
    for (int i = 0; i < 200; ++i)
        corpus.push_back("life is short, eat dessert first " + std::to_string(i % 10) +
                         " time flies");
    Sentences sentences(corpus);
    std::string model;
    const auto status = sentencepiece::SentencePieceTrainer::Train(
        "--model_type=bpe --vocab_size=320 --minloglevel=2 --byte_fallback=true", &sentences,
        &model);
    INFO(status.ToString());
    REQUIRE(status.ok());
    sentencepiece::SentencePieceProcessor sp;
    REQUIRE(sp.LoadFromSerializedProto(model).ok());
    const std::string text = "life is short \xC3\xA9";
    std::vector<int> expected;
    REQUIRE(sp.Encode(text, &expected).ok());

    const Encoding e = tokenizer_from_sentencepiece(model, {}).encode(text);
    REQUIRE(e.ids.size() == expected.size() + 1);
    CHECK(e.ids[0] == sp.bos_id());
    CHECK(e.tokens[0] == "<s>");
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(e.ids[i + 1] == expected[i]);
        CHECK(e.tokens[i + 1] == sp.IdToPiece(expected[i]));
    }
    const Encoding t5 = tokenizer_from_sentencepiece(model, {false, true}).encode("life");
    CHECK(t5.ids.back() == sp.eos_id());
    CHECK(attn::test::invalid_argument_of([] {
              tokenizer_from_sentencepiece("garbage", {});
          }).rfind("not a SentencePiece model: ", 0) == 0);
}
