// io::read_lines: the lines of a text input, CRLF or LF, empty lines kept.
#include "io/text_lines.hpp"

#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

using Lines = std::vector<std::string>;

TEST_CASE("read_lines: LF and CRLF endings, empty lines, a last line without newline") {
    std::istringstream in("Life is short\r\n\neat dessert first\r\nlast");
    CHECK(attn::io::read_lines(in, "standard input") ==
          Lines{"Life is short", "", "eat dessert first", "last"});
}

TEST_CASE("read_lines: an empty input has no line; a lone newline is one empty line") {
    std::istringstream empty("");
    CHECK(attn::io::read_lines(empty, "x").empty());
    std::istringstream newline("\n");
    CHECK(attn::io::read_lines(newline, "x") == Lines{""});
    std::istringstream cr_inside("a\rb\n");  // only a \r before the newline is dropped
    CHECK(attn::io::read_lines(cr_inside, "x") == Lines{"a\rb"});
}
