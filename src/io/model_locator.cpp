#include "io/model_locator.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <system_error>

#include "io/gguf.hpp"
#include "io/gguf_tokenizer.hpp"
#include "io/model_source.hpp"
#include "io/ollama_store.hpp"
#include "io/safetensors.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::io {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> env(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

/// huggingface_hub's constants: HF_HUB_CACHE, else HF_HOME/hub, else
/// XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
fs::path hub_cache() {
    if (auto dir = env("HF_HUB_CACHE")) return *dir;
    if (auto home = env("HF_HOME")) return fs::path(*home) / "hub";
    if (auto xdg = env("XDG_CACHE_HOME")) return fs::path(*xdg) / "huggingface" / "hub";
    return fs::path(env("HOME").value_or("")) / ".cache" / "huggingface" / "hub";
}

/// ORG/NAME or NAME (the hub's legacy names such as "gpt2"): letters, digits, '-', '_', '.';
/// no component "." or "..", so a name never walks out of the cache.
bool is_repo_id(std::string_view spec) {
    if (spec.empty() || spec.size() > 200) return false;
    std::size_t slashes = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= spec.size(); ++i) {
        if (i == spec.size() || spec[i] == '/') {
            const std::string_view part = spec.substr(start, i - start);
            if (part.empty() || part == "." || part == "..") return false;
            start = i + 1;
            if (i < spec.size()) ++slashes;
            continue;
        }
        const char c = spec[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        if (!ok) return false;
    }
    return slashes <= 1;
}

/// A revision is a ref name (main, a branch or tag, refs/pr/1) or a commit: a relative path
/// without "." or ".." components.
bool is_safe_revision(std::string_view revision) {
    if (revision.empty() || revision.front() == '/') return false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= revision.size(); ++i) {
        if (i < revision.size() && revision[i] != '/') continue;
        const std::string_view part = revision.substr(start, i - start);
        if (part.empty() || part == "." || part == "..") return false;
        start = i + 1;
    }
    return true;
}

/// The commit a ref file holds (its first line, surrounding blanks dropped).
std::string read_ref(const fs::path& file) {
    std::ifstream in(file);
    std::string commit;
    std::getline(in, commit);
    const auto first = commit.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    const auto last = commit.find_last_not_of(" \t\r\n");
    return commit.substr(first, last - first + 1);
}

bool is_dir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

[[noreturn]] void not_found(const std::string& spec, const std::string& revision,
                            std::vector<fs::path> looked_at, bool repo_id) {
    if (is_file(spec))  // a checkpoint's file: its folder is the model
        throw ModelNotFound("model '" + spec +
                                "' is a file; give the folder holding it and its "
                                "config.json (or a .gguf file)",
                            std::move(looked_at));
    std::string what = "model '" + spec + "'";
    if (repo_id && revision != "main") what += " at revision '" + revision + "'";
    what += " not found; looked at";
    for (std::size_t i = 0; i < looked_at.size(); ++i)
        what += (i == 0 ? " " : ", ") + looked_at[i].string();
    if (repo_id)
        what += "; on a machine with a network, `huggingface-cli download " + spec +
                (revision != "main" ? " --revision " + revision : std::string()) +
                "` puts it in the cache (copy the cache folder here, or point HF_HUB_CACHE at "
                "it)";
    else
        what += "; give a folder holding config.json, or ORG/NAME of the Hugging Face cache";
    throw ModelNotFound(what, std::move(looked_at));
}

}  // namespace

void check_blob(const fs::path& file) {
    std::error_code ec;
    if (!fs::is_symlink(file, ec) || fs::exists(file, ec)) return;
    const fs::path target = fs::read_symlink(file, ec);
    const fs::path blob =
        (target.is_absolute() ? target : file.parent_path() / target).lexically_normal();
    throw MissingBlob(file.string() + ": its blob " + blob.string() +
                      " is missing (a pruned cache or an interrupted download); download the "
                      "model again");
}

