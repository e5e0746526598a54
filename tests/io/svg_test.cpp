#include "io/svg.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "support/write_through.hpp"

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

attn::io::ArrayInfo matrix_info(std::size_t n, std::size_t d) {
    return attn::test::matrix_info(n, d, "matrix <M>", 6);
}

// values(i, j) streamed row by row into an svg; returns the file's content.
template <class F>
std::string write_svg(std::size_t n, std::size_t d, F values, attn::io::PictureStyle style = {}) {
    std::vector<double> v(n * d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) v[i * d + j] = values(i, j);
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::SvgWriter>(out, style);
        },
        matrix_info(n, d), v, "p.svg");
}

double twice_row_plus_column(std::size_t i, std::size_t j) {
    return double(2 * i + j);
}

}  // namespace

TEST_CASE("svg: a heatmap's cells carry the colour map's colours, the title its shape") {
    attn::io::PictureStyle style;
    style.cmap = attn::io::Colormap::blues;
    const std::string svg = write_svg(2, 2, twice_row_plus_column, style);
    CHECK(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
    CHECK(svg.ends_with("</svg>\n"));
    CHECK(svg.find("<title>matrix &lt;M&gt; (2 x 2, float32)</title>") != std::string::npos);
    CHECK(svg.find("<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\" fill=\"#f7fbff\"/>") !=
          std::string::npos);
    CHECK(svg.find("<rect x=\"1\" y=\"1\" width=\"1\" height=\"1\" fill=\"#08306b\"/>") !=
          std::string::npos);
    CHECK(svg.find("<desc>colour map blues, range [0, 3]</desc>") != std::string::npos);
    CHECK(svg.find(">6</text>") != std::string::npos);  // column labels
    CHECK(svg.find(">7</text>") != std::string::npos);
}

TEST_CASE("svg: default colour map by the signs of the data") {
    CHECK(write_svg(2, 2, twice_row_plus_column).find("colour map blues") != std::string::npos);
    const std::string svg = write_svg(
        2, 2, [](std::size_t i, std::size_t j) { return twice_row_plus_column(i, j) - 1; });
    CHECK(svg.find("<desc>colour map rdbu, range [-2, 2]</desc>") != std::string::npos);
}

TEST_CASE("svg: runs of one colour along a row are one rect") {
    attn::io::PictureStyle style;
    const std::string svg = write_svg(
        2, 3, [](std::size_t i, std::size_t) { return double(i); }, style);
    CHECK(svg.find("<rect x=\"0\" y=\"0\" width=\"3\" height=\"1\" fill=\"#f7fbff\"/>") !=
          std::string::npos);
    CHECK(svg.find("<rect x=\"0\" y=\"1\" width=\"3\" height=\"1\" fill=\"#08306b\"/>") !=
          std::string::npos);
}

TEST_CASE("svg: same input, same bytes") {
    CHECK(write_svg(7, 5, twice_row_plus_column) == write_svg(7, 5, twice_row_plus_column));
}

TEST_CASE("svg: one array per file") {
    const std::string path = attn::test::tmp_path("two.svg");
    attn::io::OutputFile out(path);
    attn::io::SvgWriter w(out, {});
    w.begin(matrix_info(1, 1));
    const double v = 1;
    w.rows(0, &v, 1);
    w.end();
    CHECK_THROWS_AS(w.begin(matrix_info(1, 1)), std::invalid_argument);
}

TEST_CASE("svg: large arrays are averaged into blocks, and the title says so") {
    const auto g = attn::io::svg_grid(1'000'000, 32);
    CHECK(g.cols() == 32);
    CHECK(g.rows() * g.cols() <= attn::io::kMaxSvgCells);
    const auto square = attn::io::svg_grid(1000, 1000);
    CHECK(square.block_rows() == 3);
    CHECK(square.block_cols() == 3);
    CHECK(attn::io::svg_grid(100, 100).averaged() == false);

    // 1000 x 400 = 400000 cells: 2 x 1 blocks of equal values, one rect per grid row.
    const std::string svg =
        write_svg(1000, 400, [](std::size_t i, std::size_t) { return double(i / 2); });
    CHECK(svg.find("(1000 x 400, float32), averaged in 2 x 1 blocks</title>") != std::string::npos);
    CHECK(count(svg, "height=\"1\" fill=") == 500 + 64);  // grid rows + colour bar steps
}

TEST_CASE("svg: lines draws each column as a curve with a legend") {
    attn::io::PictureStyle style;
    style.plot = attn::io::Plot::lines;
    const std::string svg = write_svg(60, 4, twice_row_plus_column, style);
    CHECK(count(svg, "<polyline ") == 4);
    CHECK(svg.find(">Col 6</text>") != std::string::npos);
    CHECK(svg.find(">Col 9</text>") != std::string::npos);
    CHECK(svg.find("stroke-dasharray=\"6,3\"") != std::string::npos);  // d2l's 'm--'
    CHECK(svg.find(">Row (row)</text>") != std::string::npos);
    CHECK_THROWS_AS(write_svg(2, 33, twice_row_plus_column, style), std::invalid_argument);
}

TEST_CASE("svg: an array without values is refused, not drawn as an empty picture") {
    attn::io::OutputFile out(attn::test::tmp_path("empty.svg"));
    attn::io::SvgWriter w(out, {});
    CHECK_THROWS_AS(w.begin(matrix_info(5, 0)), std::invalid_argument);
}

TEST_CASE("svg: xml_escape") {
    CHECK(attn::io::xml_escape("a<b & \"c\" 'd'>") ==
          "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    CHECK(attn::io::xml_escape(std::string("x\x01y")) == "x?y");
}
