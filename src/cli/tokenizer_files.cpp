#include "cli/tokenizer_files.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <fstream>
#include <optional>
#include <system_error>

#include "attn/model/families.hpp"
#include "attn/text/tokenizer_json.hpp"
#include "attn/text/vocab_files.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

namespace fs = std::filesystem;

namespace {

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// A tokenizer file, whole. Parsing takes about 16 bytes of memory per byte of JSON.
std::string read_file(const fs::path& p) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(p, ec);
    if (ec) throw std::system_error(ec, p.string());
    runtime::reserve(runtime::checked_mul(size, 16, p.string()), p.string());
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::system_error(errno, std::generic_category(), p.string());
    std::string bytes(size, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::uintmax_t>(in.gcount()) != size)
        throw std::system_error(EIO, std::generic_category(), p.string());
    return bytes;
}

// Runs make() with the file's name before any TokenizerError it throws.
template <class F>
text::Tokenizer naming_file(const std::string& name, F&& make) {
    try {
        return make();
    } catch (const text::TokenizerError& e) {
        const std::string what = e.what();
        throw text::TokenizerError(what.rfind(name, 0) == 0 ? what : name + ": " + what);
    }
}

// tokenizer_config.json or config.json as JSON (null when absent or not an object).
nlohmann::json optional_json(const fs::path& p) {
    if (!is_file(p)) return nullptr;
    const std::string bytes = read_file(p);
    auto j = nlohmann::json::parse(bytes, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw text::TokenizerError(p.string() + ": not a JSON object");
    return j;
}

std::optional<bool> flag(const nlohmann::json& config, const char* key) {
    if (!config.is_object()) return std::nullopt;
    const auto it = config.find(key);
    if (it == config.end() || !it->is_boolean()) return std::nullopt;
    return it->get<bool>();
}

fs::path sentencepiece_file(const fs::path& folder) {
    for (const char* name : {"tokenizer.model", "spiece.model"})
        if (is_file(folder / name)) return folder / name;
    return {};
}

}  // namespace

TokenizerFiles tokenizer_files(const fs::path& folder) {
    if (is_file(folder / "tokenizer.json")) return TokenizerFiles::tokenizer_json;
    if (is_file(folder / "vocab.json") && is_file(folder / "merges.txt"))
        return TokenizerFiles::vocab_json_merges;
    if (is_file(folder / "vocab.txt")) return TokenizerFiles::vocab_txt;
    if (!sentencepiece_file(folder).empty()) return TokenizerFiles::sentencepiece;
    return TokenizerFiles::none;
}

text::Tokenizer load_tokenizer(const fs::path& folder) {
    const TokenizerFiles files = tokenizer_files(folder);
    if (files == TokenizerFiles::none)
        throw text::TokenizerError(
            folder.string() +
            ": no tokenizer (looked for tokenizer.json, vocab.json + merges.txt, vocab.txt, "
            "tokenizer.model, spiece.model)");
    if (files == TokenizerFiles::tokenizer_json) {
        const fs::path p = folder / "tokenizer.json";
        const std::string bytes = read_file(p);
        return naming_file(p.string(), [&] { return text::tokenizer_from_json(bytes); });
    }
    if (files == TokenizerFiles::vocab_json_merges) {
        const std::string vocab = read_file(folder / "vocab.json");
        const std::string merges = read_file(folder / "merges.txt");
        return naming_file((folder / "vocab.json").string(),
                           [&] { return text::tokenizer_from_gpt2_files(vocab, merges); });
    }
    const nlohmann::json config = optional_json(folder / "tokenizer_config.json");
    if (files == TokenizerFiles::vocab_txt) {
        text::BertOptions o;
        o.lowercase = flag(config, "do_lower_case").value_or(true);
        o.strip_accents = flag(config, "strip_accents");
        o.chinese_chars = flag(config, "tokenize_chinese_chars").value_or(true);
        const fs::path p = folder / "vocab.txt";
        const std::string bytes = read_file(p);
        return naming_file(p.string(), [&] { return text::tokenizer_from_vocab_txt(bytes, o); });
    }
    // SentencePiece: T5's tokenizer ends the text with </s>; Llama's begins it with <s>.
    text::SentencePieceOptions o;
    const auto bos = flag(config, "add_bos_token"), eos = flag(config, "add_eos_token");
    if (!bos && !eos) {
        const nlohmann::json model_config = optional_json(folder / "config.json");
        const auto type =
            model_config.is_object() ? model_config.find("model_type") : model_config.end();
        const model::Family* family = type != model_config.end() && type->is_string()
                                          ? model::find_family(type->get<std::string>())
                                          : nullptr;
        o = family
                ? text::SentencePieceOptions{family->sentencepiece_bos, family->sentencepiece_eos}
                : text::SentencePieceOptions{true, false};
    } else {
        o = {bos.value_or(false), eos.value_or(false)};
    }
    const fs::path p = sentencepiece_file(folder);
    const std::string bytes = read_file(p);
    return naming_file(p.string(), [&] { return text::tokenizer_from_sentencepiece(bytes, o); });
}

}  // namespace attn::cli
