#include "io/npy.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "io/output_file.hpp"
#include "io/output_spec.hpp"
#include "runtime/memory_budget.hpp"
#include "support/python.hpp"
#include "support/test_files.hpp"

using namespace std::string_literals;
using attn::io::ArrayInfo;
using attn::io::Dtype;
using attn::io::NpyArray;
using attn::io::NpyWriter;
using attn::io::OutputError;
using attn::io::OutputFile;
using attn::io::read_npy;

namespace {

// Values that exercise rounding and the special cases of both float widths.
double sample_value(std::size_t k) {
    static const double specials[] = {0.0,
                                      -0.0,
                                      0.1,
                                      1.0 / 3.0,
                                      -2.5,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN(),
                                      1e-310,   // float64 subnormal, float32 zero
                                      1.4e-45,  // float32 subnormal
                                      3.4028234663852886e38,
                                      1e39,  // float32 overflow: inf
                                      16777217.0};
    constexpr std::size_t n = sizeof(specials) / sizeof(specials[0]);
    if (k < n) return specials[k];
    return std::sin(static_cast<double>(k)) * std::pow(10.0, static_cast<double>(k % 7) - 3);
}

std::size_t element_count(const std::vector<std::size_t>& shape) {
    std::size_t n = 1;
    for (const std::size_t d : shape) n *= d;
    return n;
}

// The value a reader must return for v stored as dtype: rounded once, then widened.
std::uint64_t stored_bits(double v, Dtype dtype) {
    return std::bit_cast<std::uint64_t>(attn::io::round_to_dtype(dtype, v));
}

// Writes shape/dtype through NpyWriter, `chunk` rows per rows() call, to path.
void write_npy(const std::string& path, const std::vector<std::size_t>& shape, Dtype dtype,
               std::size_t chunk) {
    ArrayInfo info;
    info.name = "A";
    info.shape = shape;
    info.dtype = dtype;
    std::vector<double> values(element_count(shape));
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = sample_value(k);
    OutputFile out(path);
    NpyWriter writer(out);
    writer.begin(info);
    const std::size_t rows = info.rows();
    for (std::size_t r = 0; r < rows; r += chunk)
        writer.rows(r, values.data() + r * info.columns(), std::min(chunk, rows - r));
    writer.end();
    writer.finish();
    out.commit();
}

void check_round_trip(const std::vector<std::size_t>& shape, Dtype dtype, std::size_t chunk) {
    const std::string path = attn::test::tmp_path("round_trip.npy");
    write_npy(path, shape, dtype, chunk);
    const NpyArray a = read_npy(path);
    CHECK(a.shape == shape);
    CHECK(a.dtype == dtype);
    REQUIRE(a.values.size() == element_count(shape));
    std::size_t mismatches = 0;
    for (std::size_t k = 0; k < a.values.size(); ++k)
        if (std::bit_cast<std::uint64_t>(a.values[k]) != stored_bits(sample_value(k), dtype))
            ++mismatches;
    CHECK(mismatches == 0);
    // The file is the header and the little-endian items, nothing else.
    const std::string bytes = attn::test::read_file(path);
    CHECK(bytes.size() ==
          attn::io::npy_header(dtype, shape).size() + a.values.size() * attn::io::item_size(dtype));
}

// A .npy file with an arbitrary (unpadded) header dict and data bytes.
std::string npy_bytes(const std::string& dict, const std::string& data = "", int major = 1) {
    std::string out = "\x93NUMPY"s;
    out.push_back(static_cast<char>(major));
    out.push_back('\0');
    const std::size_t len = dict.size();
    const int len_bytes = major == 1 ? 2 : 4;
    for (int b = 0; b < len_bytes; ++b) out.push_back(static_cast<char>((len >> (8 * b)) & 0xFF));
    return out + dict + data;
}

std::string f8_dict(const std::string& shape) {
    return "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }\n";
}

std::string le_f8(std::initializer_list<double> values) {
    std::string out;
    for (const double v : values) {
        const auto bits = std::bit_cast<std::uint64_t>(v);
        for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((bits >> (8 * b)) & 0xFF));
    }
    return out;
}

