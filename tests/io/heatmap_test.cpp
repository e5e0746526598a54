#include "io/heatmap.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "support/write_through.hpp"

namespace {

// The 2 x 2 matrix [[0, 1], [2, 3]] (or v) as the heatmap writer prints it.
std::string write_heatmap(attn::io::TextStyle style, std::vector<double> v = {0, 1, 2, 3},
                          std::size_t n = 2, std::size_t d = 2) {
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::HeatmapWriter>(out, style);
        },
        attn::test::matrix_info(n, d, "matrix M"), v);
}

attn::io::TextStyle style(attn::io::ColorMode mode) {
    attn::io::TextStyle s;
    s.picture.color = mode;
    s.picture.cmap = attn::io::Colormap::blues;
    return s;
}

}  // namespace

TEST_CASE("heatmap: 24-bit colour, one row per line in full blocks where the rows fit") {
    auto s = style(attn::io::ColorMode::truecolor);
    s.height = 24;
    const std::string t = write_heatmap(s);
    INFO(t);
    CHECK(t.find("0 \x1b[38;2;247;251;255m\u2588\u2588\x1b[38;2;171;208;230m\u2588\u2588\x1b[0m\n"
                 "1 \x1b[38;2;55;135;192m\u2588\u2588\x1b[38;2;8;48;107m\u2588\u2588\x1b[0m\n") !=
          std::string::npos);
}

TEST_CASE("heatmap: 24-bit colour, two rows per line in upper half blocks where they do not fit") {
    // blues at 0, 1/3, 2/3, 1 (interpolated between ColorBrewer's 9 classes):
    // (247,251,255) (171,208,230) (55,135,192) (8,48,107); the scale at k/15.
    auto s = style(attn::io::ColorMode::truecolor);
    s.height = 5;  // room for one line of cells
    const std::string t = write_heatmap(s);
    INFO(t);
    CHECK(t ==
          "matrix M (2 x 2, float32)\n"
          "  0 1\n"
          "0 \x1b[38;2;247;251;255;48;2;55;135;192m\u2580\u2580"
          "\x1b[38;2;171;208;230;48;2;8;48;107m\u2580\u2580\x1b[0m\n"
          "0 "
          "\x1b[38;2;247;251;255m\u2588\x1b[38;2;234;242;251m\u2588"
          "\x1b[38;2;220;234;246m\u2588\x1b[38;2;208;225;242m\u2588"
          "\x1b[38;2;193;217;237m\u2588\x1b[38;2;171;208;230m\u2588"
          "\x1b[38;2;148;196;223m\u2588\x1b[38;2;121;181;217m\u2588"
          "\x1b[38;2;96;167;210m\u2588\x1b[38;2;74;152;201m\u2588"
          "\x1b[38;2;55;135;192m\u2588\x1b[38;2;37;117;183m\u2588"
          "\x1b[38;2;23;100;171m\u2588\x1b[38;2;10;83;158m\u2588"
          "\x1b[38;2;8;66;133m\u2588\x1b[38;2;8;48;107m\u2588"
          "\x1b[0m 3  blues\n");
}

TEST_CASE("heatmap: 256 colours") {
    // blues' ends #f7fbff and #08306b: white 231 and navy 18 (0, 0, 135).
    auto s = style(attn::io::ColorMode::xterm256);
    s.height = 5;
    const std::string t = write_heatmap(s, {0, 3, 3, 3}, 2, 2);
    INFO(t);
    CHECK(
        t.find("0 \x1b[38;5;231;48;5;18m\u2580\u2580\x1b[38;5;18;48;5;18m\u2580\u2580\x1b[0m\n") !=
        std::string::npos);
}

