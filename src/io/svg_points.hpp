// SVG pictures of small tables whose rows are the things drawn (internal to src/io/svg*.cpp):
//   scatter:     one point per row at (column x, column y), labelled by other columns; rows
//                whose `mark` column is above a threshold are drawn red and named in the
//                legend (head_stats: mean distance against entropy, one point per head, the
//                heads that look one token back marked).
//   row curves:  each row a curve over the columns, x = the column labels read as numbers
//                (offsets: the mean weight at each offset j - i, one curve per head).
// The rows are held whole: at most kMaxSvgPoints rows for a scatter, kMaxSvgCells values for
// curves. Axes are written into <desc> as "x [lo, hi] -> [px0, px1]" so that a point's place
// can be checked from its data.
#pragma once

#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/format.hpp"

namespace attn::io {

/// values: rows x columns of info, row-major. The picture's title is `title`.
std::string svg_scatter(const ArrayInfo& info, const std::vector<double>& values,
                        const std::string& title);
std::string svg_row_curves(const ArrayInfo& info, const std::vector<double>& values,
                           const std::string& title);

}  // namespace attn::io