// A stream buffer that cannot seek, like a pipe on standard input.
class PipeBuf : public std::streambuf {
  public:
    explicit PipeBuf(std::string bytes) : bytes_(std::move(bytes)) {
        setg(bytes_.data(), bytes_.data(), bytes_.data() + bytes_.size());
    }

  private:
    std::string bytes_;
};

NpyArray read_bytes(const std::string& bytes, bool seekable) {
    if (seekable) {
        std::istringstream in(bytes);
        return read_npy(in, "x.npy");
    }
    PipeBuf buf(bytes);
    std::istream in(&buf);
    return read_npy(in, "x.npy");
}

// read_npy must refuse bytes with std::invalid_argument mentioning `field`, on both a
// seekable and a non-seekable stream.
void check_refused(const std::string& bytes, const std::string& field) {
    for (const bool seekable : {true, false}) {
        CAPTURE(seekable);
        std::string message;
        try {
            read_bytes(bytes, seekable);
        } catch (const std::invalid_argument& e) {
            message = e.what();
        }
        CAPTURE(message);
        CHECK(message.rfind("x.npy: ", 0) == 0);
        CHECK(message.find(field) != std::string::npos);
        CHECK(message.find('\n') == std::string::npos);
    }
}

}  // namespace

TEST_CASE("npy_header: byte for byte what numpy 1.24 np.save writes") {
    // Generated once with numpy.lib.format._write_array_header (numpy 1.24.2).
    CHECK(attn::io::npy_header(Dtype::float32, {60, 32}) ==
          "\x93NUMPY\x01\x00v\x00"
          "{'descr': '<f4', 'fortran_order': False, 'shape': (60, 32), }"
          "                                                        \n"s);
    CHECK(attn::io::npy_header(Dtype::float32, {5}) ==
          "\x93NUMPY\x01\x00v\x00"
          "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"
          "                                                            \n"s);
    CHECK(attn::io::npy_header(Dtype::float64, {}) ==
          "\x93NUMPY\x01\x00v\x00"
          "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"
          "                                                              \n"s);
    CHECK(attn::io::npy_header(Dtype::float64, {2, 3, 4}) ==
          "\x93NUMPY\x01\x00v\x00"
          "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }"
          "                                                       \n"s);
    CHECK(attn::io::npy_header(Dtype::float32, {0, 3}) ==
          "\x93NUMPY\x01\x00v\x00"
          "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }"
          "                                                          \n"s);
    CHECK(attn::io::npy_header(Dtype::float64, {123456789012, 3}) ==
          "\x93NUMPY\x01\x00v\x00"
          "{'descr': '<f8', 'fortran_order': False, 'shape': (123456789012, 3), }"
          "                                               \n"s);
    // Header length 0xb6 = 182: a reader must take the length bytes as unsigned.
    CHECK(attn::io::npy_header(Dtype::float32, std::vector<std::size_t>(20, 1)) ==
          "\x93NUMPY\x01\x00\xb6\x00"
          "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
          "1, 1, 1, 1, 1, 1, 1, 1, 1), }"
          "                                                                    \n"s);
}

TEST_CASE("npy_header: version 2.0 only when the header does not fit 65535 bytes") {
    const std::vector<std::size_t> small(21000, 1);  // "1, " * 21000: just under the limit
    const std::string h1 = attn::io::npy_header(Dtype::float64, small);
    CHECK(h1[6] == '\x01');
    CHECK(h1.size() % 64 == 0);
    CHECK(h1.size() - 10 <= 65535);

    const std::vector<std::size_t> big(30000, 1);
    const std::string h2 = attn::io::npy_header(Dtype::float64, big);
    CHECK(h2[6] == '\x02');
    CHECK(h2[7] == '\x00');
    CHECK(h2.size() % 64 == 0);
    CHECK(h2.back() == '\n');
    const std::uint32_t len = static_cast<unsigned char>(h2[8]) |
                              static_cast<unsigned char>(h2[9]) << 8 |
                              static_cast<unsigned char>(h2[10]) << 16 |
                              static_cast<unsigned>(static_cast<unsigned char>(h2[11])) << 24;
    CHECK(len == h2.size() - 12);
    const NpyArray a = read_bytes(h2 + le_f8({2.5}), true);
    CHECK(a.shape == big);
    CHECK(a.values == std::vector<double>{2.5});
}

