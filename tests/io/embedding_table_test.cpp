// io::read_embedding_table / name_table_rows: an .npy table (vocabulary, dim), by id or by a
// word list, and the files named in their errors.
#include "io/embedding_table.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <doctest/doctest.h>

#include "support/test_files.hpp"
#include "support/throws.hpp"

namespace {

using attn::io::Dtype;
using attn::test::invalid_argument_of;
using attn::test::tmp_path;

// np.save(name, values.reshape(shape)) of float64 values: its path.
std::string save(const std::string& name, const std::vector<std::size_t>& shape,
                 const std::vector<double>& values) {
    const std::string path = tmp_path(name);
    std::ofstream out(path, std::ios::binary);
    out << attn::io::npy_header(Dtype::float64, shape);
    for (const double v : values) {
        const auto bits = std::bit_cast<std::uint64_t>(v);
        for (int b = 0; b < 8; ++b) out.put(static_cast<char>(bits >> (8 * b)));
    }
    return path;
}

std::string write_text(const std::string& name, const std::string& text) {
    const std::string path = tmp_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

}  // namespace

TEST_CASE("read_embedding_table: rows by id, (vocabulary, dim) only") {
    const std::string t = save("t.npy", {3, 2}, {0.5, -1, 2, 3.25, -4, 5});
    const attn::io::NpyArray a = attn::io::read_embedding_table(t);
    CHECK(a.shape == std::vector<std::size_t>{3, 2});
    CHECK(a.values == std::vector<double>{0.5, -1, 2, 3.25, -4, 5});

    const std::string v = save("v.npy", {4}, {1, 2, 3, 4});
    CHECK(invalid_argument_of([&] { attn::io::read_embedding_table(v); }) ==
          v + ": shape (4,); an embedding table is (vocabulary, dim)");
    const std::string e = save("e.npy", {0, 3}, {});
    CHECK(invalid_argument_of([&] { attn::io::read_embedding_table(e); }) ==
          e + ": shape (0, 3); an embedding table is (vocabulary, dim)");
    const std::string b = save("b.npy", {1, 2, 2}, {1, 2, 3, 4});
    CHECK(invalid_argument_of([&] { attn::io::read_embedding_table(b); }) ==
          b + ": shape (1, 2, 2); an embedding table is (vocabulary, dim)");
    CHECK_THROWS_AS(attn::io::read_embedding_table(tmp_path("missing.npy")), std::system_error);
    const std::string n = save("n.npy", {2, 2}, {1, 2, std::nan(""), 4});
    CHECK(invalid_argument_of([&] { attn::io::read_embedding_table(n); }) ==
          n + ": element (1, 0) is nan; attention needs finite numbers");
}

TEST_CASE("name_table_rows: the list's word r names row r") {
    const std::string t = save("t.npy", {3, 2}, {0.5, -1, 2, 3.25, -4, 5});
    const std::string words = write_text("words.txt", "Life\nis\nshort\n");
    const attn::runtime::WordVectors wv =
        attn::io::name_table_rows(attn::io::read_embedding_table(t), t, words);
    CHECK(wv.dim == 2);
    CHECK(wv.words == std::vector<std::string>{"Life", "is", "short"});
    CHECK(wv.values == std::vector<double>{0.5, -1, 2, 3.25, -4, 5});
    CHECK(wv.find("short") == std::optional<std::size_t>(2));
    CHECK_FALSE(wv.find("life"));

    const std::string two = write_text("two.txt", "Life\nis\n");
    CHECK(invalid_argument_of([&] {
              attn::io::name_table_rows(attn::io::read_embedding_table(t), t, two);
          }) == two + " lists 2 words, but " + t + " has 3 rows");
    const std::string twice = write_text("twice.txt", "a\nb\na\n");
    CHECK(invalid_argument_of([&] {
              attn::io::name_table_rows(attn::io::read_embedding_table(t), t, twice);
          }).find(twice + ":3:") == 0);
}
