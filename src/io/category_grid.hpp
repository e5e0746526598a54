// A labelled grid of categories and numbers as an svg picture: rows x columns cells, each
// filled with its category's colour and holding a short text (a number), with the row and
// column labels along the axes and a legend of the categories. Knows nothing of what the
// categories mean.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attn::io {

struct CategoryGrid {
    std::string title;
    std::string row_axis, column_axis;       // e.g. "layer", "head"
    std::vector<std::string> row_labels;     // one per row, top to bottom
    std::vector<std::string> column_labels;  // one per column, left to right
    std::vector<std::string> categories;     // legend order; "" is drawn as "none"
    /// rows x columns, row-major: an index into categories.
    std::vector<std::size_t> cell_category;
    /// rows x columns, row-major: the text written in each cell ("" for none).
    std::vector<std::string> cell_text;
};

/// The svg document. size: the picture's width x height in pixels (nullopt: about 44 pixels a
/// cell, at least 360 wide); font_scale multiplies every text's size. The cells' text is sized
/// to its cell, so a 32 x 32 grid stays legible. std::invalid_argument when the vectors'
/// sizes disagree or a category index is out of range.
std::string category_grid_svg(const CategoryGrid& grid,
                              std::optional<std::pair<int, int>> size = std::nullopt,
                              double font_scale = 1);

/// The fill colour of category k of `count` (#rrggbb): a qualitative palette (Okabe and Ito's
/// eight colours, then Tableau's), "" categories a light grey.
std::string category_colour(std::size_t k, const std::string& name);

}  // namespace attn::io
