// The category grid picture: one coloured cell per (row, column) with its text, labels thinned
// to stay apart, a legend entry per category.
#include "io/category_grid.hpp"

#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

attn::io::CategoryGrid grid(std::size_t rows, std::size_t cols) {
    attn::io::CategoryGrid g;
    g.title = "heads";
    g.row_axis = "layer";
    g.column_axis = "head";
    for (std::size_t r = 0; r < rows; ++r) g.row_labels.push_back(std::to_string(r));
    for (std::size_t c = 0; c < cols; ++c) g.column_labels.push_back(std::to_string(c));
    g.categories = {"previous", "induction", ""};
    for (std::size_t k = 0; k < rows * cols; ++k) {
        g.cell_category.push_back(k % 3);
        g.cell_text.push_back(fmt::format("0.{}", k % 10));
    }
    return g;
}

}  // namespace

TEST_CASE("category grid: cells coloured by category with their text and a legend") {
    const std::string svg = attn::io::category_grid_svg(grid(2, 3));
    CHECK(svg.rfind("<?xml", 0) == 0);
    CHECK(svg.find("</svg>") != std::string::npos);
    // 6 cells + 3 legend boxes + the background
    CHECK(count(svg, "<rect") == 10);
    CHECK(count(svg, "fill=\"#E69F00\"") == 2 + 1);  // previous: cells 0 and 3, and the legend
    CHECK(count(svg, "fill=\"#eeeeee\"") == 2 + 1);  // "" is "none"
    CHECK(svg.find(">none</text>") != std::string::npos);
    CHECK(svg.find("<title>layer 1, head 2: none 0.5</title>") != std::string::npos);
    CHECK(svg.find(">0.4</text>") != std::string::npos);
}

TEST_CASE("category grid: 32 x 32 keeps every cell's text at a legible size") {
    const std::string svg = attn::io::category_grid_svg(grid(32, 32));
    CHECK(count(svg, "font-size=\"11\" fill=") == 32 * 32);  // 44-pixel cells: the full font
    const std::string fitted = attn::io::category_grid_svg(grid(32, 32), std::pair{1200, 1200});
    // 1200 px: cells of about 34 px, text about 10.7 px; every other label or more
    CHECK(count(fitted, "fill=\"#000000\">0.") + count(fitted, "fill=\"#ffffff\">0.") == 1024);
    CHECK_THROWS_AS(attn::io::category_grid_svg([] {
                        auto g = grid(2, 2);
                        g.cell_text.pop_back();
                        return g;
                    }()),
                    std::invalid_argument);
}