TEST_CASE("heatmap: 256 colours keep rdbu's hues: -1 dark red, 0 white, +1 navy") {
    auto s = style(attn::io::ColorMode::xterm256);
    s.picture.cmap = attn::io::Colormap::rdbu;
    const std::string t = write_heatmap(s, {-1, 0, 1}, 1, 3);
    INFO(t);
    CHECK(t.find("0 \x1b[38;5;52m\u2588\u2588\x1b[38;5;231m\u2588\u2588\x1b[38;5;18m\u2588\u2588"
                 "\x1b[0m\n") != std::string::npos);
}

TEST_CASE("heatmap: without colour, a grey ramp and no escape codes") {
    const std::string t = write_heatmap(style(attn::io::ColorMode::none));
    INFO(t);
    CHECK(t ==
          "matrix M (2 x 2, float32)\n"
          "  0 1\n"
          "0   --\n"
          "1 **@@\n"
          "0  .:-=+*#%@ 3  blues\n");
    CHECK(t.find('\x1b') == std::string::npos);
}

TEST_CASE("heatmap: an odd last row has the default background") {
    auto s = style(attn::io::ColorMode::truecolor);
    s.height = 6;  // two lines of cells for three rows
    const std::string t = write_heatmap(s, {0, 1, 2, 3, 4, 5}, 3, 2);
    INFO(t);
    CHECK(t.find("2 \x1b[38;2;23;100;171;49m") != std::string::npos);
}

TEST_CASE("heatmap: averaged into blocks to fit the terminal, with a note") {
    attn::io::TextStyle s = style(attn::io::ColorMode::none);
    s.width = 10;  // 2 label characters and a space leave 7 columns for 16
    s.height = 7;  // 3 lines of cells for 12 rows
    std::vector<double> v(12 * 16);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = double(k);
    const std::string t = write_heatmap(s, v, 12, 16);
    INFO(t);
    CHECK(t.find("averaged in blocks of 4 rows x 3 columns to fit 10 x 7\n") != std::string::npos);
    CHECK(t.find("\n 0       \n") != std::string::npos);
    CHECK(t.find("\n 4 ===+++\n") != std::string::npos);
    CHECK(t.find("\n 8 @@@@@@\n") != std::string::npos);
}

TEST_CASE("heatmap: several arrays, one after another; --plot lines is refused") {
    attn::io::TextStyle s = style(attn::io::ColorMode::none);
    s.picture.plot = attn::io::Plot::lines;
    CHECK_THROWS_AS(write_heatmap(s), std::invalid_argument);
}

namespace {

// Two 3 x 2 panels, "head 0" = [[0, 1], [2, 3], [4, 5]] and "head 1" = the same + 6.
attn::io::ArrayInfo two_heads() {
    attn::io::ArrayInfo info = attn::test::matrix_info(6, 2, "weights");
    info.labels[0].value = [](std::size_t r) { return std::to_string(r % 3); };
    info.panel_rows = 3;
    info.panel_titles = {"head 0", "head 1"};
    return info;
}

std::string write_info(const attn::io::TextStyle& s, const attn::io::ArrayInfo& info,
                       const std::vector<double>& v) {
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::HeatmapWriter>(out, s);
        },
        info, v);
}

std::vector<double> iota(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t k = 0; k < n; ++k) v[k] = double(k);
    return v;
}

}  // namespace

TEST_CASE("heatmap: panels side by side under their titles, one scale") {
    const std::string t = write_info(style(attn::io::ColorMode::none), two_heads(), iota(12));
    INFO(t);
    // Values 0..11 on the ramp " .:-=+*#%@" (10 characters): floor(k / 11 * 10).
    CHECK(t ==
          "weights (6 x 2, float32)\n"
          "head 0  head 1\n"
          "  0 1     0 1\n"
          "0       0 ++**\n"
          "1 ..::  1 ##%%\n"
          "2 --==  2 @@@@\n"
          "0  .:-=+*#%@ 11  blues\n");
}

