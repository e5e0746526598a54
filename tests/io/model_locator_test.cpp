#include "io/model_locator.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/python.hpp"
#include "support/test_files.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using attn::io::locate_model;
using attn::io::ModelNotFound;

namespace {

const std::string kCommit = "4a1c9f0e5b7d2c3a8e6f1b0d9c7a5e3f2b1d0c9a";
const std::string kOther = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";

/// hub/models--org--tiny with blobs/, snapshots/<kCommit> and <kOther> (files symlinked into
/// blobs/, as the hub's cache stores them), refs/main -> kCommit, refs/v1 -> kOther.
fs::path make_hub(const std::string& root) {
    const fs::path hub = fs::path(root);
    const fs::path repo = hub / "models--org--tiny";
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "refs");
    for (const auto& [commit, ref] : {std::pair{kCommit, "main"}, std::pair{kOther, "v1"}}) {
        const fs::path snap = repo / "snapshots" / commit;
        fs::create_directories(snap);
        attn::test::write_file((repo / "blobs" / ("blob-" + commit)).string(), "{}");
        fs::create_symlink(fs::path("../../blobs") / ("blob-" + commit), snap / "config.json");
        attn::test::write_file((repo / "refs" / ref).string(), commit + "\n");
    }
    return hub;
}

void clear_env() {
    for (const char* name : {"HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"}) ::unsetenv(name);
}

