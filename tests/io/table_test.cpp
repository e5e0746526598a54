#include "io/table.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "support/write_through.hpp"

namespace {

std::string write_table(std::size_t n, std::size_t d, attn::io::TextStyle style,
                        double scale = 0.5) {
    std::vector<double> v(n * d);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = scale * double(k);
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::TableWriter>(out, style);
        },
        attn::test::matrix_info(n, d, "matrix M"), v);
}

}  // namespace

TEST_CASE("table: title with shape, aligned 4-decimal columns") {
    const std::string t = write_table(2, 3, {});
    CHECK(t ==
          "matrix M (2 x 3, float32)\n"
          "row       0       1       2\n"
          "0    0.0000  0.5000  1.0000\n"
          "1    1.5000  2.0000  2.5000\n");
}

TEST_CASE("table: whole numbers print without decimals") {
    const std::string t = write_table(2, 2, {}, 1.0);
    CHECK(t == "matrix M (2 x 2, float32)\nrow  0  1\n0    0  1\n1    2  3\n");
}

TEST_CASE("table: rows beyond the height and columns beyond the width are elided") {
    attn::io::TextStyle style;
    style.width = 40;
    style.height = 9;  // title + header + "..." + 6 rows
    const std::string t = write_table(100, 50, style);
    std::vector<std::string> lines;
    std::size_t pos = 0;
    while (pos < t.size()) {
        const auto nl = t.find('\n', pos);
        lines.push_back(t.substr(pos, nl - pos));
        pos = nl + 1;
    }
    CHECK(lines.size() == 9);
    CHECK(lines[0] == "matrix M (100 x 50, float32)");
    CHECK(lines[5] == "...");
    CHECK(lines[2].rfind("0 ", 0) == 0);
    CHECK(lines[8].rfind("99 ", 0) == 0);
    for (const auto& l : lines) CHECK(l.size() <= 40);
    CHECK(lines[1].find("...") != std::string::npos);
    CHECK(lines[1].find(" 49") != std::string::npos);  // the last column is kept
}
