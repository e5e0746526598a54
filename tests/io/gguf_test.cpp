// The GGUF reader on files laid out byte by byte as gguf.h describes them. ggml's own files,
// every value type and the malformed files ggml refuses are tests/io/gguf_ggml_check.py's
// (ctest cli.gguf_ggml).
#include "io/gguf.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "io/gguf_store.hpp"

#include "support/test_files.hpp"

using attn::io::GgufError;
using attn::io::GgufFile;
using Kind = attn::io::GgufError::Kind;

namespace {

/// A GGUF file assembled field by field (little-endian).
struct Bytes {
    std::string s;
    template <class T>
    Bytes& put(T v) {
        s.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    Bytes& str(const std::string& v) {
        put<std::uint64_t>(v.size());
        s += v;
        return *this;
    }
    Bytes& pad(std::size_t alignment) {
        while (s.size() % alignment != 0) s += '\0';
        return *this;
    }
    /// A tensor info: name, n_dims, ne, ggml type, offset.
    Bytes& info(const std::string& name, std::vector<std::int64_t> ne, std::int32_t type,
                std::uint64_t offset) {
        str(name).put<std::uint32_t>(static_cast<std::uint32_t>(ne.size()));
        for (const auto n : ne) put(n);
        return put(type).put(offset);
    }
};

/// Header of n_tensors and n_kv, version 3.
Bytes header(std::int64_t n_tensors, std::int64_t n_kv, std::uint32_t version = 3) {
    Bytes b;
    b.s = "GGUF";
    return b.put(version).put(n_tensors).put(n_kv);
}

/// Three keys (a string, a u32, an array of f32), then tensors "b" F32 (3, 2) at offset 32
/// and "a" Q8_0 (32) at offset 0: infos listed in the reverse of file order.
Bytes sample() {
    Bytes b = header(2, 4);
    b.str("general.architecture").put<std::int32_t>(8).str("llama");
    b.str("llama.block_count").put<std::int32_t>(4).put<std::uint32_t>(12);
    b.str("tokenizer.scores").put<std::int32_t>(9).put<std::int32_t>(6).put<std::uint64_t>(2);
    b.put(0.5f).put(-2.0f);
    b.str("tokenizer.add_bos").put<std::int32_t>(7).put<std::int8_t>(1);
    b.info("b", {3, 2}, 0, 64).info("a", {32}, 8, 0).pad(32);
    std::string q8(34, '\0');
    q8[0] = 0x00, q8[1] = 0x38;  // d = 0.5
    for (int j = 0; j < 32; ++j) q8[2 + j] = static_cast<char>(j - 16);
    b.s += q8;
    b.pad(32);  // "a" ends at 34, "b" starts at 64: a gap, allowed
    for (int i = 0; i < 6; ++i) b.put(static_cast<float>(i) + 0.25f);
    return b;
}

GgufError error_of(const std::string& bytes) {
    const std::string path = attn::test::tmp_path("bad.gguf");
    attn::test::write_file(path, bytes);
    try {
        GgufFile g(path);
    } catch (const GgufError& e) {
        return e;
    }
    FAIL("no GgufError");
    return GgufError(Kind::magic, "", "", "");
}

}  // namespace

TEST_CASE("gguf: metadata by key with typed getters, tensors as views in C order") {
    const std::string path = attn::test::tmp_path("sample.gguf");
    attn::test::write_file(path, sample().s);
    const GgufFile g(path);
    CHECK(g.header().version == 3);
    CHECK(g.header().alignment == 32);
    const auto& m = g.metadata();
    CHECK(m.get_string("general.architecture") == "llama");
    CHECK(m.get_unsigned("llama.block_count") == 12);
    CHECK(m.get_number("llama.block_count") == 12.0);
    CHECK(*m.boolean("tokenizer.add_bos"));
    CHECK(*m.numbers("tokenizer.scores") == std::vector<double>{0.5, -2.0});
    CHECK(!m.string("general.name"));
    CHECK_THROWS_WITH_AS(m.get_string("general.name"),
                         (path + ": key 'general.name' is absent").c_str(), GgufError);
    CHECK_THROWS_WITH_AS(m.string("llama.block_count"),
                         (path + ": key 'llama.block_count' is u32, not str").c_str(), GgufError);
    CHECK_THROWS_WITH_AS(m.strings("tokenizer.scores"),
                         (path + ": key 'tokenizer.scores' is arr[f32,2], not arr[str]").c_str(),
                         GgufError);

    REQUIRE(g.tensors().size() == 2);
    const auto& b = g.tensors()[0];
    CHECK(b.name == "b");
    CHECK(b.ne == std::vector<std::uint64_t>{3, 2});
    CHECK(b.bytes == 24);
    CHECK(b.begin == g.header().data_offset + 64);
    const std::uint64_t shape[] = {2, 3};
    const auto v = g.expect("b", shape);
    CHECK(v.dtype == attn::runtime::DType::F32);
    CHECK(v.at(4) == 4.25f);
    const auto a = g.view(*g.find("a"));
    CHECK(a.shape == std::vector<std::uint64_t>{32});
    CHECK(a.at(0) == -8.0f);
    CHECK(a.at(31) == 7.5f);
    CHECK_THROWS_WITH_AS(g.expect("b", std::vector<std::uint64_t>{3, 2}),
                         (path + ": tensor 'b' has shape [2, 3] (C order; ne [3, 2]), expected "
                                 "[3, 2]")
                             .c_str(),
                         GgufError);
    CHECK(g.find("c") == nullptr);
}

TEST_CASE("gguf: a truncated file names the first tensor in file order past the end") {
    const std::string good = sample().s;
    // Cut inside "a" (offset 0), which also leaves "b" (offset 64) past the end.
    const GgufError e = error_of(good.substr(0, good.size() - 24 - 32 - 10));
    CHECK(e.kind == Kind::past_end);
    CHECK(e.name == "a");
    // Cut inside "b" only.
    CHECK(error_of(good.substr(0, good.size() - 1)).name == "b");
}

TEST_CASE("gguf: version 2 is read, versions 1, 4 and big-endian files are refused") {
    std::string v2 = sample().s;
    v2[4] = 2;
    const std::string path = attn::test::tmp_path("v2.gguf");
    attn::test::write_file(path, v2);
    CHECK(GgufFile(path).header().version == 2);
    for (const std::uint32_t version : {1u, 4u, 3u << 24}) {
        const GgufError e = error_of(header(0, 0, version).s);
        CHECK(e.kind == Kind::version);
    }
}

TEST_CASE("gguf: a type attn does not widen is refused when its view is asked for") {
    Bytes b = header(1, 0);
    b.info("w", {256, 1}, 10, 0).pad(32);  // Q2_K: 84 bytes a block
    b.s += std::string(84, '\0');
    const std::string path = attn::test::tmp_path("q2k.gguf");
    attn::test::write_file(path, b.s);
    const GgufFile g(path);
    CHECK(g.tensors()[0].bytes == 84);
    CHECK_THROWS_WITH_AS(g.view(g.tensors()[0]),
                         (path + ": tensor 'w' has type Q2_K, which attn does not widen (it reads "
                                 "F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K)")
                             .c_str(),
                         GgufError);
}

TEST_CASE("gguf: counts, lengths and offsets are checked before they are used") {
    CHECK(error_of("GGU").kind == Kind::magic);
    CHECK(error_of(header(1LL << 60, 0).s).kind == Kind::count);
    CHECK(error_of(header(0, -1).s).kind == Kind::count);
    Bytes key = header(0, 1);
    key.put<std::uint64_t>(~0ULL);  // a key's length past the end
    key.s += std::string(20, 'k');
    const GgufError k = error_of(key.s);
    CHECK(k.kind == Kind::truncated);
    CHECK(std::string(k.what()).find("key 0 at byte 32 needs 18446744073709551615 bytes") !=
          std::string::npos);
    Bytes misaligned = header(1, 0);
    misaligned.info("x", {1}, 0, 4).pad(32).put(1.0f).put(2.0f);
    CHECK(error_of(misaligned.s).kind == Kind::offset);
    Bytes overlap = header(2, 0);
    overlap.info("x", {4}, 0, 0).info("y", {4}, 0, 0).pad(32).s += std::string(16, '\0');
    const GgufError o = error_of(overlap.s);
    CHECK(o.kind == Kind::overlap);
    CHECK(o.name == "y");
    Bytes huge = header(1, 0);
    huge.info("x", {1LL << 62, 4}, 0, 0).pad(32);
    CHECK(error_of(huge.s).kind == Kind::tensor_info);
    Bytes bytes = header(1, 0);
    bytes.info("x", {1LL << 61, 1}, 0, 0).pad(32);  // 2^63 bytes of F32
    CHECK(error_of(bytes.s).kind == Kind::byte_size);
    Bytes past = header(1, 0);
    past.info("x", {1LL << 40}, 0, 0).pad(32);
    CHECK(error_of(past.s).kind == Kind::past_end);
}

TEST_CASE("gguf store: a tensor's stored name is the file's, not the name it is asked by") {
    const std::string path = attn::test::tmp_path("names.gguf");
    attn::test::write_file(path, sample().s);
    const attn::io::GgufStore store(std::make_shared<const GgufFile>(path),
                                    {{"model.b.weight", "b"}, {"model.c.weight", "c"}});
    const std::vector<std::string> b{"b.weight", "model.b.weight"}, c{"model.c.weight"};
    CHECK(store.stored_name(b) == "b");  // the first spelling mapped to a tensor the file holds
    CHECK(store.stored_name(c) == "model.c.weight");  // mapped, but the file has no "c"
    CHECK(store.tensor(b, std::vector<std::uint64_t>{2, 3}).at(4) == 4.25f);
}