TEST_CASE("NpyWriter: write then read is bit-exact for float16, float32 and float64") {
    const std::vector<std::vector<std::size_t>> shapes = {
        {}, {1}, {17}, {3, 5}, {60, 32}, {2, 3, 4}, {0, 4}, {4, 0}, {2, 0, 3}, {0}};
    for (const Dtype dtype : {Dtype::float16, Dtype::float32, Dtype::float64}) {
        for (const auto& shape : shapes) {
            for (const std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{1000}}) {
                CAPTURE(attn::io::dtype_name(dtype));
                CAPTURE(shape.size());
                CAPTURE(chunk);
                check_round_trip(shape, dtype, chunk);
            }
        }
    }
}

TEST_CASE("NpyWriter: bfloat16 is '<f4' holding each value rounded once to bfloat16") {
    ArrayInfo info;
    info.name = "P";
    info.shape = {4};
    info.dtype = Dtype::bfloat16;
    // 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7: to even, 1; just above it goes up.
    const std::vector<double> values{0.1, 1.0 + 0x1p-8, 1.0 + 0x1p-8 + 0x1p-40, -1e39};
    const std::string path = attn::test::tmp_path("bf16.npy");
    {
        OutputFile out(path);
        NpyWriter writer(out);
        writer.begin(info);
        writer.rows(0, values.data(), 1);
        writer.end();
        writer.finish();
        out.commit();
    }
    const NpyArray a = read_npy(path);
    CHECK(a.dtype == Dtype::float32);
    REQUIRE(a.values.size() == 4);
    CHECK(a.values[0] == 0.10009765625);
    CHECK(a.values[1] == 1.0);
    CHECK(a.values[2] == 1.0 + 0x1p-7);
    CHECK(a.values[3] == -std::numeric_limits<double>::infinity());
}

TEST_CASE("read_npy: float16 ('<f2') values are widened exactly, subnormals and inf included") {
    const std::uint16_t bits[] = {0x3c00, 0x0001, 0x8000, 0x7bff, 0xfc00, 0x3555, 0x03ff};
    std::string data;
    for (const std::uint16_t b : bits) {
        data.push_back(static_cast<char>(b & 0xFF));
        data.push_back(static_cast<char>(b >> 8));
    }
    const NpyArray a = read_bytes(
        npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (7,), }", data), false);
    CHECK(a.dtype == Dtype::float16);
    REQUIRE(a.values.size() == 7);
    CHECK(a.values[0] == 1.0);
    CHECK(a.values[1] == 0x1p-24);
    CHECK((a.values[2] == 0.0 && std::signbit(a.values[2])));
    CHECK(a.values[3] == 65504.0);
    CHECK(a.values[4] == -std::numeric_limits<double>::infinity());
    CHECK(a.values[5] == 0x1.554p-2);  // 0.333251953125
    CHECK(a.values[6] == 1023 * 0x1p-24);
}

TEST_CASE("NpyWriter: int64 arrays are '<i8', the nearest integers of the values") {
    ArrayInfo info;
    info.name = "buckets";
    info.shape = {2, 3};
    info.dtype = Dtype::int64;
    const std::vector<double> values{0, 17, -3, 9007199254740991.0, 2.6, -1e30};
    const std::string path = attn::test::tmp_path("ids.npy");
    {
        OutputFile out(path);
        NpyWriter writer(out);
        writer.begin(info);
        writer.rows(0, values.data(), 2);
        writer.end();
        writer.finish();
        out.commit();
    }
    const std::string bytes = attn::test::read_file(path);
    const std::string header = attn::io::npy_header(Dtype::int64, {2, 3});
    CHECK(header.find("'descr': '<i8'") != std::string::npos);
    REQUIRE(bytes.size() == header.size() + 6 * 8);
    const std::int64_t want[] = {
        0, 17, -3, 9007199254740991, 3, std::numeric_limits<std::int64_t>::min()};
    for (std::size_t k = 0; k < 6; ++k) {
        std::uint64_t bits = 0;
        for (std::size_t b = 0; b < 8; ++b)
            bits |= std::uint64_t{static_cast<unsigned char>(bytes[header.size() + 8 * k + b])}
                    << (8 * b);
        CHECK(static_cast<std::int64_t>(bits) == want[k]);
    }
}