std::string miss_message(const std::string& spec, const std::string& revision = "main") {
    try {
        locate_model(spec, revision);
    } catch (const ModelNotFound& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("locate_model: a folder is taken as it is") {
    const std::string dir = attn::test::tmp_path("gpt");
    fs::create_directories(dir);
    CHECK(locate_model(dir) == fs::path(dir));
}

TEST_CASE("locate_model: ORG/NAME through refs/main in HF_HUB_CACHE, files symlinked to blobs") {
    clear_env();
    const fs::path hub = make_hub(attn::test::tmp_path("hub"));
    ::setenv("HF_HUB_CACHE", hub.c_str(), 1);
    const fs::path found = locate_model("org/tiny");
    CHECK(found == hub / "models--org--tiny" / "snapshots" / kCommit);
    CHECK(fs::is_symlink(found / "config.json"));
    CHECK(attn::test::read_file((found / "config.json").string()) == "{}");
}

TEST_CASE("locate_model: --revision as a ref name or as a commit") {
    clear_env();
    const fs::path hub = make_hub(attn::test::tmp_path("hub"));
    ::setenv("HF_HUB_CACHE", hub.c_str(), 1);
    const fs::path snapshots = hub / "models--org--tiny" / "snapshots";
    CHECK(locate_model("org/tiny", "v1") == snapshots / kOther);
    CHECK(locate_model("org/tiny", kOther) == snapshots / kOther);
    CHECK(locate_model("org/tiny", kCommit) == snapshots / kCommit);
    const std::string miss = miss_message("org/tiny", "v2");
    CHECK(attn::test::contains(miss, "at revision 'v2'"));
    CHECK(attn::test::contains(miss, (hub / "models--org--tiny" / "refs" / "v2").string()));
    CHECK(attn::test::contains(miss, (snapshots / "v2").string()));
    CHECK(attn::test::contains(miss, "huggingface-cli download org/tiny --revision v2"));
    // A revision never leaves the repository's folder.
    CHECK(!miss_message("org/tiny", "../../models--org--tiny/snapshots/" + kCommit).empty());
}

TEST_CASE("locate_model: the cache root from HF_HOME, XDG_CACHE_HOME, then HOME") {
    clear_env();
    const std::string root = attn::test::tmp_path("roots");
    make_hub(root + "/hf/hub");
    make_hub(root + "/xdg/huggingface/hub");
    make_hub(root + "/home/.cache/huggingface/hub");
    const std::string tail = "/models--org--tiny/snapshots/" + kCommit;
    ::setenv("HOME", (root + "/home").c_str(), 1);
    CHECK(locate_model("org/tiny") == fs::path(root + "/home/.cache/huggingface/hub" + tail));
    ::setenv("XDG_CACHE_HOME", (root + "/xdg").c_str(), 1);
    CHECK(locate_model("org/tiny") == fs::path(root + "/xdg/huggingface/hub" + tail));
    ::setenv("HF_HOME", (root + "/hf").c_str(), 1);
    CHECK(locate_model("org/tiny") == fs::path(root + "/hf/hub" + tail));
    ::setenv("HF_HUB_CACHE", (root + "/elsewhere").c_str(), 1);
    CHECK(!miss_message("org/tiny").empty());  // HF_HUB_CACHE wins even when it is empty
    ::setenv("HF_HUB_CACHE", "", 1);           // an empty variable counts as unset
    CHECK(locate_model("org/tiny") == fs::path(root + "/hf/hub" + tail));
}

TEST_CASE("locate_model: a miss names every place looked at and how to download") {
    clear_env();
    const std::string hub = attn::test::tmp_path("empty-hub");
    fs::create_directories(hub);
    ::setenv("HF_HUB_CACHE", hub.c_str(), 1);
    try {
        locate_model("openai-community/gpt2");
        FAIL("no ModelNotFound");
    } catch (const ModelNotFound& e) {
        const std::string what = e.what();
        REQUIRE(e.looked_at.size() == 2);
        CHECK(e.looked_at[0] == fs::path("openai-community/gpt2"));
        CHECK(e.looked_at[1] == fs::path(hub) / "models--openai-community--gpt2");
        for (const auto& p : e.looked_at) CHECK(attn::test::contains(what, p.string()));
        CHECK(attn::test::contains(what, "huggingface-cli download openai-community/gpt2"));
        CHECK(attn::test::count(what, "\n") == 0);
    }
    // A snapshot named by refs/main but absent: the ref and the snapshot are named.
    const fs::path repo = fs::path(hub) / "models--org--gone";
    fs::create_directories(repo / "refs");
    attn::test::write_file((repo / "refs" / "main").string(), kCommit);
    const std::string gone = miss_message("org/gone");
    CHECK(attn::test::contains(gone, (repo / "refs" / "main").string()));
    CHECK(attn::test::contains(gone, (repo / "snapshots" / kCommit).string()));
    // A path that is not a repository name is only looked at as a folder.
    const std::string path_miss = miss_message("./no/such/folder");
    CHECK(attn::test::contains(path_miss, "./no/such/folder"));
    CHECK(!attn::test::contains(path_miss, "huggingface-cli"));
    CHECK(!miss_message("a/b/c").empty());
    CHECK(!miss_message("../org/tiny").empty());
}

TEST_CASE("locate_model: the cache tree tests/support/safetensors.py makes") {
    attn::test::require_numpy();
    clear_env();
    const std::string hub = attn::test::tmp_path("py-hub");
    const int status = attn::test::run_python(
        "cache.py", "import sys\nsys.path.insert(0, '" + std::string(ATTN_SOURCE_DIR) +
                        "/tests/support')\nimport numpy as np, safetensors as st\n"
                        "st.write_file('w.safetensors', {'a': np.arange(6.0).reshape(2, 3)})\n"
                        "st.fake_cache('" +
                        hub +
                        "', 'org/py', {'config.json': b'{}', 'model.safetensors': "
                        "'w.safetensors'}, commit='c0ffee')\n");
    REQUIRE(status == 0);
    ::setenv("HF_HUB_CACHE", hub.c_str(), 1);
    const fs::path found = locate_model("org/py");
    CHECK(found == fs::path(hub) / "models--org--py" / "snapshots" / "c0ffee");
    CHECK(fs::is_symlink(found / "model.safetensors"));
    CHECK(fs::file_size(found / "model.safetensors") == 8 + 88 + 24);
}
