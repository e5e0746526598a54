// The svg heatmap's teaching features with ArrayInfo set directly: panels, masks, cell
// values, fixed ranges, titles and axis names. Claims about colour are checked on the
// picture rendered by rsvg-convert (skipped where it or python3 is missing).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "io/colormap.hpp"
#include "io/svg.hpp"
#include "support/text.hpp"
#include "support/write_through.hpp"

namespace {

using attn::test::contains;
using attn::test::count;

std::string write_svg(const attn::io::ArrayInfo& info, const std::vector<double>& v,
                      const attn::io::PictureStyle& style = {}, const std::string& file = "h.svg") {
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::SvgWriter>(out, style);
        },
        info, v, file);
}

// <g id="ID" transform="translate(X Y) scale(W H)": {X, Y, W, H}.
std::vector<double> transform(const std::string& svg, const std::string& id) {
    const auto at = svg.find("<g id=\"" + id + "\" transform=\"translate(");
    REQUIRE(at != std::string::npos);
    double x = 0, y = 0, w = 0, h = 0;
    REQUIRE(std::sscanf(svg.c_str() + at,
                        "<g id=\"%*[^\"]\" transform=\"translate(%lf %lf) scale(%lf %lf)", &x, &y,
                        &w, &h) == 4);
    return {x, y, w, h};
}

bool tools_present() {
    return std::system(
               "command -v rsvg-convert >/dev/null 2>&1 && command -v python3 >/dev/null "
               "2>&1") == 0;
}

// The colours "#rrggbb" of the cells (i, j) of group `id`, a fifth of the way down each
// cell (above its written value), in the svg at path rendered by rsvg-convert.
std::vector<std::string> cell_colours(const std::string& path, const std::string& svg,
                                      const std::string& id,
                                      const std::vector<std::pair<double, double>>& cells) {
    const auto t = transform(svg, id);
    const std::string png = path + ".png";
    REQUIRE(std::system(("rsvg-convert '" + path + "' -o '" + png + "'").c_str()) == 0);
    const std::string script = std::string(ATTN_SOURCE_DIR) + "/tests/cli/png_pixel.py";
    std::string cmd = "python3 '" + script + "' '" + png + "'";
    for (const auto& [i, j] : cells)
        cmd += " " + std::to_string(int(t[0] + (j + 0.5) * t[2])) + "," +
               std::to_string(int(t[1] + (i + 0.2) * t[3]));
    std::vector<std::string> out;
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    char line[64];
    while (std::fgets(line, sizeof line, p)) out.emplace_back(line, 7);
    REQUIRE(::pclose(p) == 0);
    REQUIRE(out.size() == cells.size());
    return out;
}

bool xml_ok(const std::string& path) {
    if (std::system("command -v xmllint >/dev/null 2>&1") != 0) return true;
    return std::system(("xmllint --noout '" + path + "'").c_str()) == 0;
}

// H heads of an n x n matrix: rows labelled by position, panels titled "head h".
attn::io::ArrayInfo heads(std::size_t H, std::size_t n) {
    attn::io::ArrayInfo info = attn::test::matrix_info(H * n, n, "attention weights");
    info.labels[0].value = [n](std::size_t r) { return std::to_string(r % n); };
    info.panel_rows = n;
    for (std::size_t h = 0; h < H; ++h) info.panel_titles.push_back("head " + std::to_string(h));
    info.shape = {H, n, n};
    return info;
}

std::vector<double> ramp(std::size_t size, double step) {
    std::vector<double> v(size);
    for (std::size_t k = 0; k < size; ++k) v[k] = double(k) * step;
    return v;
}

}  // namespace

TEST_CASE("svg heatmap: one titled panel per head in a grid, one colour bar") {
    for (std::size_t H : {2, 3, 4, 6}) {
        const std::string svg = write_svg(heads(H, 6), ramp(H * 36, 1.0 / double(H * 36)));
        INFO(H);
        CHECK(count(svg, "<g id=\"cells-") == H);
        CHECK(count(svg, "<g id=\"colorbar\"") == 1);
        for (std::size_t h = 0; h < H; ++h)
            CHECK(contains(svg, ">head " + std::to_string(h) + "</text>"));
        // Columns of the grid: ceil(sqrt(H)); panel 1 beside panel 0, never below it.
        const std::size_t G = H == 2 ? 2 : H == 3 || H == 4 ? 2 : 3;
        const auto t0 = transform(svg, "cells-0"), t1 = transform(svg, "cells-1");
        CHECK(t1[0] > t0[0] + 6 * t0[2]);
        CHECK(t1[1] == t0[1]);
        if (H > G) {
            const auto below = transform(svg, "cells-" + std::to_string(G));
            CHECK(below[0] == t0[0]);
            CHECK(below[1] > t0[1] + 6 * t0[3]);
        }
    }
}

