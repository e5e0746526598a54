// A text array (ArrayInfo::strings) driven into the npy and npz writers: numpy's '<U' bytes of
// npy_strings, between numeric arrays, read back by numpy.load without allow_pickle.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "io/matrix_stream.hpp"
#include "io/npy.hpp"
#include "io/npy_strings.hpp"
#include "io/npz.hpp"
#include "io/output_file.hpp"
#include "support/python.hpp"
#include "support/test_files.hpp"

using attn::test::read_file;
using attn::test::tmp_path;

namespace {

const std::vector<std::string> kTokens{"Life", "is", "short", ",", "\xc3\xa9t\xc3\xa9", ""};

attn::io::MatrixStream text_stream() {
    attn::io::MatrixStream s;
    s.info.name = "tokens";
    s.info.shape = {kTokens.size()};
    s.info.strings = [] { return kTokens; };
    s.produce = [](std::size_t, std::size_t, double* out) {  // the ids, which npy does not store
        for (std::size_t i = 0; i < kTokens.size(); ++i) out[i] = double(i);
    };
    return s;
}

attn::io::MatrixStream ids_stream() {
    attn::io::MatrixStream s;
    s.info.name = "ids";
    s.info.dtype = attn::io::Dtype::int64;
    s.info.shape = {3};
    s.produce = [](std::size_t, std::size_t, double* out) {
        out[0] = 7, out[1] = -2, out[2] = 9007199254740992.0;  // 2^53
    };
    return s;
}

}  // namespace

TEST_CASE("text array: npy writes npy_string_array's bytes, and a second array is refused") {
    const std::string path = tmp_path("text_array.npy");
    attn::io::OutputFile out(path);
    attn::io::NpyWriter writer(out);
    attn::io::drive(writer, text_stream());
    CHECK_THROWS(writer.begin(ids_stream().info));
    writer.finish();
    out.commit();
    CHECK(read_file(path) == attn::io::npy_string_array(kTokens));
}

TEST_CASE("text array: an npz member between numeric ones, read by numpy.load") {
    attn::test::require_numpy();
    const std::string path = tmp_path("text_array.npz");
    {
        attn::io::OutputFile out(path);
        attn::io::NpzWriter writer(out);
        attn::io::drive(writer, std::vector{ids_stream(), text_stream()});
        attn::io::MatrixStream again = ids_stream();
        again.info.name = "ids_after";
        attn::io::drive(writer, again);
        writer.finish();
        out.commit();
    }
    const std::string script = R"(import numpy as np
with np.load('text_array.npz') as z:
    assert z.files == ['ids', 'tokens', 'ids_after'], z.files
    t = z['tokens']
    assert t.dtype == np.dtype('<U5') and t.shape == (6,), (t.dtype, t.shape)
    assert list(t) == ['Life', 'is', 'short', ',', '\u00e9t\u00e9', ''], list(t)
    for name in ['ids', 'ids_after']:
        assert z[name].dtype == np.int64 and list(z[name]) == [7, -2, 2**53], z[name]
)";
    CHECK(attn::test::run_python("text_array.py", script) == 0);
}
