#include "io/matrix_stream.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

using attn::io::ArrayInfo;
using attn::io::ArraySink;
using attn::io::MatrixStream;

namespace {

// Records every call: the arrays begun, each block's first row and size, and the values.
struct RecordingSink : ArraySink {
    struct Array {
        ArrayInfo info;
        std::vector<std::pair<std::size_t, std::size_t>> blocks;  // (first_row, n_rows)
        std::vector<double> values;
        bool ended = false;
    };
    std::vector<Array> arrays;
    void begin(const ArrayInfo& info) override { arrays.push_back({info, {}, {}, false}); }
    void rows(std::size_t first, const double* v, std::size_t n) override {
        Array& a = arrays.back();
        a.blocks.emplace_back(first, n);
        a.values.insert(a.values.end(), v, v + n * a.info.columns());
    }
    void end() override { arrays.back().ended = true; }
};

// (rows, cols) with element (i, j) = 100 i + j; counts the rows each producer call asks for.
MatrixStream counting_stream(std::string name, std::size_t rows, std::size_t cols,
                             std::size_t* largest_request) {
    MatrixStream s;
    s.info.name = std::move(name);
    s.info.shape = {rows, cols};
    s.produce = [cols, largest_request](std::size_t first, std::size_t n, double* out) {
        *largest_request = std::max(*largest_request, n);
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t j = 0; j < cols; ++j)
                out[k * cols + j] = 100.0 * double(first + k) + double(j);
    };
    return s;
}

}  // namespace

TEST_CASE("drive: blocks arrive in order, each at most block_rows, covering every row once") {
    for (bool ahead : {false, true}) {
        CAPTURE(ahead);
        std::size_t largest = 0;
        RecordingSink sink;
        attn::io::DriveOptions options;
        options.block_rows = 4;
        options.compute_ahead = ahead;
        attn::io::drive(sink, counting_stream("A", 10, 3, &largest), options);
        REQUIRE(sink.arrays.size() == 1);
        const auto& a = sink.arrays[0];
        CHECK(a.ended);
        const std::vector<std::pair<std::size_t, std::size_t>> want{{0, 4}, {4, 4}, {8, 2}};
        CHECK(a.blocks == want);
        CHECK(largest == 4);  // the buffer never holds more than one block
        REQUIRE(a.values.size() == 30);
        for (std::size_t i = 0; i < 10; ++i)
            for (std::size_t j = 0; j < 3; ++j) CHECK(a.values[i * 3 + j] == 100.0 * i + j);
    }
}

TEST_CASE("drive: several arrays one after the other, an empty one included") {
    std::size_t largest = 0;
    RecordingSink sink;
    const std::vector<MatrixStream> streams{counting_stream("A", 2, 2, &largest),
                                            counting_stream("empty", 0, 5, &largest),
                                            counting_stream("B", 3, 1, &largest)};
    attn::io::drive(sink, streams);
    REQUIRE(sink.arrays.size() == 3);
    CHECK(sink.arrays[0].info.name == "A");
    CHECK(sink.arrays[1].info.name == "empty");
    CHECK(sink.arrays[1].blocks.empty());
    CHECK(sink.arrays[1].ended);
    CHECK(sink.arrays[2].info.name == "B");
    CHECK(sink.arrays[2].values == std::vector<double>{0, 100, 200});
}

TEST_CASE("drive: a producer's error reaches the caller and the array is not ended") {
    RecordingSink sink;
    MatrixStream s;
    s.info.shape = {8, 1};
    s.produce = [](std::size_t first, std::size_t, double* out) {
        if (first >= 4) throw std::runtime_error("no row 4");
        *out = 1;
    };
    attn::io::DriveOptions options;
    options.block_rows = 1;
    options.compute_ahead = true;
    CHECK_THROWS_WITH_AS(attn::io::drive(sink, s, options), "no row 4", std::runtime_error);
    CHECK_FALSE(sink.arrays.back().ended);
}

TEST_CASE("table_stream: text formats get every column as a label, binary ones the numbers") {
    std::vector<attn::io::TableColumn> columns{
        {"layer", false, [](std::size_t r) { return r ? std::string("rnn") : "cnn"; }, {}},
        {"count", true, [](std::size_t r) { return std::to_string(r + 7); },
         [](std::size_t r) { return double(r + 7); }}};
    const MatrixStream text = attn::io::table_stream("t", "title", 2, columns, false);
    CHECK(text.info.shape == std::vector<std::size_t>{2, 0});
    REQUIRE(text.info.labels.size() == 2);
    CHECK(text.info.labels[1].numeric);
    CHECK(text.info.labels[1].value(1) == "8");

    const MatrixStream values = attn::io::table_stream("t", "title", 2, columns, true);
    CHECK(values.info.shape == std::vector<std::size_t>{2, 1});
    CHECK(values.info.column_labels == std::vector<std::string>{"count"});
    CHECK(values.info.labels.size() == 1);
    RecordingSink sink;
    attn::io::drive(sink, values);
    CHECK(sink.arrays[0].values == std::vector<double>{7, 8});
}

