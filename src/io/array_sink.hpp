// The one interface every output format implements: an array described up front, then its
// rows streamed in order. Writers know matrices and labels, nothing of attention.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/dtype.hpp"

namespace attn::io {

/// One label field of every row, e.g. {"position", i -> "17"} or {"token", i -> "Life"}.
/// Text formats print the label fields first on each row; npy/npz do not store them.
/// numeric: the text is a number written exactly (e.g. a 64-bit count, which a double would
/// round above 2^53), or inf/nan: tables right-align it, json writes it unquoted (null for
/// inf and nan).
/// number: a real number that the writer formats as it formats values (--precision, table's
/// notation, json's null for inf and nan), rounded once to `dtype`; `value` then gives its
/// shortest text, for the writers that print labels as they are (pictures).
struct LabelColumn {
    std::string name;
    std::function<std::string(std::size_t row)> value;
    bool numeric = false;
    std::function<double(std::size_t row)> number = {};
    Dtype dtype = Dtype::float64;
};

/// What a writer needs to know before the first row arrives.
///   shape: the array's full shape; rows = product of all but the last, columns = the last.
///          (a 3-d (b, n, d) array streams b*n rows of d values, labelled per row.)
struct ArrayInfo {
    std::string name;                        // npz member / json key / file stem, e.g. "P"
    std::string title;                       // human caption, e.g. "positional encoding P"
    std::vector<LabelColumn> labels;         // row label fields, outermost first
    std::vector<std::string> column_labels;  // one per column, e.g. "0", "1", ...
    std::string column_axis;                 // what the columns are, for pictures: "Key"
    std::vector<std::size_t> shape;
    Dtype dtype = Dtype::float32;
    /// A table of records (a report, as a pandas DataFrame): each row is its label fields then
    /// its values. json writes it as pandas' orient="split", {"columns": [every label field's
    /// name, then the column labels], "data": [[a row's fields], ...]}; the other formats as
    /// any array.
    bool table = false;
    /// A 1-D array of text (shape (n), e.g. tokens): npy and npz store the n strings this
    /// returns (called once, when the array begins) as numpy's '<U' (npy_strings.hpp) in place
    /// of the values, which they then ignore; text formats write the rows and labels as for
    /// any array. Empty: an array of numbers.
    std::function<std::vector<std::string>()> strings;

    // For the pictures (svg, heatmap); every default draws what was drawn before they existed.
    /// Rows per panel: 0 = one panel; else the rows are split into panels of that many rows
    /// (one per head, one per sequence), drawn in a grid with one shared colour bar.
    std::size_t panel_rows = 0;
    /// Panels per row of the grid: 0 = about sqrt(panels). The model view (layers x heads)
    /// sets the heads, so that each layer is one row of panels.
    std::size_t panel_columns = 0;
    /// One title per panel ("head 0", ...); missing ones are "panel k".
    std::vector<std::string> panel_titles;
    /// The colour bar's range: {0, 1} for attention weights, whatever the data's range.
    /// nullopt = the data's finite range (symmetric for diverging maps).
    std::optional<std::pair<double, double>> value_range;
    /// What the rows are, e.g. "query"; empty = "Row (<label names>)".
    std::string row_axis;
    /// Cells not computed (a causal or valid-length mask): drawn grey and hatched, with a
    /// legend entry "masked", left out of the data's range. row is the array's row index
    /// (across panels), col its column. Empty = nothing masked.
    std::function<bool(std::size_t row, std::size_t col)> masked;
    /// --plot lines: this column is the x axis (a position or size), not a curve.
    std::optional<std::size_t> x_column;
    /// --plot lines: logarithmic axes (non-positive values are left out of the curves).
    bool log_x = false, log_y = false;
    /// --plot lines: columns that hold indices (where a worst value was found), not values:
    /// not drawn as curves.
    std::vector<std::size_t> index_columns;
    /// --plot lines: the vertical label beside the y axis; empty = "value".
    std::string value_axis;
    /// --plot lines: vertical lines at these x values, each with its label,
    /// e.g. {"n = d = 512", 512}.
    std::vector<std::pair<std::string, double>> x_markers;
    /// Pictures of a difference of two computations of the same values (whose magnitudes are
    /// at most `scale`): |v| <= below is rounding noise, drawn (and annotated) as 0, and when
    /// nothing is above it the default colour range is [-scale, scale] rather than the noise's
    /// own. See rounding_noise(). nullopt: every value is drawn as it is.
    struct Noise {
        double below = 0;
        double scale = 0;
    };
    std::optional<Noise> noise;
    /// svg: one point per row (svg_points.hpp) at the columns named x and y, labelled by the
    /// columns named in `label`; rows whose column `mark` is above `above` are marked.
    struct Scatter {
        std::string x, y, x_axis, y_axis;
        std::vector<std::string> label;
        std::string mark, mark_legend;
        double above = 0.5;
    };
    std::optional<Scatter> scatter;
    /// svg: each row a curve over the columns, their labels read as numbers (offsets).
    bool row_curves = false;

    std::size_t columns() const { return shape.empty() ? 1 : shape.back(); }
    std::size_t rows() const {
        std::size_t r = 1;
        for (std::size_t k = 0; k + 1 < shape.size(); ++k) r *= shape[k];
        return r;
    }
};

/// The rounding noise of a difference of two computations of values at most `scale` in
/// magnitude, each built by sums of at most `terms` products in dtype: 2 * terms * u * scale,
/// u the unit roundoff (2^-24 float32, 2^-53 float64), twice the first-order bound
/// terms * u * scale on each computation's error.
inline ArrayInfo::Noise rounding_noise(double scale, Dtype dtype, std::size_t terms) {
    const double u = dtype == Dtype::float32 ? 0x1p-24 : 0x1p-53;
    return {2 * double(terms) * u * scale, scale};
}

/// A streaming writer. Calls: (begin rows* end)+ finish. Values arrive as double, row-major,
/// and are rounded once to info.dtype by the writer. Formats that hold a single array
/// (csv, tsv, npy) refuse a second begin() with std::invalid_argument.
class ArraySink {
  public:
    virtual ~ArraySink() = default;
    virtual void begin(const ArrayInfo& info) = 0;
    /// n_rows complete rows starting at row index first_row; values has n_rows * columns().
    virtual void rows(std::size_t first_row, const double* values, std::size_t n_rows) = 0;
    virtual void end() = 0;
    /// After the last array: write trailers (npz central directory, json closing brace).
    virtual void finish() {}
};

}  // namespace attn::io
