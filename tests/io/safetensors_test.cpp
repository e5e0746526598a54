#include "io/safetensors.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/memory_budget.hpp"
#include "support/test_files.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using attn::io::Checkpoint;
using attn::io::CheckpointError;
using Kind = attn::io::CheckpointError::Kind;

namespace {

/// 8-byte little-endian size + header + data: a safetensors file as the format defines it.
std::string safetensors_bytes(const std::string& header, const std::string& data,
                              std::uint64_t size_field = UINT64_MAX) {
    const std::uint64_t n = size_field == UINT64_MAX ? header.size() : size_field;
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return out + header + data;
}

std::string floats(std::initializer_list<float> values) {
    std::string out(values.size() * 4, '\0');
    std::memcpy(out.data(), values.begin(), out.size());
    return out;
}

/// The CheckpointError reading `bytes` as a file throws (kind and message).
CheckpointError error_of(const std::string& bytes) {
    const std::string path = attn::test::tmp_path("bad.safetensors");
    attn::test::write_file(path, bytes);
    try {
        Checkpoint::open_file(path);
    } catch (const CheckpointError& e) {
        return e;
    }
    FAIL("no CheckpointError");
    return CheckpointError(Kind::no_weights, "", "", "");
}

const std::string kTwo =
    R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
    R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

}  // namespace

TEST_CASE("safetensors: tensors mapped where they lie, sorted by name, metadata kept") {
    const std::string path = attn::test::tmp_path("two.safetensors");
    attn::test::write_file(path, safetensors_bytes(kTwo, floats({1, 2, 3, 4})));
    const Checkpoint c = Checkpoint::open_file(path);
    REQUIRE(c.tensors().size() == 2);
    CHECK(c.tensors()[0].info.name == "a");
    const auto* b = c.find("b");
    REQUIRE(b != nullptr);
    CHECK(b->info.begin == 8 + kTwo.size() + 8);
    const auto view = c.view(*b);
    CHECK(view.bytes.data() == c.files()[0].bytes().data() + b->info.begin);
    CHECK(view.at(0) == 3.0f);
    CHECK(view.at(1) == 4.0f);
    CHECK(c.find("c") == nullptr);
    const auto header = attn::io::read_safetensors_header(c.files()[0].bytes(), path);
    CHECK(header.metadata.at("format") == "pt");
    CHECK(header.tensors[0].name == "a");  // in the order of the data
}

TEST_CASE("safetensors: every header fault names the file, and the tensor at fault") {
    const auto check = [](const std::string& bytes, Kind kind, const std::string& tensor,
                          const std::string& words) {
        const CheckpointError e = error_of(bytes);
        CHECK(e.kind == kind);
        CHECK(e.tensor == tensor);
        CHECK(attn::test::contains(e.what(), "bad.safetensors"));
        if (!tensor.empty()) CHECK(attn::test::contains(e.what(), "tensor '" + tensor + "'"));
        CHECK(attn::test::contains(e.what(), words));
        CHECK(attn::test::count(e.what(), "\n") == 0);
    };
    const std::string data = floats({1, 2, 3, 4});
    check("abc", Kind::truncated, "", "shorter than the 8-byte header size");
    check(safetensors_bytes(kTwo, data, kTwo.size() + 17), Kind::header_size, "",
          "runs past the end of the file");
    check(safetensors_bytes(kTwo, data, 200'000'000), Kind::header_size, "", "limit");
    check(safetensors_bytes("{\"a\": [1,", data), Kind::header_json, "", "not valid JSON");
    check(safetensors_bytes("[1, 2]", data), Kind::header_json, "", "not a JSON object");
    check(safetensors_bytes(R"({"a":{"shape":[1],"data_offsets":[0,4]}})", data), Kind::header_json,
          "a", "dtype");
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", data),
          Kind::header_json, "a", "unsigned");
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", data),
          Kind::header_json, "a", "data_offsets");
    check(safetensors_bytes(R"({"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,4]}})", data),
          Kind::dtype, "a", "'Q4'");
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", data),
          Kind::offsets, "a", "begin after end");
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                            R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                            data),
          Kind::header_json, "a", "named twice");
    // Truncated data: the tensor that runs past the end is named, not its neighbour.
    check(safetensors_bytes(kTwo, data.substr(0, 12)), Kind::offsets, "b",
          "past the end of the data (12 bytes)");
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                            data),
          Kind::overlap, "b", "overlapping tensor 'a'");
    // An empty tensor inside no range does not hide a later overlap.
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                            R"("e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
                            R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                            data),
          Kind::overlap, "b", "overlapping tensor 'a'");
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data),
          Kind::byte_size, "a", "has 8 bytes, but shape [3] of F32 needs 12");
    check(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],)"
                            R"("data_offsets":[0,8]}})",
                            data),
          Kind::byte_size, "a", "more than 2^64");
}

