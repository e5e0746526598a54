// A SentencePiece GGUF tokenizer (tokenizer.ggml.model "llama") as tokenizer.json, on a file of
// nine tokens laid out byte by byte: the merges by the whole token's score, llama.cpp's defaults
// for the keys a file lacks, and the key named when one is malformed. Real vocabularies against
// their tokenizer.json and llama.cpp's llama_tokenize are tests/io/gguf_spm_tokenizer_check.py's
// (ctest cli.gguf_tokenizer).
#include "io/gguf_tokenizer.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "support/test_files.hpp"

using attn::io::GgufError;
using attn::io::GgufFile;
using json = nlohmann::json;

namespace {

/// A GGUF v3 file of no tensors and the given keys (little-endian).
struct File {
    std::string kv;
    int n = 0;
    template <class T>
    void put(T v) {
        kv.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    void str(const std::string& s) {
        put<std::uint64_t>(s.size());
        kv += s;
    }
    File& string(const std::string& key, const std::string& value) {
        ++n, str(key), put<std::int32_t>(8), str(value);
        return *this;
    }
    File& flag(const std::string& key, bool value) {
        ++n, str(key), put<std::int32_t>(7), put<std::int8_t>(value);
        return *this;
    }
    File& strings(const std::string& key, const std::vector<std::string>& values) {
        ++n, str(key), put<std::int32_t>(9), put<std::int32_t>(8),
            put<std::uint64_t>(values.size());
        for (const auto& v : values) str(v);
        return *this;
    }
    template <class T>
    File& array(const std::string& key, std::int32_t type, const std::vector<T>& values) {
        ++n, str(key), put<std::int32_t>(9), put(type), put<std::uint64_t>(values.size());
        for (const T v : values) put(v);
        return *this;
    }
    std::string bytes() const {
        File h;
        h.kv = "GGUF";
        h.put<std::uint32_t>(3), h.put<std::int64_t>(0), h.put<std::int64_t>(n);
        return h.kv + kv;
    }
};

// <unk> <s> </s>, a b c, then ab (score -5), bc (-4) and abc (-6): abc splits as a + bc and
// ab + c.
File vocabulary(std::vector<float> scores = {0, 0, 0, -1, -2, -3, -5, -4, -6}) {
    File f;
    f.string("general.architecture", "llama").string("tokenizer.ggml.model", "llama");
    f.strings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a", "b", "c", "ab", "bc", "abc"});
    f.array<float>("tokenizer.ggml.scores", 6, scores);
    f.array<std::int32_t>("tokenizer.ggml.token_type", 5, {2, 3, 3, 1, 1, 1, 1, 1, 1});
    return f;
}

json tokenizer_of(const File& f) {
    attn::test::ScratchDir dir;
    const std::string path = dir.path() + "/spm.gguf";
    attn::test::write_file(path, f.bytes());
    const GgufFile file(path);
    CHECK(attn::io::has_gguf_tokenizer(file));
    return json::parse(attn::io::gguf_tokenizer_json(file));
}

}  // namespace

TEST_CASE("gguf tokenizer: SentencePiece merges rank the whole token's score, highest first") {
    const json t = tokenizer_of(vocabulary());
    const json& model = t["model"];
    CHECK(model["type"] == "BPE");
    CHECK(model["byte_fallback"] == true);
    CHECK(model["unk_token"] == "<unk>");
    CHECK(model["vocab"]["abc"] == 8);
    CHECK(model["merges"] == json::parse(R"([["b","c"],["a","b"],["a","bc"],["ab","c"]])"));
    // llama.cpp's defaults: a space before the text, BOS (id 1) added, no EOS
    CHECK(t["normalizer"]["normalizers"][0] == json{{"type", "Prepend"}, {"prepend", "▁"}});
    CHECK(t["normalizer"]["normalizers"][1]["content"] == "▁");
    CHECK(t["post_processor"]["single"].size() == 2);
    CHECK(t["post_processor"]["special_tokens"]["<s>"]["ids"] == json{1});
    REQUIRE(t["added_tokens"].size() == 3);
    CHECK(t["added_tokens"][0]["content"] == "<unk>");
    CHECK(t["added_tokens"][2]["special"] == true);
}

TEST_CASE("gguf tokenizer: SentencePiece keys that turn the defaults off, and bad lengths") {
    File f = vocabulary();
    f.flag("tokenizer.ggml.add_space_prefix", false).flag("tokenizer.ggml.add_bos_token", false);
    f.flag("tokenizer.ggml.add_eos_token", true);
    const json t = tokenizer_of(f);
    CHECK(t["normalizer"] ==
          json{{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}});
    CHECK(t["post_processor"]["single"][1]["SpecialToken"]["id"] == "</s>");
    // equal scores keep the lower id first (llama.cpp takes the leftmost pair)
    const json tied = tokenizer_of(vocabulary({0, 0, 0, -1, -2, -3, -4, -4, -6}));
    CHECK(tied["model"]["merges"][0] == json{"a", "b"});

    attn::test::ScratchDir dir;
    const std::string path = dir.path() + "/short.gguf";
    attn::test::write_file(path, vocabulary({0, 0, 0}).bytes());
    std::optional<GgufError> error;
    try {
        attn::io::gguf_tokenizer_json(GgufFile(path));
    } catch (const GgufError& e) {
        error = e;
    }
    REQUIRE(error);
    CHECK(error->name == "tokenizer.ggml.scores");
    CHECK(std::string(error->what()).find("has 3 values for 9 tokens") != std::string::npos);
}

TEST_CASE("gguf tokenizer: a token or merge that is not UTF-8 is refused naming the key") {
    attn::test::ScratchDir dir;
    const auto error_of = [&](const File& f) {
        const std::string path = dir.path() + "/bad.gguf";
        attn::test::write_file(path, f.bytes());
        std::optional<GgufError> error;
        try {
            attn::io::gguf_tokenizer_json(GgufFile(path));
        } catch (const GgufError& e) {
            error = e;
        }
        return error;
    };
    // a lone continuation byte, an overlong '/', a surrogate, past U+10FFFF, a cut sequence
    for (const std::string bad :
         {"\x80", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "a\xE2\x82"}) {
        File spm;
        spm.string("general.architecture", "llama").string("tokenizer.ggml.model", "llama");
        spm.strings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", bad});
        const auto e = error_of(spm);
        REQUIRE(e);
        CHECK(e->name == "tokenizer.ggml.tokens");
        CHECK(std::string(e->what()).find("entry 3 is not UTF-8") != std::string::npos);
    }
    File bpe;
    bpe.string("general.architecture", "gpt2").string("tokenizer.ggml.model", "gpt2");
    bpe.string("tokenizer.ggml.pre", "gpt-2");
    bpe.strings("tokenizer.ggml.tokens", {"a", "b", "ab", "\xE2\x82\xAC"});  // the euro sign: UTF-8
    bpe.strings("tokenizer.ggml.merges", {"a b", "\xFF b"});
    const auto e = error_of(bpe);
    REQUIRE(e);
    CHECK(e->name == "tokenizer.ggml.merges");
    CHECK(std::string(e->what()).find("entry 1 is not UTF-8") != std::string::npos);
}
