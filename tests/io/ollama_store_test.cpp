// ollama's store laid out as ollama lays it (manifests/registry.ollama.ai/NAMESPACE/NAME/TAG,
// blobs/sha256-<hex>) in a scratch directory.
#include "io/ollama_store.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/model_locator.hpp"
#include "support/test_files.hpp"

namespace fs = std::filesystem;
using attn::io::locate_ollama;
using attn::io::ModelNotFound;
using attn::io::OllamaStoreError;

namespace {

const std::string kHex = "6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa";
const std::string kTemplate = "ff3ab75e8e01f1b0b1d1bcf7e1e1a0e3b43d9ca4c2dc35d4bbd1c5f32ee2ae9c";

/// A manifest as `ollama pull` writes it: config, then the model, template and params layers.
std::string manifest(const std::string& hex, std::uint64_t size) {
    return R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",)"
           R"("config":{"mediaType":"application/vnd.docker.container.image.v1+json",)"
           R"("digest":"sha256:)" +
           kTemplate + R"(","size":485},"layers":[)" +
           R"({"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" + hex +
           R"(","size":)" + std::to_string(size) + "}," +
           R"({"mediaType":"application/vnd.ollama.image.template","digest":"sha256:)" + kTemplate +
           R"(","size":1429}]})";
}

/// root/manifests/registry.ollama.ai/<space>/<name>/<tag> and its blob of `blob` bytes.
void add_model(const fs::path& root, const std::string& space, const std::string& name,
               const std::string& tag, const std::string& text, const std::string& blob) {
    const fs::path folder = root / "manifests" / "registry.ollama.ai" / space / name;
    fs::create_directories(folder);
    fs::create_directories(root / "blobs");
    attn::test::write_file((folder / tag).string(), text);
    attn::test::write_file((root / "blobs" / ("sha256-" + kHex)).string(), blob);
}

}  // namespace

TEST_CASE("ollama store: NAME, NAME:TAG and NAMESPACE/NAME:TAG find the model layer's blob") {
    const fs::path root = attn::test::tmp_path("ollama");
    const std::string gguf = "GGUF and some bytes";
    add_model(root, "library", "qwen2.5", "latest", manifest(kHex, gguf.size()), gguf);
    add_model(root, "library", "qwen2.5", "0.5b", manifest(kHex, gguf.size()), gguf);
    add_model(root, "someone", "tiny", "q4", manifest(kHex, gguf.size()), gguf);
    const fs::path blob = root / "blobs" / ("sha256-" + kHex);

    const auto latest = locate_ollama("ollama:qwen2.5", root);
    CHECK(latest.name == "qwen2.5");
    CHECK(latest.tag == "latest");
    CHECK(latest.blob == blob);
    CHECK(latest.size == gguf.size());
    CHECK(latest.manifest ==
          root / "manifests" / "registry.ollama.ai" / "library" / "qwen2.5" / "latest");
    CHECK(locate_ollama("ollama:qwen2.5:0.5b", root).tag == "0.5b");
    const auto other = locate_ollama("ollama:someone/tiny:q4", root);
    CHECK(other.name == "someone/tiny");
    CHECK(other.blob == blob);

    ::setenv("OLLAMA_MODELS", root.c_str(), 1);
    CHECK(attn::io::ollama_root() == root);
    CHECK(locate_ollama("ollama:qwen2.5:0.5b").blob == blob);
    ::unsetenv("OLLAMA_MODELS");
    ::setenv("HOME", "/home/someone", 1);
    CHECK(attn::io::ollama_root() == fs::path("/home/someone/.ollama/models"));
}

TEST_CASE("ollama store: a model not in the store names the folder and `ollama pull`") {
    const fs::path root = attn::test::tmp_path("ollama-empty");
    const fs::path folder = root / "manifests" / "registry.ollama.ai" / "library" / "llama3.2";
    try {
        locate_ollama("ollama:llama3.2:1b", root);
        FAIL("no ModelNotFound");
    } catch (const ModelNotFound& e) {
        CHECK(std::string(e.what()) ==
              "ollama model 'llama3.2:1b' not found: no manifest 1b in " + folder.string() +
                  " (the store is $OLLAMA_MODELS, else ~/.ollama/models); `ollama pull "
                  "llama3.2:1b` fetches it");
        CHECK(e.looked_at == std::vector<fs::path>{folder / "1b"});
    }
    CHECK_THROWS_WITH_AS(locate_ollama("ollama:llama3.2", root),
                         doctest::Contains("`ollama pull llama3.2` fetches it"), ModelNotFound);
}

TEST_CASE("ollama store: a blob of another size than its manifest's is refused naming it") {
    const fs::path root = attn::test::tmp_path("ollama-short");
    add_model(root, "library", "m", "latest", manifest(kHex, 1000), std::string(16, 'x'));
    const fs::path blob = root / "blobs" / ("sha256-" + kHex);
    CHECK_THROWS_WITH_AS(locate_ollama("ollama:m", root),
                         (blob.string() + ": 16 bytes, but its manifest " +
                          (root / "manifests/registry.ollama.ai/library/m/latest").string() +
                          " gives 1000: an incomplete or altered blob")
                             .c_str(),
                         OllamaStoreError);
    fs::remove(blob);
    CHECK_THROWS_WITH_AS(locate_ollama("ollama:m", root), doctest::Contains("is missing"),
                         ModelNotFound);
}

TEST_CASE("ollama store: malformed names and manifests are refused") {
    const fs::path root = attn::test::tmp_path("ollama-bad");
    for (const char* spec : {"ollama:", "ollama:../x", "ollama:a/../../b",
                             "ollama:a:", "ollama:a b", "ollama:a/b/c", "qwen"})
        CHECK_THROWS_AS(locate_ollama(spec, root), OllamaStoreError);
    add_model(root, "library", "nojson", "latest", "{not json", "x");
    CHECK_THROWS_WITH_AS(locate_ollama("ollama:nojson", root),
                         doctest::Contains("nojson/latest: is not a JSON object"),
                         OllamaStoreError);
    add_model(root, "library", "nomodel", "latest", R"({"layers":[]})", "x");
    CHECK_THROWS_WITH_AS(
        locate_ollama("ollama:nomodel", root),
        doctest::Contains("has no layer of mediaType application/vnd.ollama.image.model"),
        OllamaStoreError);
    add_model(root, "library", "digest", "latest", manifest("../../etc/passwd", 1), "x");
    CHECK_THROWS_WITH_AS(locate_ollama("ollama:digest", root),
                         doctest::Contains("digest is not sha256:<64 lowercase hex>"),
                         OllamaStoreError);
}