TEST_CASE("NpyWriter: data larger than one conversion piece streams intact") {
    check_round_trip({3000, 37}, Dtype::float32, 1000);
    check_round_trip({50000, 3}, Dtype::float64, 4096);
}

TEST_CASE("NpyWriter: refuses a second array and checks the row count") {
    const std::string path = attn::test::tmp_path("protocol.npy");
    ArrayInfo info;
    info.name = "P";
    info.shape = {3, 2};
    const std::vector<double> row = {1.0, 2.0};

    SUBCASE("a second array") {
        OutputFile out(path);
        NpyWriter writer(out);
        writer.begin(info);
        for (std::size_t r = 0; r < 3; ++r) writer.rows(r, row.data(), 1);
        writer.end();
        // A typed error: cli/errors words it for the options (-f npz, -o DIR/).
        CHECK_THROWS_WITH_AS(writer.begin(info), "npy holds one array", OutputError);
    }
    SUBCASE("too few rows") {
        OutputFile out(path);
        NpyWriter writer(out);
        writer.begin(info);
        writer.rows(0, row.data(), 1);
        CHECK_THROWS_AS(writer.end(), std::logic_error);
    }
    SUBCASE("too many rows or out of order") {
        OutputFile out(path);
        NpyWriter writer(out);
        writer.begin(info);
        CHECK_THROWS_AS(writer.rows(1, row.data(), 1), std::logic_error);
        const std::vector<double> four_rows(8, 0.0);
        CHECK_THROWS_AS(writer.rows(0, four_rows.data(), 4), std::logic_error);
    }
    SUBCASE("finish without an array") {
        OutputFile out(path);
        NpyWriter writer(out);
        CHECK_THROWS_AS(writer.finish(), std::logic_error);
    }
    SUBCASE("a shape whose byte size overflows") {
        OutputFile out(path);
        NpyWriter writer(out);
        info.shape = {std::size_t{1} << 62, 8};
        CHECK_THROWS_AS(writer.begin(info), std::invalid_argument);
    }
}

TEST_CASE("read_npy: accepts what numpy may write") {
    SUBCASE("keys in any order, double quotes, no trailing comma, versions 2.0 and 3.0") {
        const std::string dict = "{\"shape\": (2,), 'fortran_order': False, 'descr': '<f8'}";
        for (const int major : {1, 2, 3}) {
            const NpyArray a = read_bytes(npy_bytes(dict, le_f8({1.5, -2.0}), major), true);
            CHECK(a.shape == std::vector<std::size_t>{2});
            CHECK(a.values == std::vector<double>{1.5, -2.0});
        }
    }
    SUBCASE("'=' native byte order and Python 2 long dims") {
        const std::string dict = "{'descr': '=f8', 'fortran_order': False, 'shape': (1L, 2L), }";
        const NpyArray a = read_bytes(npy_bytes(dict, le_f8({1.0, 2.0})), false);
        CHECK(a.shape == std::vector<std::size_t>{1, 2});
    }
    SUBCASE("float32 widened exactly") {
        const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
        const std::string data = "\x00\x00\xc0\x3f\xcd\xcc\xcc\x3d"s;  // 1.5f, 0.1f
        const NpyArray a = read_bytes(npy_bytes(dict, data), true);
        CHECK(a.dtype == Dtype::float32);
        CHECK(a.values == std::vector<double>{1.5, static_cast<double>(0.1f)});
    }
    SUBCASE("fortran_order True is reordered to C order") {
        // The (2, 3) array [[0, 1, 2], [3, 4, 5]] stored column by column.
        const std::string dict = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }";
        const NpyArray a = read_bytes(npy_bytes(dict, le_f8({0, 3, 1, 4, 2, 5})), true);
        CHECK(a.values == std::vector<double>{0, 1, 2, 3, 4, 5});
        const std::string dict3 = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 1, 2), }";
        // C index (i, 0, k) holds 10 i + k; Fortran order varies i fastest.
        const NpyArray b = read_bytes(npy_bytes(dict3, le_f8({0, 10, 1, 11})), false);
        CHECK(b.values == std::vector<double>{0, 1, 10, 11});
    }
    SUBCASE("0 elements, and a 0-d array") {
        CHECK(read_bytes(npy_bytes(f8_dict("(0, 5)")), true).values.empty());
        CHECK(read_bytes(npy_bytes(f8_dict("()"), le_f8({7.0})), false).values ==
              std::vector<double>{7.0});
    }
}

