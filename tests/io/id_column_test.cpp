// io::id_column: token ids as 1-D int64 with the tokens as strings (binary formats), or as an
// (n, 1) column labelled by position and token (text formats), rows as asked.
#include "io/id_column.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace {

attn::io::IdColumn three_tokens() {
    attn::io::IdColumn c;
    c.name = "tokens";
    c.title = "tokens and their ids";
    c.ids = {7, 3, 7};
    c.tokens = {"eat", "cake", "eat"};
    c.strings = true;
    return c;
}

}  // namespace

TEST_CASE("id_column binary: shape (n), int64, every id in one row, tokens as strings") {
    const attn::io::MatrixStream s = attn::io::id_column(three_tokens(), true);
    CHECK(s.info.name == "tokens");
    CHECK(s.info.shape == std::vector<std::size_t>{3});
    CHECK(s.info.dtype == attn::io::Dtype::int64);
    CHECK(s.info.labels.empty());
    REQUIRE(s.info.strings);
    CHECK(s.info.strings() == std::vector<std::string>{"eat", "cake", "eat"});
    std::vector<double> row(3);
    s.produce(0, 1, row.data());
    CHECK(row == std::vector<double>{7, 3, 7});
}

TEST_CASE("id_column text: shape (n, 1), rows labelled position then token, a block of rows") {
    attn::io::IdColumn c = three_tokens();
    c.numeric_position = true;
    const attn::io::MatrixStream s = attn::io::id_column(c, false);
    CHECK(s.info.shape == std::vector<std::size_t>{3, 1});
    CHECK(s.info.column_labels == std::vector<std::string>{"id"});
    REQUIRE(s.info.labels.size() == 2);
    CHECK(s.info.labels[0].name == "position");
    CHECK(s.info.labels[0].numeric);
    CHECK(s.info.labels[0].value(2) == "2");
    CHECK(s.info.labels[1].value(1) == "cake");
    CHECK_FALSE(s.info.strings);
    std::vector<double> rows(2);
    s.produce(1, 2, rows.data());
    CHECK(rows == std::vector<double>{3, 7});
}

TEST_CASE("id_column text without position or tokens: the id is the row's only field") {
    attn::io::IdColumn c;
    c.name = "ids";
    c.ids = {4, 5};
    c.position = false;
    const attn::io::MatrixStream s = attn::io::id_column(c, false);
    CHECK(s.info.labels.empty());
    std::vector<double> one(1);
    s.produce(1, 1, one.data());
    CHECK(one[0] == 5);
}