TEST_CASE("svg heatmap: cell values with two decimals up to 20 x 20 under auto") {
    attn::io::ArrayInfo info = attn::test::matrix_info(2, 2, "w");
    const std::string svg = write_svg(info, {0.6870, 0.0204, 1.0, -0.001});
    CHECK(count(svg, "<g id=\"values\"") == 1);
    CHECK(contains(svg, ">0.69</text>"));
    CHECK(contains(svg, ">0.02</text>"));
    CHECK(contains(svg, ">1.00</text>"));
    CHECK(contains(svg, ">0.00</text>"));  // -0.001, not "-0.00"
    // The text contrasts with its cell: white on rdbu's dark blue (1.0), black on its white.
    CHECK(contains(svg, "fill=\"#ffffff\">1.00</text>"));
    CHECK(contains(svg, "fill=\"#000000\">0.00</text>"));

    auto square = [](std::size_t n) { return attn::test::matrix_info(n, n, "w"); };
    CHECK(count(write_svg(square(20), ramp(400, 0.01)), "</text>\n") >= 400);
    const std::string big = write_svg(square(21), ramp(441, 0.01));
    CHECK(!contains(big, "<g id=\"values\""));
    attn::io::PictureStyle style;
    style.annotate = attn::io::Annotate::always;
    CHECK(count(write_svg(square(21), ramp(441, 0.01), style), "<text x=\"") >= 441);
    style.annotate = attn::io::Annotate::never;
    CHECK(!contains(write_svg(square(3), ramp(9, 0.1), style), "<g id=\"values\""));
    // Panels count one by one: 4 heads of 6 x 6 are annotated.
    CHECK(count(write_svg(heads(4, 6), ramp(144, 0.001)), "<g id=\"values-") == 4);
}

TEST_CASE("svg heatmap: masked cells are grey and hatched, not the colour of 0, with a legend") {
    attn::io::ArrayInfo info = attn::test::matrix_info(3, 3, "causal weights");
    info.masked = [](std::size_t r, std::size_t c) { return c > r; };
    info.value_range = std::pair{0.0, 1.0};
    // Masked cells hold 0 (a weight of 0 would be the lightest blue) and are left out.
    const std::vector<double> v = {1, 0, 0, 0.5, 0.5, 0, 0, 0.25, 0.75};
    const std::string path = attn::test::tmp_path("masked.svg");
    const std::string svg = write_svg(info, v, {}, "masked.svg");
    CHECK(xml_ok(path));
    CHECK(contains(svg, "<pattern id=\"masked\""));
    CHECK(count(svg, "fill=\"url(#masked)\"") == 2);  // the cells' group and the legend
    CHECK(contains(svg, ">masked</text>"));
    // Row 0: one rect for (0, 0) in the cells, one masked run of 2 cells.
    CHECK(contains(svg, "<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\" fill=\"#08306b\"/>"));
    CHECK(!contains(svg, "<rect x=\"1\" y=\"0\""));
    CHECK(count(svg, "<g id=\"values\"") == 1);
    CHECK(count(svg, ">0.00</text>") == 1);  // (2, 0) only; masked cells carry no value
    if (!tools_present()) return;
    const auto c = cell_colours(path, svg, "cells", {{0, 1}, {1, 2}, {2, 0}, {0, 0}});
    const std::string zero = hex(attn::io::colormap_color(attn::io::Colormap::blues, 0.0));
    CHECK(c[2] == zero);
    CHECK(c[3] == "#08306b");
    for (int k : {0, 1}) {
        INFO(c[k]);
        CHECK(c[k] != zero);
        CHECK(c[k] != "#ffffff");
        CHECK(c[k].substr(1, 2) == c[k].substr(3, 2));  // grey: r = g = b
        CHECK(c[k].substr(3, 2) == c[k].substr(5, 2));
    }
}