TEST_CASE("read_npy: each malformed input names its field") {
    const std::string good = npy_bytes(f8_dict("(2, 3)"), le_f8({1, 2, 3, 4, 5, 6}));

    check_refused("", "magic");
    check_refused("\x93NUMPZ\x01\x00"s, "magic");
    check_refused("PK\x03\x04 a zip file, not an npy"s, "magic");
    check_refused("\x93NUMPY\x01"s, "version");
    check_refused("\x93NUMPY\x04\x00\x10\x00"s, "version");
    check_refused("\x93NUMPY\x01\x01\x10\x00"s, "version");
    check_refused("\x93NUMPY\x01\x00\x76"s, "header length");
    check_refused("\x93NUMPY\x02\x00\xff\xff\xff\xff"s, "header length");
    check_refused(good.substr(0, 40), "header");              // truncated header
    check_refused(good.substr(0, good.size() - 1), "data");   // truncated data
    check_refused(good.substr(0, good.size() - 48), "data");  // no data at all
    check_refused(good + "x", "data");                        // trailing data
    check_refused(npy_bytes(f8_dict("(4611686018427387904, 4611686018427387904)")), "shape");
    // 8 EiB, not here: a file is refused by its size, a pipe by the memory budget, both
    // before anything is allocated.
    const std::string lying = npy_bytes(f8_dict("(1099511627776, 1048576)"));
    CHECK_THROWS_WITH_AS(
        read_bytes(lying, true),
        doctest::Contains("x.npy: data: truncated: shape (1099511627776, 1048576)"),
        std::invalid_argument);
    CHECK_THROWS_WITH_AS(read_bytes(lying, false),
                         doctest::Contains("needs 8.0 EiB of memory, above the limit of"),
                         attn::runtime::BudgetExceeded);
    check_refused(npy_bytes(f8_dict("(2, -3)")), "shape");
    check_refused(npy_bytes(f8_dict("(99999999999999999999999,)")), "shape");
    check_refused(npy_bytes(f8_dict("(2.5,)")), "shape");
    check_refused(npy_bytes(f8_dict("(6)")), "shape");
    check_refused(npy_bytes(f8_dict("'6'")), "shape");
    check_refused(
        npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", le_f8({1})),
        "dtype '<i8' is not supported; attn reads float16 (<f2), float32 (<f4) or float64 (<f8)");
    check_refused(
        npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", le_f8({1})),
        "dtype '>f8' is big-endian");
    check_refused(npy_bytes("{'descr': '|f8', 'fortran_order': False, 'shape': (1,), }"),
                  "dtype '|f8'");
    check_refused(npy_bytes("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }"),
                  "dtype '>f2' is big-endian");
    check_refused(npy_bytes("{'descr': 8, 'fortran_order': False, 'shape': (1,), }"), "descr");
    check_refused(npy_bytes("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,)}"),
                  "descr");
    check_refused(npy_bytes("{'descr': '<f8', 'fortran_order': 1, 'shape': (1,), }"),
                  "fortran_order");
    check_refused(npy_bytes("{'descr': '<f8', 'fortran_order': False, }"), "missing key 'shape'");
    check_refused(npy_bytes("{'descr': '<f8', 'shape': (1,), }"), "missing key 'fortran_order'");
    check_refused(npy_bytes("{'fortran_order': False, 'shape': (1,), }"), "missing key 'descr'");
    check_refused(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}"),
                  "unexpected key 'x'");
    check_refused(npy_bytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False}"),
                  "duplicate key 'descr'");
    check_refused(npy_bytes("garbage"), "header");
    check_refused(npy_bytes(""), "header");
    check_refused(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)"), "header");
    check_refused(npy_bytes("{'descr' '<f8'}"), "header");
    check_refused(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} junk"),
                  "header");
    check_refused(npy_bytes("{'descr': '<f\\x38'}"), "header");
}