std::filesystem::path locate_model(const std::string& spec, const std::string& revision) {
    std::vector<fs::path> looked_at;
    const fs::path as_folder(spec);
    if (!spec.empty()) {
        if (is_dir(as_folder)) return as_folder;
        looked_at.push_back(as_folder);
    }
    const bool repo_id = is_repo_id(spec) && spec.find("..") == std::string::npos;
    if (!repo_id || !is_safe_revision(revision)) not_found(spec, revision, looked_at, repo_id);

    // models--ORG--NAME: the hub's folder name for the repository ORG/NAME.
    std::string folder = "models--" + spec;
    for (std::size_t at = folder.find('/'); at != std::string::npos; at = folder.find('/', at))
        folder.replace(at, 1, "--");
    const fs::path repo = hub_cache() / folder;
    if (!is_dir(repo)) {
        looked_at.push_back(repo);
        not_found(spec, revision, looked_at, true);
    }
    const fs::path ref = repo / "refs" / revision;
    looked_at.push_back(ref);
    if (is_file(ref)) {
        const std::string commit = read_ref(ref);
        if (is_safe_revision(commit)) {
            const fs::path snapshot = repo / "snapshots" / commit;
            if (is_dir(snapshot)) {
                check_blob(snapshot / "config.json");
                return snapshot;
            }
            looked_at.push_back(snapshot);
        }
    }
    // A commit given as the revision names its snapshot directly.
    const fs::path snapshot = repo / "snapshots" / revision;
    if (is_dir(snapshot)) {
        check_blob(snapshot / "config.json");
        return snapshot;
    }
    looked_at.push_back(snapshot);
    not_found(spec, revision, looked_at, true);
}

// ModelSource (model_source.hpp): the folder locate_model finds, its files read.