TEST_CASE("heatmap: a label field constant in every panel (the head) is left to the titles") {
    attn::io::ArrayInfo info = two_heads();
    info.labels.insert(info.labels.begin(), attn::io::LabelColumn{"head", [](std::size_t r) {
                                                                      return std::to_string(r / 3);
                                                                  }});
    const std::string t = write_info(style(attn::io::ColorMode::none), info, iota(12));
    INFO(t);
    CHECK(t ==
          "weights (6 x 2, float32)\n"
          "head 0  head 1\n"
          "  0 1     0 1\n"
          "0       0 ++**\n"
          "1 ..::  1 ##%%\n"
          "2 --==  2 @@@@\n"
          "0  .:-=+*#%@ 11  blues\n");
}

TEST_CASE("heatmap: an array without value columns (labels only) is printed as a table") {
    attn::io::ArrayInfo info = attn::test::matrix_info(2, 0, "layers");
    info.labels.push_back({"complexity", [](std::size_t r) { return r == 0 ? "O(n)" : "O(n^2)"; }});
    const std::string t = write_info(style(attn::io::ColorMode::none), info, {});
    INFO(t);
    CHECK(t == "layers\nrow  complexity\n0    O(n)\n1    O(n^2)\n");
}

TEST_CASE("heatmap: panels that do not fit side by side are stacked") {
    attn::io::TextStyle s = style(attn::io::ColorMode::none);
    s.width = 10;
    const std::string t = write_info(s, two_heads(), iota(12));
    INFO(t);
    CHECK(t.find("head 0\n  0 1\n0     \n1 ..::\n2 --==\nhead 1\n  0 1\n0 ++**\n") !=
          std::string::npos);
}

TEST_CASE("heatmap: masked cells are '/' or grey, with a legend, and out of the range") {
    attn::io::ArrayInfo info = attn::test::matrix_info(2, 2, "causal");
    info.masked = [](std::size_t r, std::size_t c) { return c > r; };
    // The masked 100 would stretch the scale to 100.
    const std::string t = write_info(style(attn::io::ColorMode::none), info, {0, 100, 2, 3});
    INFO(t);
    CHECK(t ==
          "causal (2 x 2, float32)\n"
          "  0 1\n"
          "0   //\n"
          "1 **@@\n"
          "0  .:-=+*#%@ 3  blues  / masked\n");
    const std::string c = write_info(style(attn::io::ColorMode::truecolor), info, {0, 100, 2, 3});
    INFO(c);
    CHECK(c.find("0 \x1b[38;2;247;251;255m\u2588\u2588\x1b[38;2;128;128;128m\u2588\u2588") !=
          std::string::npos);
    CHECK(c.find("  \x1b[38;2;128;128;128m\u2588\x1b[0m masked\n") != std::string::npos);
}

TEST_CASE("heatmap: a fixed value range and a title") {
    attn::io::ArrayInfo info = attn::test::matrix_info(1, 2, "weights");
    info.value_range = std::pair{0.0, 1.0};
    attn::io::TextStyle s = style(attn::io::ColorMode::none);
    s.picture.title = "my weights";
    const std::string t = write_info(s, info, {0.0, 0.5});
    INFO(t);
    // 0.5 of [0, 1] is ramp character 5 '+', not the top '@' it would be for [0, 0.5].
    CHECK(t == "my weights\n  0 1\n0   ++\n0  .:-=+*#%@ 1  blues\n");
}

TEST_CASE("heatmap: without a height, at most kMaxHeatmapRows lines whatever the rows") {
    const std::size_t n = 3 * attn::io::kMaxHeatmapRows + 5;
    const std::string t = write_heatmap(style(attn::io::ColorMode::none), iota(n), n, 1);
    std::size_t lines = 0;
    for (char c : t) lines += c == '\n';
    // Title, column labels, ceil(n / 4) rows of blocks of 4, scale, note.
    CHECK(lines == 4 + (n + 3) / 4);
    CHECK(t.find("averaged in blocks of 4 rows x 1 columns to fit 80 columns and 2000 lines\n") !=
          std::string::npos);
}