TEST_CASE("read_npy: \"-\" reads standard input, which may be a pipe") {
    PipeBuf pipe(npy_bytes(f8_dict("(2,)"), le_f8({4.0, 5.0})));
    std::streambuf* saved = std::cin.rdbuf(&pipe);
    NpyArray a;
    std::string message;
    try {
        a = read_npy("-");
        std::cin.rdbuf(saved);
    } catch (const std::exception& e) {
        std::cin.rdbuf(saved);
        message = e.what();
    }
    CHECK(message.empty());
    CHECK(a.values == std::vector<double>{4.0, 5.0});

    PipeBuf short_pipe(npy_bytes(f8_dict("(3,)"), le_f8({4.0, 5.0})));
    saved = std::cin.rdbuf(&short_pipe);
    try {
        read_npy("-");
    } catch (const std::invalid_argument& e) {
        message = e.what();
    }
    std::cin.rdbuf(saved);
    CHECK(message.rfind("standard input: data: truncated", 0) == 0);
}

TEST_CASE("read_npy: a file that does not exist is a system error naming it") {
    CHECK_THROWS_AS(read_npy(attn::test::tmp_path("no-such-file.npy")), std::system_error);
}

TEST_CASE("is_npy_file: the magic, not the name") {
    using attn::test::tmp_path;
    attn::test::write_file(tmp_path("magic.txt"), std::string_view("\x93NUMPY\x01\x00", 8));
    attn::test::write_file(tmp_path("text.npy"), "Life 1 0\n");
    attn::test::write_file(tmp_path("short.npy"), "\x93NUM");
    CHECK(attn::io::is_npy_file(tmp_path("magic.txt")));
    CHECK(!attn::io::is_npy_file(tmp_path("text.npy")));
    CHECK(!attn::io::is_npy_file(tmp_path("short.npy")));
    CHECK(!attn::io::is_npy_file(tmp_path("no-such-file.npy")));
}

TEST_CASE("npy interop: numpy reads attn's files and attn reads numpy's") {
    attn::test::require_numpy();
    using attn::test::tmp_path;
    using attn::test::write_file;
    struct Case {
        const char* file;
        Dtype dtype;
        std::vector<std::size_t> shape;
    };
    const std::vector<Case> cases = {{"w_f4_2d.npy", Dtype::float32, {3, 5}},
                                     {"w_f8_3d.npy", Dtype::float64, {2, 3, 4}},
                                     {"w_f4_1d.npy", Dtype::float32, {17}},
                                     {"w_f8_0d.npy", Dtype::float64, {}},
                                     {"w_f4_empty.npy", Dtype::float32, {0, 4}}};
    std::string checks;
    for (const Case& c : cases) {
        write_npy(tmp_path(c.file), c.shape, c.dtype, 2);
        std::string expected;  // the doubles before rounding, raw little-endian float64
        for (std::size_t k = 0; k < element_count(c.shape); ++k)
            expected += le_f8({sample_value(k)});
        write_file(tmp_path(std::string(c.file) + ".f8"), expected);
        std::string shape = "(";
        for (const std::size_t d : c.shape) shape += std::to_string(d) + ",";
        checks += "check('" + std::string(c.file) + "', '" +
                  std::string(attn::io::numpy_descr(c.dtype)) + "', " + shape + "))\n";
    }
    const std::string script = R"(
import sys, numpy as np
np.seterr(all='ignore')
def check(f, descr, shape):
    a = np.load(f)
    want = np.fromfile(f + '.f8', dtype='<f8').astype(descr).reshape(shape)
    ok = a.dtype == np.dtype(descr) and a.shape == shape and a.flags.c_contiguous \
        and a.tobytes() == want.tobytes()
    print(f, 'ok' if ok else 'MISMATCH', a.dtype, a.shape)
    if not ok: sys.exit(1)
)" + checks;
    CHECK(attn::test::run_python("npy_interop_read.py", script) == 0);

    // numpy writes, attn reads: each file beside its values as C-order float64.
    const std::string numpy_writes = R"(