TEST_CASE("concatenate: parts one after the other, a part label first, short rows padded") {
    auto part = [](std::size_t rows, std::size_t cols, double base) {
        MatrixStream s;
        s.info.name = std::string(1, 'w');  // not = "w": GCC 12's false -Wrestrict (PR 105329)
        s.info.shape = {rows, cols};
        s.info.labels.push_back({"position", [](std::size_t r) { return std::to_string(r); }});
        for (std::size_t j = 0; j < cols; ++j)
            s.info.column_labels.push_back(std::to_string(j + 5));
        s.produce = attn::io::row_by_row(
            [cols, base](std::size_t r, double* out) {
                for (std::size_t j = 0; j < cols; ++j) out[j] = base + 10.0 * r + j;
            },
            cols);
        return s;
    };
    std::vector<MatrixStream> parts;
    parts.push_back(part(2, 2, 0));
    parts.push_back(part(1, 3, 1000));
    const MatrixStream all = attn::io::concatenate(std::move(parts), "sentence", -1.0);
    CHECK(all.info.shape == std::vector<std::size_t>{3, 3});
    CHECK(all.info.column_labels == std::vector<std::string>{"0", "1", "2"});  // they differ
    REQUIRE(all.info.labels.size() == 2);
    CHECK(all.info.labels[0].name == "sentence");
    CHECK(all.info.labels[0].value(2) == "1");
    CHECK(all.info.labels[1].value(2) == "0");  // row 0 of part 1
    RecordingSink sink;
    attn::io::drive(sink, all);
    CHECK(sink.arrays[0].values == std::vector<double>{0, 1, -1, 10, 11, -1, 1000, 1001, 1002});
}

TEST_CASE("join_parts: an entry per part and array, or each array once over the parts") {
    // part k's arrays "a" (k + 1 rows, value 10 k + r) and "b" (1 row, value -k)
    auto array = [](const char* name, std::size_t rows, double base, double step) {
        MatrixStream s;
        s.info.name = name;
        s.info.title = std::string("array ") + name;
        s.info.shape = {rows, 1};
        s.info.labels.push_back({"position", [](std::size_t r) { return std::to_string(r); }});
        s.info.column_labels = {"0"};
        s.produce = attn::io::row_by_row(
            [base, step](std::size_t r, double* out) { out[0] = base + step * r; }, 1);
        return s;
    };
    auto parts = [&] {
        std::vector<std::vector<MatrixStream>> p(2);
        for (std::size_t k = 0; k < 2; ++k) {
            p[k].push_back(array("a", k + 1, 10.0 * k, 1));
            p[k].push_back(array("b", 1, -1.0 * k, 0));
        }
        return p;
    };
    SUBCASE("separate: <name>_<k>, part after part") {
        const auto out = attn::io::join_parts(parts(), "sentence", true, {0, 0});
        REQUIRE(out.size() == 4);
        CHECK(out[0].info.name == "a_0");
        CHECK(out[1].info.name == "b_0");
        CHECK(out[2].info.name == "a_1");
        CHECK(out[2].info.title == "sentence 1: array a");
        RecordingSink sink;
        attn::io::drive(sink, out[2]);
        CHECK(sink.arrays[0].values == std::vector<double>{10, 11});
    }
    SUBCASE("joined: each array once, the part index first") {
        const auto out = attn::io::join_parts(parts(), "sentence", false, {0, 0});
        REQUIRE(out.size() == 2);
        CHECK(out[0].info.name == "a");
        CHECK(out[0].info.title == "array a, every sentence");
        CHECK(out[0].info.shape == std::vector<std::size_t>{3, 1});
        CHECK(out[0].info.labels[0].name == "sentence");
        CHECK(out[0].info.labels[0].value(2) == "1");
        RecordingSink sink;
        attn::io::drive(sink, out);
        CHECK(sink.arrays[0].values == std::vector<double>{0, 10, 11});
        CHECK(sink.arrays[1].values == std::vector<double>{0, -1});
    }
}
