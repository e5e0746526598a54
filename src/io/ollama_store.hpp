// Models in ollama's store, found on this disk (never on the network).
//
// `ollama:NAME[:TAG]` (TAG default `latest`; NAME may be NAMESPACE/NAME, default namespace
// `library`) is the manifest ROOT/manifests/registry.ollama.ai/NAMESPACE/NAME/TAG, ROOT being
// $OLLAMA_MODELS, else ~/.ollama/models. The manifest is JSON:
//   {"layers": [{"mediaType": "application/vnd.ollama.image.model",
//                "digest": "sha256:<64 hex>", "size": <bytes>}, ...], ...}
// and the model's weights (a GGUF file) are the blob ROOT/blobs/sha256-<64 hex> of the layer of
// that media type, whose size must be the manifest's (the hash is not recomputed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn::io {

/// A malformed name, manifest, or a blob whose size is not the manifest's (cli: exit 2).
/// Not found is io::ModelNotFound (exit 1).
struct OllamaStoreError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct OllamaModel {
    std::string name;  // NAMESPACE/NAME as written (NAME alone for the library namespace)
    std::string tag;
    std::filesystem::path manifest;
    std::filesystem::path blob;  // the GGUF file
    std::uint64_t size = 0;      // its bytes, as the manifest gives them
};

/// Whether a --model value names ollama's store: it starts with "ollama:".
bool is_ollama_spec(std::string_view spec);

/// $OLLAMA_MODELS when set and not empty, else $HOME/.ollama/models.
std::filesystem::path ollama_root();

/// The model `spec` ("ollama:NAME[:TAG]") names in the store at root. No manifest (or no
/// blob): ModelNotFound naming the manifests folder looked in and `ollama pull NAME[:TAG]`.
/// A name with an empty part, "." or "..", or characters other than letters, digits, '.', '_'
/// and '-'; a manifest that is not JSON or has no model layer; a digest that is not
/// sha256:<64 hex>; a blob of another size: OllamaStoreError naming the manifest or the blob.
OllamaModel locate_ollama(std::string_view spec, const std::filesystem::path& root);
inline OllamaModel locate_ollama(std::string_view spec) {
    return locate_ollama(spec, ollama_root());
}

}  // namespace attn::io