import numpy as np
from numpy.lib import format as F
def save(name, a, version=None):
    with open(name, 'wb') as f:
        if version: F.write_array(f, a, version=version)
        else: np.save(f, a)
    np.ascontiguousarray(a, dtype='<f8').tofile(name + '.f8')
base = np.arange(24, dtype='<f8').reshape(2, 3, 4) / 7
save('n_f8_3d.npy', base)
save('n_f4_2d.npy', (np.arange(15, dtype='<f4') / 3).reshape(3, 5))
save('n_fortran.npy', np.asfortranarray(base))
save('n_1x20.npy', np.full((1,) * 20, 0.25, dtype='<f4'))
save('n_v2.npy', base, version=(2, 0))
save('n_v3.npy', base, version=(3, 0))
save('n_0d.npy', np.array(3.5))
save('n_empty.npy', np.zeros((0, 7), dtype='<f4'))
save('n_special.npy', np.array([np.nan, -0.0, np.inf, -np.inf, 5e-324]))
for i, shape in enumerate([(60, 32), (5,), (), (7,) * 36, (10**20, 3), (1,) * 30]):
    with open('n_header_%d.bin' % i, 'wb') as f:
        F._write_array_header(f, {'descr': '<f4', 'fortran_order': False, 'shape': shape})
)";
    REQUIRE(attn::test::run_python("npy_interop_write.py", numpy_writes) == 0);
    struct Read {
        const char* file;
        Dtype dtype;
        std::vector<std::size_t> shape;
    };
    const std::vector<Read> reads = {
        {"n_f8_3d.npy", Dtype::float64, {2, 3, 4}},
        {"n_f4_2d.npy", Dtype::float32, {3, 5}},
        {"n_fortran.npy", Dtype::float64, {2, 3, 4}},
        {"n_1x20.npy", Dtype::float32, std::vector<std::size_t>(20, 1)},
        {"n_v2.npy", Dtype::float64, {2, 3, 4}},
        {"n_v3.npy", Dtype::float64, {2, 3, 4}},
        {"n_0d.npy", Dtype::float64, {}},
        {"n_empty.npy", Dtype::float32, {0, 7}},
        {"n_special.npy", Dtype::float64, {5}}};
    for (const Read& r : reads) {
        CAPTURE(r.file);
        const NpyArray a = read_npy(tmp_path(r.file));
        CHECK(a.shape == r.shape);
        CHECK(a.dtype == r.dtype);
        const std::string want = attn::test::read_file(tmp_path(std::string(r.file) + ".f8"));
        REQUIRE(want.size() == a.values.size() * 8);
        if (!want.empty())  // little-endian host: the .f8 bytes are the doubles
            CHECK(std::memcmp(want.data(), a.values.data(), want.size()) == 0);
    }
    const std::vector<std::vector<std::size_t>> header_shapes = {
        {60, 32}, {5}, {}, std::vector<std::size_t>(36, 7), {}, std::vector<std::size_t>(30, 1)};
    for (std::size_t i = 0; i < header_shapes.size(); ++i) {
        if (i == 4) continue;  // 10**20 does not fit size_t
        CAPTURE(i);
        CHECK(attn::io::npy_header(Dtype::float32, header_shapes[i]) ==
              attn::test::read_file(tmp_path("n_header_" + std::to_string(i) + ".bin")));
    }
}
