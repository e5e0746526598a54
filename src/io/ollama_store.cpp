#include "io/ollama_store.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>
#include <vector>

#include "io/model_locator.hpp"

namespace attn::io {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "ollama:";
constexpr std::string_view kRegistry = "registry.ollama.ai";
constexpr std::string_view kModelLayer = "application/vnd.ollama.image.model";
// A manifest is a few hundred bytes; anything past this is not one.
constexpr std::uintmax_t kMaxManifest = 1 << 20;

bool name_part(std::string_view p) {
    if (p.empty() || p == "." || p == ".." || p.size() > 200) return false;
    for (const char c : p)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
            return false;
    return true;
}

[[noreturn]] void bad_name(std::string_view spec) {
    throw OllamaStoreError(
        fmt::format("'{}' is not an ollama model name: expected ollama:NAME[:TAG] or "
                    "ollama:NAMESPACE/NAME[:TAG], each part letters, digits, '.', '_' or '-'",
                    spec));
}

std::string read_manifest(const fs::path& path) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || size > kMaxManifest)
        throw OllamaStoreError(
            fmt::format("{}: {}", path.string(),
                        ec ? ec.message() : "is not an ollama manifest (above 1 MiB)"));
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool sha256_digest(const std::string& d) {
    if (d.size() != 7 + 64 || d.compare(0, 7, "sha256:") != 0) return false;
    for (std::size_t i = 7; i < d.size(); ++i)
        if (!std::isxdigit(static_cast<unsigned char>(d[i])) ||
            std::isupper(static_cast<unsigned char>(d[i])))
            return false;
    return true;
}

}  // namespace

bool is_ollama_spec(std::string_view spec) {
    return spec.substr(0, kPrefix.size()) == kPrefix;
}

fs::path ollama_root() {
    const char* models = std::getenv("OLLAMA_MODELS");
    if (models != nullptr && *models != '\0') return models;
    const char* home = std::getenv("HOME");
    return fs::path(home != nullptr ? home : "") / ".ollama" / "models";
}

OllamaModel locate_ollama(std::string_view spec, const fs::path& root) {
    if (!is_ollama_spec(spec)) bad_name(spec);
    std::string_view rest = spec.substr(kPrefix.size());
    OllamaModel m;
    m.tag = "latest";
    if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
        m.tag = rest.substr(colon + 1);
        rest = rest.substr(0, colon);
    }
    std::string_view space = "library", name = rest;
    if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
        space = rest.substr(0, slash);
        name = rest.substr(slash + 1);
    }
    if (!name_part(space) || !name_part(name) || !name_part(m.tag)) bad_name(spec);
    m.name = rest;

    const fs::path folder = root / "manifests" / kRegistry / space / name;
    m.manifest = folder / m.tag;
    std::error_code ec;
    if (!fs::is_regular_file(m.manifest, ec)) {
        const std::string pull = m.tag == "latest" ? m.name : m.name + ":" + m.tag;
        throw ModelNotFound(
            fmt::format("ollama model '{}:{}' not found: no manifest {} in {} (the store is "
                        "$OLLAMA_MODELS, else ~/.ollama/models); `ollama pull {}` fetches it",
                        m.name, m.tag, m.tag, folder.string(), pull),
            {m.manifest});
    }
    const auto json = nlohmann::json::parse(read_manifest(m.manifest), nullptr, false);
    const auto malformed = [&](const std::string& why) {
        return OllamaStoreError(fmt::format("{}: {}", m.manifest.string(), why));
    };
    if (json.is_discarded() || !json.is_object()) throw malformed("is not a JSON object");
    const auto layers = json.find("layers");
    if (layers == json.end() || !layers->is_array()) throw malformed("has no \"layers\" array");
    const nlohmann::json* layer = nullptr;
    for (const auto& l : *layers)
        if (l.is_object() && l.value("mediaType", "") == kModelLayer) layer = &l;
    if (layer == nullptr) throw malformed(fmt::format("has no layer of mediaType {}", kModelLayer));
    const auto digest = layer->find("digest");
    const auto size = layer->find("size");
    if (digest == layer->end() || !digest->is_string() || !sha256_digest(*digest))
        throw malformed("has a model layer whose digest is not sha256:<64 lowercase hex>");
    if (size == layer->end() || !size->is_number_unsigned())
        throw malformed("has a model layer without an unsigned \"size\"");
    m.size = size->get<std::uint64_t>();
    std::string file = digest->get<std::string>();
    file[6] = '-';  // "sha256:<hex>" -> "sha256-<hex>"
    m.blob = root / "blobs" / file;

    const auto actual = fs::file_size(m.blob, ec);
    if (ec)
        throw ModelNotFound(
            fmt::format("ollama model '{}:{}': its blob {} (named by {}) is "
                        "missing: {}; `ollama pull {}` fetches it again",
                        m.name, m.tag, m.blob.string(), m.manifest.string(), ec.message(), m.name),
            {m.blob});
    if (actual != m.size)
        throw OllamaStoreError(
            fmt::format("{}: {} bytes, but its manifest {} gives {}: an "
                        "incomplete or altered blob",
                        m.blob.string(), actual, m.manifest.string(), m.size));
    return m;
}

}  // namespace attn::io
