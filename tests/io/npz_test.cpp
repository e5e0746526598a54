#include "io/npz.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/output_file.hpp"
#include "support/python.hpp"
#include "support/test_files.hpp"

using attn::io::ArrayInfo;
using attn::io::Dtype;
using attn::io::NpzWriter;
using attn::io::OutputFile;
using attn::io::read_npz;

namespace {

struct Array {
    std::string name;
    Dtype dtype;
    std::vector<std::size_t> shape;
    std::vector<double> values;  // before rounding to dtype
};

Array make_array(std::string name, Dtype dtype, std::vector<std::size_t> shape) {
    std::size_t n = 1;
    for (const std::size_t d : shape) n *= d;
    std::vector<double> values(n);
    for (std::size_t k = 0; k < n; ++k)
        values[k] = std::cos(static_cast<double>(k) + 0.5) * std::pow(10.0, double(k % 5) - 2);
    if (n > 2) values[1] = -0.0;
    if (n > 3) values[2] = 1.0 / 3.0;
    return {std::move(name), dtype, std::move(shape), std::move(values)};
}

const std::vector<Array>& sample_arrays() {
    static const std::vector<Array> arrays = {
        make_array("P", Dtype::float32, {60, 32}),
        make_array("weights", Dtype::float64, {2, 3, 4}),
        make_array("tokens", Dtype::float32, {6}),
        make_array("scale", Dtype::float64, {}),
        make_array("empty", Dtype::float32, {0, 5}),
        make_array("\xc3\xa9t\xc3\xa9", Dtype::float64, {2, 2}),  // a UTF-8 member name
    };
    return arrays;
}

void write_npz(const std::string& path, const std::vector<Array>& arrays) {
    OutputFile out(path);
    NpzWriter writer(out);
    for (const Array& a : arrays) {
        ArrayInfo info;
        info.name = a.name;
        info.shape = a.shape;
        info.dtype = a.dtype;
        writer.begin(info);
        for (std::size_t r = 0; r < info.rows(); ++r)
            writer.rows(r, a.values.data() + r * info.columns(), 1);
        writer.end();
    }
    writer.finish();
    out.commit();
}

std::uint64_t stored_bits(double v, Dtype dtype) {
    return std::bit_cast<std::uint64_t>(
        dtype == Dtype::float32 ? static_cast<double>(static_cast<float>(v)) : v);
}

void check_arrays(const std::map<std::string, attn::io::NpyArray>& got,
                  const std::vector<Array>& want) {
    REQUIRE(got.size() == want.size());
    for (const Array& a : want) {
        CAPTURE(a.name);
        REQUIRE(got.count(a.name) == 1);
        const auto& g = got.at(a.name);
        CHECK(g.shape == a.shape);
        CHECK(g.dtype == a.dtype);
        REQUIRE(g.values.size() == a.values.size());
        std::size_t mismatches = 0;
        for (std::size_t k = 0; k < a.values.size(); ++k)
            if (std::bit_cast<std::uint64_t>(g.values[k]) != stored_bits(a.values[k], a.dtype))
                ++mismatches;
        CHECK(mismatches == 0);
    }
}

}  // namespace

TEST_CASE("NpzWriter: write then read_npz is bit-exact, CRCs verified") {
    const std::string path = attn::test::tmp_path("round_trip.npz");
    write_npz(path, sample_arrays());
    check_arrays(read_npz(path), sample_arrays());
}

TEST_CASE("NpzWriter: an archive with no arrays is an empty zip") {
    const std::string path = attn::test::tmp_path("empty.npz");
    write_npz(path, {});
    CHECK(attn::test::read_file(path) == std::string("PK\x05\x06", 4) + std::string(18, '\0'));
    CHECK(read_npz(path).empty());
}

TEST_CASE("NpzWriter: refuses duplicate and empty names and checks the protocol") {
    OutputFile out(attn::test::tmp_path("protocol.npz"));
    NpzWriter writer(out);
    ArrayInfo info;
    info.name = "P";
    info.shape = {1, 2};
    const std::vector<double> row = {1.0, 2.0};
    writer.begin(info);
    CHECK_THROWS_AS(writer.begin(info), std::logic_error);  // previous array not ended
    CHECK_THROWS_AS(writer.end(), std::logic_error);        // its row has not arrived
    writer.rows(0, row.data(), 1);
    writer.end();
    CHECK_THROWS_WITH_AS(writer.begin(info),
                         "npz: two arrays are named 'P'; member names must differ",
                         std::invalid_argument);
    ArrayInfo unnamed = info;
    unnamed.name.clear();
    CHECK_THROWS_AS(writer.begin(unnamed), std::invalid_argument);
    ArrayInfo huge;
    huge.name = std::string(1, 'Q');
    huge.shape = {std::size_t{1} << 62, 16};
    CHECK_THROWS_AS(writer.begin(huge), std::invalid_argument);  // byte size overflows
    writer.finish();
    CHECK_THROWS_AS(writer.finish(), std::logic_error);
    huge.shape = {2};
    CHECK_THROWS_AS(writer.begin(huge), std::logic_error);
}