TEST_CASE("safetensors: a gap between tensors is no error, expect() checks dtype and shape") {
    const std::string path = attn::test::tmp_path("gap.safetensors");
    attn::test::write_file(
        path, safetensors_bytes(R"({"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},)"
                                R"("i":{"dtype":"I8","shape":[2],"data_offsets":[10,12]}})",
                                std::string("\x80\x3f\x40\xc0", 4) + std::string(8, '\0')));
    const Checkpoint c = Checkpoint::open_file(path);
    const std::vector<std::string> names{"transformer.w", "w"};
    const std::vector<std::uint64_t> shape{2};
    const auto w = c.expect(names, shape);
    CHECK(w.at(0) == 1.0f);
    CHECK(w.at(1) == -3.0f);
    CHECK(c.stored_name(names) == "w");  // the spelling the file holds, not names[0]
    const std::vector<std::uint64_t> other{1, 2};
    try {
        c.expect(names, other);
        FAIL("wrong shape accepted");
    } catch (const CheckpointError& e) {
        CHECK(e.kind == Kind::shape);
        CHECK(
            attn::test::contains(e.what(), "tensor 'w' has shape [2], the config implies [1, 2]"));
    }
    const std::vector<std::string> ints{"i"};
    try {
        c.expect(ints, shape);
        FAIL("I8 accepted");
    } catch (const CheckpointError& e) {
        CHECK(e.kind == Kind::unsupported);
        CHECK(attn::test::contains(e.what(), "tensor 'i' has dtype I8"));
    }
    const std::vector<std::string> absent{"h.0.attn.c_attn.weight",
                                          "transformer.h.0.attn.c_attn.weight"};
    try {
        c.expect(absent, shape);
        FAIL("missing tensor accepted");
    } catch (const CheckpointError& e) {
        CHECK(e.kind == Kind::missing);
        CHECK(attn::test::contains(e.what(),
                                   "gap.safetensors: tensor 'h.0.attn.c_attn.weight' is missing"));
        CHECK(attn::test::contains(e.what(), "transformer.h.0.attn.c_attn.weight"));
    }
    CHECK(c.stored_name(absent) == "h.0.attn.c_attn.weight");
}

TEST_CASE("safetensors: a folder's shards through model.safetensors.index.json") {
    const fs::path dir = attn::test::tmp_path("sharded");
    fs::create_directories(dir);
    attn::test::write_file(
        (dir / "s1.safetensors").string(),
        safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                          floats({5})));
    attn::test::write_file(
        (dir / "s2.safetensors").string(),
        safetensors_bytes(R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                          floats({6})));
    const auto index = (dir / "model.safetensors.index.json").string();
    attn::test::write_file(
        index, R"({"metadata":{},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})");
    const Checkpoint c = Checkpoint::open_folder(dir);
    REQUIRE(c.files().size() == 2);
    CHECK(c.view(*c.find("a")).at(0) == 5.0f);
    CHECK(c.view(*c.find("b")).at(0) == 6.0f);
    CHECK(c.path_of(*c.find("b")) == dir / "s2.safetensors");

    attn::test::write_file(index, R"({"weight_map":{"a":"s1.safetensors","b":"s1.safetensors"}})");
    try {
        Checkpoint::open_folder(dir);
        FAIL("a tensor absent from its shard accepted");
    } catch (const CheckpointError& e) {
        CHECK(e.kind == Kind::missing);
        CHECK(attn::test::contains(e.what(), "s1.safetensors: tensor 'b' is not in its shard"));
    }
    attn::test::write_file(index, R"({"weight_map":{"a":"../s1.safetensors"}})");
    CHECK_THROWS_AS(Checkpoint::open_folder(dir), CheckpointError);
    attn::test::write_file(index, R"({"weight_map":{"a":"s3.safetensors"}})");
    try {
        Checkpoint::open_folder(dir);
        FAIL("a missing shard accepted");
    } catch (const CheckpointError& e) {
        CHECK(attn::test::contains(e.what(), "'s3.safetensors', which is not in the folder"));
    }
    attn::test::write_file(index, R"({"weight_map":{"a":"s1)");  // cut short
    try {
        Checkpoint::open_folder(dir);
        FAIL("a truncated index accepted");
    } catch (const CheckpointError& e) {
        CHECK(attn::test::contains(e.what(), "model.safetensors.index.json: is not valid JSON"));
    }
}

TEST_CASE("safetensors: pickled .bin weights are refused with the reason, and no weights at all") {
    const fs::path dir = attn::test::tmp_path("pickled");
    fs::create_directories(dir);
    try {
        Checkpoint::open_folder(dir);
        FAIL("an empty folder accepted");
    } catch (const CheckpointError& e) {
        CHECK(e.kind == Kind::no_weights);
        CHECK(attn::test::contains(e.what(), "no model.safetensors"));
    }
    attn::test::write_file((dir / "pytorch_model.bin").string(), "PK\x03\x04");
    try {
        Checkpoint::open_folder(dir);
        FAIL("a pickle accepted");
    } catch (const CheckpointError& e) {
        CHECK(e.kind == Kind::pickle);
        CHECK(attn::test::contains(e.what(), "pytorch_model.bin"));
        CHECK(attn::test::contains(e.what(), "runs code"));
        CHECK(attn::test::contains(e.what(), "convert it to safetensors"));
    }
}

TEST_CASE("safetensors: the header's size is checked against the memory budget") {
    const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    const std::string bytes = safetensors_bytes(header + std::string(4000, ' '), floats({1}));
    attn::runtime::set_memory_limit(1000);
    CHECK_THROWS_AS(attn::io::read_safetensors_header(std::as_bytes(std::span(bytes)), "big"),
                    attn::runtime::BudgetExceeded);
    attn::runtime::set_memory_limit(0);
    CHECK(
        attn::io::read_safetensors_header(std::as_bytes(std::span(bytes)), "big").tensors.size() ==
        1);
}
