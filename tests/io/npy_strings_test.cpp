#include "io/npy_strings.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "io/npy.hpp"
#include "io/npz.hpp"
#include "io/output_file.hpp"
#include "support/python.hpp"
#include "support/test_files.hpp"

using attn::io::npy_string_array;

TEST_CASE("npy_strings: numpy's '<U' bytes, UTF-32LE padded with zero code points") {
    const std::string npy = npy_string_array({"is", "Life"});
    // The header as np.save(np.array(["is", "Life"])) writes it: 128 bytes, then 2 x 4 x 4.
    REQUIRE(npy.size() == 128 + 32);
    CHECK(npy.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
    CHECK(npy.find("{'descr': '<U4', 'fortran_order': False, 'shape': (2,), }") == 10);
    CHECK(npy[127] == '\n');
    CHECK(npy.substr(128, 16) == std::string("i\0\0\0s\0\0\0\0\0\0\0\0\0\0\0", 16));
    CHECK(npy.substr(144, 4) == std::string("L\0\0\0", 4));
    // Non-ASCII: one code point each; empty arrays and strings are '<U1'.
    CHECK(npy_string_array({"é€😀"}).find("'<U3'") != std::string::npos);
    CHECK(npy_string_array({"é€😀"}).substr(128, 12) ==
          std::string("\xe9\0\0\0\xac\x20\0\0\x00\xf6\x01\0", 12));
    CHECK(npy_string_array({}).find("'<U1', 'fortran_order': False, 'shape': (0,)") !=
          std::string::npos);
    for (const char* bad : {"\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80"})
        CHECK_THROWS_AS(npy_string_array({bad}), std::invalid_argument);
}

TEST_CASE("npy_strings: numpy.load reads the npy and an npz member back") {
    attn::test::require_numpy();
    const std::vector<std::string> words{"Life", "is", "short,", "", "dessert", "café"};
    attn::test::write_file(attn::test::tmp_path("tokens.npy"), npy_string_array(words));
    {
        attn::io::OutputFile out(attn::test::tmp_path("tokens.npz"));
        attn::io::NpzWriter npz(out);
        npz.add("tokens", npy_string_array(words));
        npz.finish();
        out.commit();
    }
    CHECK(attn::test::run_python("strings.py", R"(import numpy as np
a = np.load("tokens.npy")
b = np.load("tokens.npz")["tokens"]
assert a.dtype == np.dtype("<U7") and b.dtype == a.dtype, (a.dtype, b.dtype)
assert (a == b).all()
open("strings.txt", "w", encoding="utf-8").write("|".join(a.tolist()))
)") == 0);
    CHECK(attn::test::read_file(attn::test::tmp_path("strings.txt")) ==
          "Life|is|short,||dessert|café");
}

TEST_CASE("npy_strings: an array with ArrayInfo::strings is written as '<U' by npy and npz") {
    attn::io::ArrayInfo info;
    info.name = "tokens";
    info.shape = {2};
    info.dtype = attn::io::Dtype::int64;
    info.strings = [] { return std::vector<std::string>{"is", "Life"}; };
    attn::io::NpyEncoder encoder(info);
    CHECK(encoder.header() == npy_string_array({"is", "Life"}));
    std::string written;
    const double values[] = {7, 8};  // the ids the text formats print: not stored
    encoder.encode(0, values, 1, [&](const char* d, std::size_t n) { written.append(d, n); });
    CHECK(written.empty());
    CHECK_NOTHROW(encoder.check_complete());
    info.shape = {3};  // three elements, two strings
    CHECK_THROWS_AS(attn::io::NpyEncoder{info}, std::invalid_argument);
}

TEST_CASE("npy_strings: read back, and numpy's own bytes read") {
    const std::vector<std::string> text{"a", "héllo", "€𝄞", ""};
    CHECK(attn::io::read_npy_strings(npy_string_array(text), "t") == text);
    CHECK(attn::io::is_npy_strings(npy_string_array(text)));
    CHECK(attn::io::read_npy_strings(npy_string_array({}), "t").empty());
    // np.save(f, np.array(['a', 'héllo', '€𝄞', ''])) with numpy 1.24
    const std::string hex =
        "934e554d5059010076007b276465736372273a20273c5535272c2027666f727472616e5f6f7264657227"
        "3a2046616c73652c20277368617065273a2028342c292c207d2020202020202020202020202020202020"
        "202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
        "200a610000000000000000000000000000000000000068000000e90000006c0000006c0000006f000000"
        "ac2000001ed101000000000000000000000000000000000000000000000000000000000000000000";
    std::string bytes;
    for (std::size_t k = 0; k + 1 < hex.size(); k += 2)
        bytes += static_cast<char>(std::stoi(hex.substr(k, 2), nullptr, 16));
    CHECK(attn::io::read_npy_strings(bytes, "numpy") == text);
    // a float array is not text; a short one is refused naming the sizes
    CHECK_FALSE(attn::io::is_npy_strings("not npy"));
    CHECK_THROWS_WITH_AS(attn::io::read_npy_strings(bytes.substr(0, bytes.size() - 4), "cut"),
                         doctest::Contains("cut: 4 strings of 5 code points need 80 bytes"),
                         std::invalid_argument);
}
