// A table (io::table_stream: text, exact counts and real numbers) through each text writer:
// json as pandas' orient="split", the real columns formatted by the writer (--precision).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/format.hpp"
#include "io/matrix_stream.hpp"
#include "support/test_files.hpp"

namespace {

using attn::io::Format;
using attn::io::TableColumn;

// layer (text), count (exact), share (a real number the writer formats)
attn::io::MatrixStream report() {
    const std::vector<double> share{1.0 / 3, NAN};
    std::vector<TableColumn> columns{
        {"layer", false, [](std::size_t r) { return r ? std::string("rnn") : "cnn"; }, {}},
        {"count", true, [](std::size_t r) { return std::to_string(r + 9007199254740993u); },
         [](std::size_t r) { return double(r + 9007199254740993u); }},
        {"share", true, {}, [share](std::size_t r) { return share[r]; }}};
    return attn::io::table_stream("t", "a report", 2, std::move(columns), false);
}

std::string write(Format f, attn::io::TextStyle style) {
    const std::string path = attn::test::tmp_path("table_formats.txt");
    {
        attn::io::OutputFile out(path);
        const auto w = attn::io::make_writer(f, out, style);
        attn::io::drive(*w, report());
        w->finish();
        out.commit();
    }
    return attn::test::read_file(path);
}

}  // namespace

TEST_CASE("tables in json: pandas' orient=split, a row's fields in order, exact counts") {
    CHECK(write(Format::json, {}) ==
          "{\n"
          "\"t\": {\"title\": \"a report\", \"dtype\": \"float64\", \"shape\": [2, 3],\n"
          " \"columns\": [\"layer\", \"count\", \"share\"],\n"
          " \"data\": [[\"cnn\", 9007199254740993, 0.3333333333333333],\n"
          "  [\"rnn\", 9007199254740994, null]]}\n"
          "}\n");
    attn::io::TextStyle three;
    three.precision = 3;
    CHECK(write(Format::json, three).find("[\"cnn\", 9007199254740993, 0.333]") !=
          std::string::npos);
}

TEST_CASE("tables in table, md and csv: the real column takes --precision") {
    CHECK(write(Format::table, {}) ==
          "a report\n"
          "layer             count   share\n"
          "cnn    9007199254740993  0.3333\n"
          "rnn    9007199254740994     nan\n");
    attn::io::TextStyle two;
    two.precision = 2;
    CHECK(write(Format::table, two).find("cnn    9007199254740993   0.33\n") != std::string::npos);
    CHECK(write(Format::md, two) ==
          "**a report**\n\n"
          "| layer | count | share |\n"
          "| --- | ---: | ---: |\n"
          "| cnn | 9007199254740993 | 0.33 |\n"
          "| rnn | 9007199254740994 | nan |\n");
    CHECK(write(Format::csv, {}) ==
          "layer,count,share\ncnn,9007199254740993,0.3333333333333333\nrnn,9007199254740994,nan\n");
    CHECK(write(Format::csv, two).find("cnn,9007199254740993,0.33\n") != std::string::npos);
}
