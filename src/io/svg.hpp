// SVG pictures of one array (a self-contained file, no script, no external font):
//   heatmap: row i, column j drawn as a cell at (j, i) coloured by the colour map, with
//            axes, tick labels (row and column labels), a colour bar with the value range,
//            and a title with the array's title and shape. With ArrayInfo::panel_rows, one
//            titled panel per block of rows (a head, a sequence) in a grid of about
//            sqrt(panels) columns (ArrayInfo::panel_columns: one row of heads per layer,
//            each panel at least kMinGridPanel wide), one colour bar for all. Masked cells are grey
//            and hatched (legend "masked"); small panels carry each cell's value (annotate).
//   lines:   each column a curve over the rows (or over ArrayInfo::x_column), with a legend
//            "Col <label>" (d2l's plot) or the column's name; at most kMaxSvgLines curves;
//            log axes and marked x values on request.
// Large arrays are averaged into blocks: a heatmap has at most kMaxSvgCells cells, a curve
// kMaxSvgPoints points; the title says so. Memory is bounded by those caps, not by the
// array. Same array, same bytes: nothing depends on time, locale or the terminal.
// An svg holds one array: a second begin() throws std::invalid_argument (use -o DIR/).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/block_average.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

constexpr std::size_t kMaxSvgCells = 200'000;
constexpr std::size_t kMaxSvgPoints = 2'000;
constexpr std::size_t kMaxSvgLines = 32;
constexpr std::size_t kMaxSvgPanels = 1024;    // more are drawn as one panel (32 x 32 heads)
constexpr double kMinGridPanel = 96;           // px, with panel_columns: 12 x 12 readable
constexpr std::size_t kMaxAnnotatedSide = 20;  // annotate auto_: panels up to 20 x 20

/// The grid an svg heatmap of a (rows x cols) array draws: at most max_cells cells.
/// The long side is averaged first: 1e6 x 32 keeps its 32 columns.
BlockAverage svg_grid(std::size_t rows, std::size_t cols, std::size_t max_cells = kMaxSvgCells);

class SvgWriter : public ArraySink {
  public:
    SvgWriter(OutputFile& out, const PictureStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;

  protected:
    /// The finished picture (one svg document) goes out: written as it is here; PngWriter
    /// renders it.
    virtual void emit(const std::string& svg);
    OutputFile& out() { return out_; }

  private:
    std::string heatmap() const;
    std::string lines() const;
    std::string title() const;

    OutputFile& out_;
    PictureStyle style_;
    ArrayInfo info_;
    bool started_ = false;
    PanelAverage grid_;
    std::vector<double> held_;  // the rows of a scatter or of row curves (svg_points.hpp)
};

/// text with & < > " ' escaped for XML.
std::string xml_escape(const std::string& text);

}  // namespace attn::io
