// A SentencePiece GGUF tokenizer (tokenizer.ggml.model "llama") as a tokenizer.json; the
// header gguf_tokenizer.hpp says what each key becomes.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "io/gguf_tokenizer.hpp"

namespace attn::io {

namespace {

using json = nlohmann::json;
using Kind = GgufError::Kind;

// llama_token_type of tokenizer.ggml.token_type.
enum TokenType : std::int64_t { normal = 1, unknown = 2, control = 3, user_defined = 4 };

// One merge l + r = t, t split at byte `split` (a character boundary), ranked by t's score.
struct Split {
    double score;
    std::uint32_t id, split;
};

// Token string -> its first id (a string given twice keeps its first id, as attn::text's
// vocabulary does): open addressing over 2^k slots at most half full, each 1 + id (0: free)
// and the high half of the string's hash, so that a probe reads a token only when they agree
// (Gemma's 262,144 tokens are looked up 4 million times making the merges).
class Index {
  public:
    explicit Index(std::span<const std::string_view> tokens) : tokens_(tokens) {
        std::size_t n = 16;
        while (n < 2 * tokens.size()) n *= 2;
        slots_.assign(n, Slot{0, 0});
        for (std::uint32_t i = 0; i < tokens.size(); ++i) {
            const std::uint64_t h = hash(tokens[i]);
            std::size_t s = h & (n - 1);
            for (; slots_[s].id1 != 0; s = (s + 1) & (n - 1))
                if (slots_[s].tag == h >> 32 && tokens_[slots_[s].id1 - 1] == tokens[i]) break;
            if (slots_[s].id1 == 0) slots_[s] = {i + 1, static_cast<std::uint32_t>(h >> 32)};
        }
    }
    /// The id of t, or -1.
    std::int64_t find(std::string_view t) const {
        const std::uint64_t h = hash(t);
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t s = h & mask; slots_[s].id1 != 0; s = (s + 1) & mask)
            if (slots_[s].tag == h >> 32 && tokens_[slots_[s].id1 - 1] == t)
                return slots_[s].id1 - 1;
        return -1;
    }
    bool contains(std::string_view t) const { return find(t) >= 0; }

  private:
    struct Slot {
        std::uint32_t id1, tag;
    };
    static std::uint64_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
    std::span<const std::string_view> tokens_;
    std::vector<Slot> slots_;
};

// Every split of every token into two tokens, highest score of the whole token first (ties:
// lower id, then the earlier split). llama.cpp's SPM session merges the adjacent pair whose
// concatenation is the token of highest score, so BPE over these merges, lowest rank first,
// merges the same pairs (it breaks ties of equal scores leftmost, a rank by id).
std::vector<Split> splits(std::span<const std::string_view> tokens, const Index& index,
                          const std::vector<double>& scores) {
    std::vector<Split> out;
    for (std::uint32_t i = 0; i < tokens.size(); ++i) {
        const std::string_view t = tokens[i];
        for (std::uint32_t k = 1; k < t.size(); ++k) {
            if ((static_cast<unsigned char>(t[k]) & 0xC0) == 0x80) continue;  // inside a character
            if (index.contains(t.substr(0, k)) && index.contains(t.substr(k)))
                out.push_back({scores[i], i, k});
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Split& a, const Split& b) { return a.score > b.score; });
    return out;
}

// s as a JSON string (UTF-8 kept as it is; quotes, backslashes and control characters escaped).
void append_quoted(std::string& out, std::string_view s) {
    out += '"';
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
            out += c;
        }
    }
    out += '"';
}

// model.vocab ({"token": id, ...}) and model.merges ([["l", "r"], ...]) written as text: a
// vocabulary of 262,144 tokens and 600,000 merges (Gemma 3's) made as a JSON tree would take
// seconds.
std::string vocab_text(std::span<const std::string_view> tokens, const Index& id) {
    std::string out = "{";
    for (std::uint32_t i = 0; i < tokens.size(); ++i) {
        if (id.find(tokens[i]) != i) continue;
        if (out.size() > 1) out += ',';
        append_quoted(out, tokens[i]);
        out += ':';
        out += std::to_string(i);
    }
    return out + "}";
}

std::string merges_text(std::span<const std::string_view> tokens, const std::vector<Split>& all) {
    std::string out = "[";
    for (const Split& s : all) {
        if (out.size() > 1) out += ',';
        out += '[';
        append_quoted(out, tokens[s.id].substr(0, s.split));
        out += ',';
        append_quoted(out, tokens[s.id].substr(s.split));
        out += ']';
    }
    return out + "]";
}

// text with the value `empty` of the key `key` after "model" replaced by `value`.
void splice(std::string& text, std::string_view key, std::string_view empty,
            const std::string& value) {
    const std::string field = fmt::format("\"{}\":{}", key, empty);
    const std::size_t at = text.find(field, text.find("\"model\":"));
    text.replace(at + field.size() - empty.size(), empty.size(), value);
}

std::int64_t special_id(const GgufFile& file, std::string_view key, std::int64_t fallback,
                        std::size_t n) {
    const auto id = file.metadata().unsigned_integer(key);
    // llama.cpp keeps its default when the key is absent or names no token
    if (id && *id < n) return static_cast<std::int64_t>(*id);
    return fallback >= 0 && static_cast<std::size_t>(fallback) < n ? fallback : -1;
}