namespace {

using Kind = ModelSourceError::Kind;

// A tokenizer file, whole. Parsing takes about 16 bytes of memory per byte of JSON.
std::string read_whole(const fs::path& p) {
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

// tokenizer_config.json or config.json as JSON (null when absent).
nlohmann::json optional_json(const fs::path& p) {
    if (!is_file(p)) return nullptr;
    auto j = nlohmann::json::parse(read_whole(p), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw ModelSourceError(Kind::tokenizer_config, p, p.string() + ": not a JSON object");
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

ModelSourceError::ModelSourceError(Kind k, fs::path p, const std::string& detail)
    : std::invalid_argument(detail), kind(k), path(std::move(p)) {}

ModelSource::ModelSource(fs::path folder) : folder_(std::move(folder)) {}
ModelSource::ModelSource(ModelSource&&) noexcept = default;
ModelSource& ModelSource::operator=(ModelSource&&) noexcept = default;
ModelSource::~ModelSource() = default;

ModelSource ModelSource::open(const ModelSpec& spec) {
    std::error_code ec;
    const bool ollama = is_ollama_spec(spec.model);
    if (ollama || spec.model.ends_with(".gguf")) {
        if (spec.revision_given)
            throw ModelSourceError(Kind::revision_of_folder, spec.model,
                                   spec.model +
                                       " is a GGUF file; --revision picks a snapshot of ORG/NAME "
                                       "in the Hugging Face cache");
        ModelSource s(ollama ? locate_ollama(spec.model).blob : fs::path(spec.model));
        s.gguf_ = std::make_shared<const GgufFile>(s.folder_);
        return s;
    }
    if (spec.revision_given && fs::is_directory(spec.model, ec))
        throw ModelSourceError(Kind::revision_of_folder, spec.model,
                               spec.model +
                                   " is a folder; --revision picks a snapshot of ORG/NAME in the "
                                   "Hugging Face cache");
    if (spec.revision.empty())
        throw ModelSourceError(Kind::empty_revision, spec.model,
                               "empty; give a ref name or a commit");
    return ModelSource(locate_model(spec.model, spec.revision));
}

fs::path ModelSource::config_path() const {
    return gguf_ ? folder_ : folder_ / "config.json";
}

void ModelSource::set_gguf_model(std::string config_json, std::vector<GgufTensorName> names) {
    gguf_config_ = std::move(config_json);
    gguf_names_ = std::move(names);
}

std::string ModelSource::config_json() const {
    if (gguf_) return gguf_config_;
    const fs::path path = config_path();
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw ModelSourceError(Kind::no_config, folder_,
                               folder_.string() +
                                   " holds no config.json (a model folder holds config.json and "
                                   "model.safetensors)");
    // config.json files are a few kB; a large one is not a config.
    const auto size = fs::file_size(path, ec);
    if (!ec && size > (std::uintmax_t{16} << 20))
        throw ModelSourceError(
            Kind::config_too_large, path,
            path.string() + ": " + std::to_string(size) + " bytes, too large for a config.json");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::system_error(errno, std::generic_category(), path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TokenizerFiles ModelSource::tokenizer_files() const {
    if (gguf_)
        return has_gguf_tokenizer(*gguf_) ? TokenizerFiles::tokenizer_json : TokenizerFiles::none;
    const fs::path& f = folder_;
    if (is_file(f / "tokenizer.json")) return TokenizerFiles::tokenizer_json;
    if (is_file(f / "vocab.json") && is_file(f / "merges.txt"))
        return TokenizerFiles::vocab_json_merges;
    if (is_file(f / "vocab.txt")) return TokenizerFiles::vocab_txt;
    if (!sentencepiece_file(f).empty()) return TokenizerFiles::sentencepiece;
    return TokenizerFiles::none;
}

TokenizerText ModelSource::tokenizer() const {
    TokenizerText t;
    t.files = tokenizer_files();
    if (gguf_) {  // its tokenizer.ggml.* keys as a tokenizer.json (GgufError when unreadable)
        t.files = TokenizerFiles::tokenizer_json;
        t.path = folder_;
        t.bytes = gguf_tokenizer_json(*gguf_);
        return t;
    }
    switch (t.files) {
        case TokenizerFiles::none:
            throw ModelSourceError(
                Kind::no_tokenizer, folder_,
                folder_.string() +
                    ": no tokenizer (looked for tokenizer.json, vocab.json + merges.txt, "
                    "vocab.txt, tokenizer.model, spiece.model)");
        case TokenizerFiles::tokenizer_json:
            t.path = folder_ / "tokenizer.json";
            t.bytes = read_whole(t.path);
            return t;
        case TokenizerFiles::vocab_json_merges:
            t.path = folder_ / "vocab.json";
            t.bytes = read_whole(t.path);
            t.merges = read_whole(folder_ / "merges.txt");
            return t;
        case TokenizerFiles::vocab_txt:
        case TokenizerFiles::sentencepiece:
            break;
    }
    const nlohmann::json config = optional_json(folder_ / "tokenizer_config.json");
    t.do_lower_case = flag(config, "do_lower_case");
    t.strip_accents = flag(config, "strip_accents");
    t.tokenize_chinese_chars = flag(config, "tokenize_chinese_chars");
    t.add_bos_token = flag(config, "add_bos_token");
    t.add_eos_token = flag(config, "add_eos_token");
    if (t.files == TokenizerFiles::vocab_txt) {
        t.path = folder_ / "vocab.txt";
    } else {
        if (!t.add_bos_token && !t.add_eos_token) {
            const nlohmann::json model = optional_json(config_path());
            const auto type = model.is_object() ? model.find("model_type") : model.end();
            if (type != model.end() && type->is_string()) t.model_type = type->get<std::string>();
        }
        t.path = sentencepiece_file(folder_);
    }
    t.bytes = read_whole(t.path);
    return t;
}

void ModelSource::open_weights() {
    if (gguf_) {
        if (!gguf_store_) gguf_store_ = std::make_unique<GgufStore>(gguf_, gguf_names_);
        return;
    }
    if (!checkpoint_) checkpoint_ = std::make_unique<Checkpoint>(Checkpoint::open_folder(folder_));
}

const runtime::TensorStore& ModelSource::weights() const {
    if (gguf_store_) return *gguf_store_;
    if (!checkpoint_)
        throw std::logic_error("the weights of " + folder_.string() + " are not open");
    return *checkpoint_;
}

}  // namespace attn::io