TEST_CASE("svg heatmap: a fixed value range: 1 is the top colour even when the data stop at 0.69") {
    attn::io::ArrayInfo info = attn::test::matrix_info(1, 3, "w");
    info.value_range = std::pair{0.0, 1.0};
    const std::string path = attn::test::tmp_path("range.svg");
    const std::string svg = write_svg(info, {0.0, 0.5, 0.69}, {}, "range.svg");
    CHECK(contains(svg, "<desc>colour map blues, range [0, 1]</desc>"));
    CHECK(contains(svg, ">1</text>"));  // the bar's labels
    CHECK(contains(svg, ">0</text>"));
    const std::string top = "#08306b";
    const std::string at69 = hex(attn::io::colormap_color(attn::io::Colormap::blues, 0.69));
    CHECK(contains(svg, "fill=\"" + at69 + "\"/>"));
    CHECK(at69 != top);
    // Without the range, 0.69 would be the top.
    info.value_range.reset();
    CHECK(contains(write_svg(info, {0.0, 0.5, 0.69}),
                   "<rect x=\"2\" y=\"0\" width=\"1\" height=\"1\" "
                   "fill=\"#08306b\"/>"));
    // Signed data keep a symmetric bar.
    attn::io::ArrayInfo p = attn::test::matrix_info(1, 2, "P");
    p.value_range = std::pair{-0.5, 2.0};
    CHECK(contains(write_svg(p, {-0.5, 0.25}), "<desc>colour map rdbu, range [-2, 2]</desc>"));
    if (!tools_present()) return;
    info.value_range = std::pair{0.0, 1.0};
    const std::string one = write_svg(info, {0.0, 1.0, 0.69}, {}, "range1.svg");
    const auto c = cell_colours(attn::test::tmp_path("range1.svg"), one, "cells", {{0, 1}, {0, 2}});
    CHECK(c[0] == top);
    CHECK(c[1] == at69);
}

TEST_CASE("svg heatmap: title, axis names and every token labelled") {
    attn::io::ArrayInfo info = attn::test::matrix_info(3, 3, "weights");
    const std::vector<std::string> tokens = {"Life", "is", "short"};
    info.labels = {{"token", [tokens](std::size_t r) { return tokens[r]; }}};
    info.column_labels = tokens;
    info.row_axis = "query";
    info.column_axis = "key";
    attn::io::PictureStyle style;
    style.title = "Weights & <tokens>";
    const std::string path = attn::test::tmp_path("titled.svg");
    const std::string svg = write_svg(info, ramp(9, 0.1), style, "titled.svg");
    CHECK(xml_ok(path));
    CHECK(contains(svg, "<title>Weights &amp; &lt;tokens&gt;</title>"));
    CHECK(contains(svg, "font-size=\"13\">Weights &amp; &lt;tokens&gt;</text>"));
    CHECK(contains(svg, ">query</text>"));
    CHECK(contains(svg, ">key</text>"));
    for (const auto& t : tokens) CHECK(count(svg, ">" + t + "</text>") == 2);  // row and column
}

TEST_CASE("svg heatmap: panels share the cell budget; masked values are left out of block means") {
    // 4 heads of 300 x 300: 360000 cells, 50000 per panel: blocks of 2 x 2.
    const std::string svg = write_svg(heads(4, 300), ramp(4 * 300 * 300, 1e-6));
    CHECK(count(svg, "<g id=\"cells-") == 4);
    CHECK(contains(svg, "(4 x 300 x 300, float32), averaged in 2 x 2 blocks</title>"));
    CHECK(!contains(svg, "<g id=\"values"));

    // A 4 x 4 array [k] in panels of 2 rows, 2 x 2 blocks (at most 1 x 2 grid each),
    // with the upper triangle (c > r) masked.
    attn::io::PanelAverage g(4, 4, 2, 1, 2, [](std::size_t r, std::size_t c) { return c > r; });
    const std::vector<double> v = ramp(16, 1.0);
    g.add(0, v.data(), 4, false);
    REQUIRE(g.panels() == 2);
    CHECK(g.panel(0).rows() == 1);
    CHECK(g.panel(0).cols() == 2);
    CHECK(g.panel(0)(0, 0) == (0.0 + 4 + 5) / 3);  // (0,1) masked
    CHECK(g.panel(0).masked(0, 1));                // rows 0-1, columns 2-3: all masked
    CHECK(!g.panel(1).masked(0, 1));
    CHECK(g.panel(1)(0, 1) == (10.0 + 14 + 15) / 3);  // (2, 3) masked
}
