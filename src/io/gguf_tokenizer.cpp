#include "io/gguf_tokenizer.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string_view>

namespace attn::io {

namespace {

using json = nlohmann::json;
using Kind = GgufError::Kind;

enum class Pre { gpt2, llama3, qwen2 };

// tokenizer.json's patterns (Llama 3's and Qwen2's Split regex; GPT-2's is ByteLevel's own).
constexpr std::string_view kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

Pre pre_of(const GgufFile& file) {
    const auto pre = file.metadata().string("tokenizer.ggml.pre");
    if (!pre) return Pre::gpt2;  // llama.cpp's "default" differs; none of these files lack it
    for (std::string_view n : {"gpt-2", "gpt2", "phi-2", "roberta-bpe", "mpt", "olmo"})
        if (*pre == n) return Pre::gpt2;
    for (std::string_view n : {"llama-bpe", "llama3", "llama-v3"})
        if (*pre == n) return Pre::llama3;
    for (std::string_view n : {"qwen2", "deepseek-r1-qwen"})
        if (*pre == n) return Pre::qwen2;
    throw GgufError(Kind::unsupported, file.path(), "tokenizer.ggml.pre",
                    fmt::format("is '{}'; attn reads gpt-2, llama-bpe and qwen2 (give the token "
                                "ids with --ids)",
                                *pre),
                    true);
}

json byte_level(bool use_regex) {
    return {{"type", "ByteLevel"},
            {"add_prefix_space", false},
            {"trim_offsets", true},
            {"use_regex", use_regex}};
}

}  // namespace

namespace {

// Bytes of the UTF-8 character at s[i], 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned c = at(i);
    if (c < 0x80) return 1;
    const std::size_t n = c >= 0xC2 && c <= 0xDF   ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((at(i + k) & 0xC0) != 0x80) return 0;
    const unsigned second = at(i + 1);
    if ((c == 0xE0 && second < 0xA0) || (c == 0xED && second > 0x9F) ||  // overlong, surrogate
        (c == 0xF0 && second < 0x90) || (c == 0xF4 && second > 0x8F))    // overlong, > U+10FFFF
        return 0;
    return n;
}

}  // namespace

void require_utf8(const GgufFile& file, std::string_view key,
                  std::span<const std::string_view> values) {
    for (std::size_t v = 0; v < values.size(); ++v)
        for (std::size_t i = 0; i < values[v].size();) {
            const std::size_t n = utf8_length(values[v], i);
            if (n == 0)
                throw GgufError(Kind::metadata, file.path(), std::string(key),
                                fmt::format("entry {} is not UTF-8 (byte {})", v, i), true);
            i += n;
        }
}

bool has_gguf_tokenizer(const GgufFile& file) {
    const auto model = file.metadata().string("tokenizer.ggml.model");
    return model == "gpt2" || model == "llama";
}

std::string gguf_tokenizer_json(const GgufFile& file) {
    const GgufMetadata& meta = file.metadata();
    const auto model = meta.string("tokenizer.ggml.model");
    if (model == "llama") return gguf_spm_tokenizer_json(file);
    if (model != "gpt2")
        throw GgufError(model ? Kind::unsupported : Kind::missing, file.path(),
                        "tokenizer.ggml.model",
                        model ? fmt::format("is '{}'; attn reads gpt2 (byte-level BPE) and llama "
                                            "(SentencePiece) tokenizers of GGUF files: give the "
                                            "token ids with --ids",
                                            *model)
                              : "is absent: the file holds no tokenizer; give the token ids "
                                "with --ids",
                        true);
    const Pre pre = pre_of(file);
    const auto tokens = meta.strings("tokenizer.ggml.tokens");
    if (!tokens)
        throw GgufError(Kind::missing, file.path(), "tokenizer.ggml.tokens", "is absent", true);
    require_utf8(file, "tokenizer.ggml.tokens", *tokens);
    const auto types = meta.integers("tokenizer.ggml.token_type");
    const auto merges = meta.strings("tokenizer.ggml.merges");
    if (merges) require_utf8(file, "tokenizer.ggml.merges", *merges);
    json vocab = json::object(), added = json::array();
    for (std::size_t id = 0; id < tokens->size(); ++id) {
        const std::string token((*tokens)[id]);
        vocab[token] = id;
        const std::int64_t type = types && id < types->size() ? (*types)[id] : 1;
        if (type == 3 || type == 4)
            added.push_back({{"id", id},
                             {"content", token},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", type == 4},
                             {"special", type == 3}});
    }
    json merge_list = json::array();
    if (merges)
        for (const std::string_view m : *merges) merge_list.push_back(std::string(m));
    json j{{"version", "1.0"},
           {"added_tokens", added},
           {"normalizer", nullptr},
           {"post_processor", nullptr},
           {"decoder", byte_level(true)},
           {"model",
            {{"type", "BPE"},
             {"dropout", nullptr},
             {"unk_token", nullptr},
             {"continuing_subword_prefix", nullptr},
             {"end_of_word_suffix", nullptr},
             {"fuse_unk", false},
             {"byte_fallback", false},
             {"ignore_merges", pre == Pre::llama3},
             {"vocab", vocab},
             {"merges", merge_list}}}};
    if (pre == Pre::gpt2) {
        j["pre_tokenizer"] = byte_level(true);
    } else {
        const json split{{"type", "Split"},
                         {"pattern", {{"Regex", pre == Pre::llama3 ? kLlama3 : kQwen2}}},
                         {"behavior", "Isolated"},
                         {"invert", false}};
        j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {split, byte_level(false)}}};
    }
    if (pre == Pre::qwen2) j["normalizer"] = {{"type", "NFC"}};
    const bool add_bos = meta.boolean("tokenizer.ggml.add_bos_token").value_or(pre == Pre::llama3);
    if (add_bos) {
        const auto bos = meta.unsigned_integer("tokenizer.ggml.bos_token_id");
        if (!bos || *bos >= tokens->size())
            throw GgufError(Kind::missing, file.path(), "tokenizer.ggml.bos_token_id",
                            "is absent or not a token, and the tokenizer adds BOS", true);
        const std::string name((*tokens)[*bos]);
        const json seq{{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
        const json bos_item{{"SpecialToken", {{"id", name}, {"type_id", 0}}}};
        j["post_processor"] = {
            {"type", "TemplateProcessing"},
            {"single", {bos_item, seq}},
            {"pair", {bos_item, seq, bos_item, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
            {"special_tokens", {{name, {{"id", name}, {"ids", {*bos}}, {"tokens", {name}}}}}}};
    }
    return j.dump();
}

}  // namespace attn::io
