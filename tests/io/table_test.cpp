#include "io/table.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>
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

namespace {

std::vector<std::string> lines_of(const std::string& t) {
    std::vector<std::string> lines;
    for (std::size_t pos = 0; pos < t.size();) {
        const auto nl = t.find('\n', pos);
        lines.push_back(t.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return lines;
}

std::string write_values(std::size_t n, std::size_t d, const std::vector<double>& v,
                         attn::io::TextStyle style = {}) {
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::TableWriter>(out, style);
        },
        attn::test::matrix_info(n, d, "matrix M"), v);
}

}  // namespace

TEST_CASE("table: without a height every row streams in blocks, aligned, one header") {
    const std::size_t d = 2;
    const std::size_t n = 3 * attn::io::TableWriter::kBlockValues / d + 7;  // four blocks
    std::vector<double> v(n * d);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = double(k % 97) / 97.0 - 0.5;
    const auto lines = lines_of(write_values(n, d, v));
    REQUIRE(lines.size() == n + 2);
    CHECK(lines[0] == "matrix M (" + std::to_string(n) + " x 2, float32)");
    CHECK(lines[1] == "row          0        1");
    CHECK(lines[2] == "0      -0.5000  -0.4897");
    for (std::size_t r = 0; r < n; ++r) {
        const std::string& line = lines[r + 2];
        if (line.size() != lines[1].size() || line.rfind(std::to_string(r) + " ", 0) != 0) {
            FAIL_CHECK("row " << r << ": '" << line << "'");
            break;
        }
    }
    const std::size_t last = n - 1;  // k = 2 last, 2 last + 1
    CHECK(lines.back() == fmt::format("{:<5}  {:7.4f}  {:7.4f}", last,
                                      float(double(2 * last % 97) / 97.0 - 0.5),
                                      float(double((2 * last + 1) % 97) / 97.0 - 0.5)));
}

TEST_CASE("table: a later block moves a column to a wider notation, never hiding values") {
    const std::size_t d = 1;
    const std::size_t n = attn::io::TableWriter::kBlockValues + 2;
    std::vector<double> v(n, 3.0);
    v[n - 2] = 0.25;    // second block: not whole
    v[n - 1] = 1.5e-6;  // and tiny
    const auto lines = lines_of(write_values(n, d, v));
    REQUIRE(lines.size() == n + 2);
    CHECK(lines[2] == "0      3");
    CHECK(lines[n] == std::to_string(n - 2) + "  2.5000e-01");
    CHECK(lines[n + 1] == std::to_string(n - 1) + "  1.5000e-06");
}

TEST_CASE(
    "table: a value with fewer than two significant digits in fixed turns its column "
    "scientific") {
    // 5.85e-5 at 4 decimals is 0.0001: one digit, off by 70%.
    const auto t = write_values(2, 2, {5.85e-5, 0.5, 0.8392, 0.25});
    CHECK(t ==
          "matrix M (2 x 2, float32)\n"
          "row           0       1\n"
          "0    5.8500e-05  0.5000\n"
          "1    8.3920e-01  0.2500\n");
    // 0.0012 keeps two digits: fixed.
    CHECK(write_values(1, 2, {0.0012, 0.5}).find("0    0.0012  0.5000") != std::string::npos);
}

TEST_CASE("table: a non-zero value that would show as 0.0000 turns its column scientific") {
    const auto t = write_values(2, 2, {0.5, 0.5, 1.4e-5, 0.25});
    CHECK(t ==
          "matrix M (2 x 2, float32)\n"
          "row           0       1\n"
          "0    5.0000e-01  0.5000\n"
          "1    1.4000e-05  0.2500\n");
}
