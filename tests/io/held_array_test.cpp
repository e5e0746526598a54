// held_array and held_strings: their rows as drive() asks for them, in blocks, and through the
// npz writer and reader (a round trip of the values and the texts).
#include "io/held_array.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/npy.hpp"
#include "io/npy_strings.hpp"
#include "io/npz.hpp"
#include "io/output_file.hpp"
#include "io/zip.hpp"
#include "support/test_files.hpp"

TEST_CASE("held_array: a (3, 2) array's rows in blocks of one, its info as given") {
    const auto s =
        attn::io::held_array("x", {3, 2}, {0, 1, 10, 11, 20, 21}, attn::io::Dtype::int64);
    CHECK(s.info.name == "x");
    CHECK(s.info.title == "x");
    CHECK(s.info.dtype == attn::io::Dtype::int64);
    CHECK(s.info.rows() == 3);
    CHECK(s.info.columns() == 2);
    std::vector<double> row(2);
    s.produce(2, 1, row.data());
    CHECK(row == std::vector<double>{20, 21});
    std::vector<double> two(4);
    s.produce(0, 2, two.data());
    CHECK(two == std::vector<double>{0, 1, 10, 11});
}

TEST_CASE("held_array: a 1-D array is one row; values that do not fill the shape are refused") {
    const auto s = attn::io::held_array("v", {4}, {1, 2, 3, 4});
    CHECK(s.info.rows() == 1);
    std::vector<double> out(4);
    s.produce(0, 1, out.data());
    CHECK(out == std::vector<double>{1, 2, 3, 4});
    CHECK_THROWS_AS(attn::io::held_array("v", {3}, {1, 2, 3, 4}), std::logic_error);
    CHECK_THROWS_AS(attn::io::held_array("m", {2, 3}, {1, 2, 3, 4}), std::logic_error);
}

TEST_CASE("held_strings: texts as numpy '<U' through the npz writer") {
    const std::string path = attn::test::tmp_path("held.npz");
    {
        attn::io::OutputFile out(path);
        attn::io::NpzWriter npz(out);
        attn::io::drive(npz, {attn::io::held_strings("names", {"a", "bc", "\u00e9"}),
                              attn::io::held_array("n", {2}, {5, 6})});
        npz.finish();
        out.commit();
    }
    std::ifstream file(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    const std::string archive = bytes.str();  // the entries are views into it
    const auto entries = attn::io::read_stored_zip(archive, path);
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].name == "names.npy");
    CHECK(attn::io::read_npy_strings(entries[0].data, "names") ==
          std::vector<std::string>{"a", "bc", "\u00e9"});
    std::istringstream member(std::string(entries[1].data));
    CHECK(attn::io::read_npy(member, "n").values == std::vector<double>{5, 6});
}