TEST_CASE("read_npz: a bad member names the archive and the member") {
    const std::string path = attn::test::tmp_path("bad_member.npz");
    write_npz(path, {make_array("x", Dtype::float64, {3})});
    std::string bytes = attn::test::read_file(path);
    const auto at = bytes.find("'descr'");
    REQUIRE(at != std::string::npos);
    bytes[at + 10] = '>';  // '<f8' -> '>f8'; the CRC no longer matches either
    attn::test::write_file(path, bytes);
    CHECK_THROWS_WITH_AS(read_npz(path), doctest::Contains("x.npy: CRC-32 mismatch"),
                         std::invalid_argument);
}

TEST_CASE("npz interop: numpy reads attn's npz, attn's bytes equal numpy.savez into a pipe") {
    attn::test::require_numpy();
    using attn::test::tmp_path;
    const std::vector<Array>& arrays = sample_arrays();
    write_npz(tmp_path("attn.npz"), arrays);

    // Each array's values before rounding, as raw float64, for numpy to build its own.
    std::string specs;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const Array& a = arrays[i];
        std::string raw(a.values.size() * 8, '\0');
        if (!raw.empty()) std::memcpy(raw.data(), a.values.data(), raw.size());  // LE host
        attn::test::write_file(tmp_path("npz_values_" + std::to_string(i) + ".f8"), raw);
        std::string shape = "(";
        for (const std::size_t d : a.shape) shape += std::to_string(d) + ",";
        std::string name_bytes;
        for (const unsigned char c : a.name) name_bytes += "\\x" + fmt::format("{:02x}", c);
        specs += "    (b'" + name_bytes + "'.decode('utf-8'), '" +
                 std::string(attn::io::numpy_descr(a.dtype)) + "', " + shape + "), " +
                 std::to_string(i) + "),\n";
    }
    const std::string script = R"(
import subprocess, sys, zipfile, numpy as np
np.seterr(all='ignore')
specs = [
)" + specs + R"(]
arrays = {}
for name, descr, shape, i in specs:
    arrays[name] = np.fromfile('npz_values_%d.f8' % i, dtype='<f8').astype(descr).reshape(shape)

z = zipfile.ZipFile('attn.npz')
bad = z.testzip()
assert bad is None, 'CRC error in %s' % bad
with np.load('attn.npz') as f:
    assert list(f.keys()) == [name for name, _, _, _ in specs], list(f.keys())
    for name, a in arrays.items():
        b = f[name]
        ok = b.dtype == a.dtype and b.shape == a.shape and b.tobytes() == a.tobytes()
        print(repr(name), 'ok' if ok else 'MISMATCH', b.dtype, b.shape)
        assert ok

# numpy.savez into a pipe (not seekable: zipfile streams with data descriptors).
code = ('import sys, numpy as np; arrays = np.load("numpy_src.npz"); '
        'np.savez(sys.stdout.buffer, **{k: arrays[k] for k in arrays.files})')
np.savez('numpy_src.npz', **arrays)
piped = subprocess.run([sys.executable, '-c', code], stdout=subprocess.PIPE, check=True).stdout
open('numpy_piped.npz', 'wb').write(piped)
same = piped == open('attn.npz', 'rb').read()
print('byte-identical to numpy.savez into a pipe:', same)
assert same
np.savez_compressed('numpy_compressed.npz', **arrays)
)";
    REQUIRE(attn::test::run_python("npz_interop.py", script) == 0);

    // attn reads numpy's seekable and piped npz files, and refuses savez_compressed by name.
    check_arrays(read_npz(tmp_path("numpy_src.npz")), arrays);
    check_arrays(read_npz(tmp_path("numpy_piped.npz")), arrays);
    CHECK_THROWS_WITH_AS(read_npz(tmp_path("numpy_compressed.npz")),
                         doctest::Contains("savez_compressed"), std::invalid_argument);
}