json special_item(const std::string& name, int type_id) {
    return {{"SpecialToken", {{"id", name}, {"type_id", type_id}}}};
}

}  // namespace

std::string gguf_spm_tokenizer_json(const GgufFile& file) {
    const GgufMetadata& meta = file.metadata();
    const auto tokens = meta.strings("tokenizer.ggml.tokens");
    if (!tokens)
        throw GgufError(Kind::missing, file.path(), "tokenizer.ggml.tokens", "is absent", true);
    require_utf8(file, "tokenizer.ggml.tokens", *tokens);
    const std::size_t n = tokens->size();
    const auto scores = meta.numbers("tokenizer.ggml.scores").value_or(std::vector<double>(n, 0.0));
    const auto types = meta.integers("tokenizer.ggml.token_type");
    if (scores.size() < n)
        throw GgufError(Kind::metadata, file.path(), "tokenizer.ggml.scores",
                        fmt::format("has {} values for {} tokens", scores.size(), n), true);
    if (types && types->size() < n)
        throw GgufError(Kind::metadata, file.path(), "tokenizer.ggml.token_type",
                        fmt::format("has {} values for {} tokens", types->size(), n), true);
    // llama.cpp's defaults for an SPM vocabulary: <unk> 0, <s> 1, </s> 2, BOS added, EOS not,
    // a space before the text
    const std::int64_t unk = special_id(file, "tokenizer.ggml.unknown_token_id", 0, n);
    const std::int64_t bos = special_id(file, "tokenizer.ggml.bos_token_id", 1, n);
    const std::int64_t eos = special_id(file, "tokenizer.ggml.eos_token_id", 2, n);
    const bool add_bos = meta.boolean("tokenizer.ggml.add_bos_token").value_or(true);
    const bool add_eos = meta.boolean("tokenizer.ggml.add_eos_token").value_or(false);
    const bool prefix = meta.boolean("tokenizer.ggml.add_space_prefix").value_or(true);
    for (const auto& [on, id, key] : {std::tuple{add_bos, bos, "tokenizer.ggml.bos_token_id"},
                                      std::tuple{add_eos, eos, "tokenizer.ggml.eos_token_id"}})
        if (on && id < 0)
            throw GgufError(Kind::missing, file.path(), key,
                            "is absent or not a token, and the tokenizer adds it", true);

    const Index index(*tokens);
    json added = json::array();
    for (std::size_t id = 0; id < n; ++id) {
        const std::int64_t type = types ? (*types)[id] : TokenType::normal;
        if (type == TokenType::control || type == TokenType::user_defined ||
            type == TokenType::unknown)
            added.push_back({{"id", id},
                             {"content", std::string((*tokens)[id])},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", false},
                             {"special", type != TokenType::user_defined}});
    }
    const json replace{{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}};
    json j{{"version", "1.0"},
           {"added_tokens", added},
           {"normalizer",
            prefix ? json{{"type", "Sequence"},
                          {"normalizers", {{{"type", "Prepend"}, {"prepend", "▁"}}, replace}}}
                   : replace},
           {"pre_tokenizer", nullptr},
           {"post_processor", nullptr},
           {"decoder", nullptr},
           {"model",
            {{"type", "BPE"},
             {"dropout", nullptr},
             {"unk_token", unk >= 0 ? json(std::string((*tokens)[unk])) : json(nullptr)},
             {"continuing_subword_prefix", nullptr},
             {"end_of_word_suffix", nullptr},
             {"fuse_unk", true},
             {"byte_fallback", true},
             {"ignore_merges", false},
             {"vocab", json::object()},
             {"merges", json::array()}}}};
    if (add_bos || add_eos) {
        json single = json::array(), pair = json::array(), specials = json::object();
        const json a{{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
        const json b{{"Sequence", {{"id", "B"}, {"type_id", 1}}}};
        for (const auto& [on, id] : {std::pair{add_bos, bos}, std::pair{add_eos, eos}})
            if (on) {
                const std::string name((*tokens)[id]);
                specials[name] = {{"id", name}, {"ids", {id}}, {"tokens", {name}}};
            }
        const std::string bos_name = add_bos ? std::string((*tokens)[bos]) : "";
        const std::string eos_name = add_eos ? std::string((*tokens)[eos]) : "";
        for (int type_id : {0, 1}) {
            json& out = type_id == 0 ? single : pair;
            if (add_bos) out.push_back(special_item(bos_name, 0));
            out.push_back(a);
            if (add_eos) out.push_back(special_item(eos_name, 0));
        }
        if (add_bos) pair.push_back(special_item(bos_name, 1));
        pair.push_back(b);
        if (add_eos) pair.push_back(special_item(eos_name, 1));
        j["post_processor"] = {{"type", "TemplateProcessing"},
                               {"single", single},
                               {"pair", pair},
                               {"special_tokens", specials}};
    }
    std::string text = j.dump();
    splice(text, "vocab", "{}", vocab_text(*tokens, index));
    splice(text, "merges", "[]", merges_text(*tokens, splits(*tokens, index, scores)));
    return text;
}

}  // namespace attn::io
