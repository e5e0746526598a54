// Writer tests: an array streamed through a writer into a scratch file, and back as text.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/output_file.hpp"
#include "support/test_files.hpp"

namespace attn::test {

/// An (n, d) matrix named "M" with the given title, rows labelled "row" 0..n-1, columns
/// first_column, first_column + 1, ...
inline io::ArrayInfo matrix_info(std::size_t n, std::size_t d, const std::string& title,
                                 std::size_t first_column = 0) {
    io::ArrayInfo info;
    info.name = std::string(1, 'M');  // not = "M": g++ 12 -Wrestrict false positive (PR 105329)
    info.title = title;
    info.labels.push_back({"row", [](std::size_t r) { return std::to_string(r); }});
    for (std::size_t j = 0; j < d; ++j)
        info.column_labels.push_back(std::to_string(first_column + j));
    info.shape = {n, d};
    return info;
}

/// Streams `values` (rows() x columns(), row-major), one row per rows() call, through the
/// writer make_writer(OutputFile&) returns; the file's content.
template <class MakeWriter>
std::string write_through(MakeWriter make_writer, const io::ArrayInfo& info,
                          const std::vector<double>& values, const std::string& file = "out.txt") {
    const std::string path = tmp_path(file);
    {
        io::OutputFile out(path);
        std::unique_ptr<io::ArraySink> w = make_writer(out);
        w->begin(info);
        const std::size_t d = info.columns();
        for (std::size_t r = 0; r < info.rows(); ++r) w->rows(r, values.data() + r * d, 1);
        w->end();
        w->finish();
        out.commit();
    }
    return read_file(path);
}

}  // namespace attn::test
