#include "io/model_locator.hpp"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string_view>
#include <system_error>

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

}  // namespace attn::io
