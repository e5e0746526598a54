// The terminal heatmap: each array as a grid of coloured cells with row and column labels.
//   truecolor / xterm256: one row per line of full blocks "█" in the cell's colour, every
//     row labelled; when the rows do not fit the height, upper half blocks "▀" show two rows
//     per line (foreground = the upper row, background = the lower row).
//   none: one row per line, one character of the grey ramp " .:-=+*#%@" per cell (light
//     to dark), no escape codes: for NO_COLOR, TERM=dumb, pipes and files.
// Layout, per array:
//   <title> (<shape>, <dtype>)
//   <column labels, every 1, 2, 5, 10, ... columns>
//   <row label> <cells>            (the label of the first row the line shows)
//   <min> <colour scale> <max>  <colour map>
//   averaged in blocks of R rows x C columns to fit W x H      (only when it did)
// The grid fits TextStyle::width x height (height 0 = at most kMaxHeatmapRows lines) by
// averaging blocks of cells; a column is 1 to (longest column label + 1) characters wide.
// Memory is the grid's, whatever the number of rows.
// Panels (ArrayInfo::panel_rows: a head, a sequence) are drawn side by side, each under its
// title, as many as fit the width, with one colour scale. With ArrayInfo::panel_columns (the
// model view: a layer's heads), a band holds one layer's heads (or an equal share of them,
// when they do not fit the width), and the height is fitted by one band: the layers follow
// one another like pages. Masked cells are grey ('/'
// without colour), with "masked" after the scale. ArrayInfo::value_range fixes the scale.
// Several arrays are printed one after another, a blank line between them. With panels, a row
// label field that is the same in every row of each panel (the head) is left out of the row
// labels: the panel's title says it. An array without value columns (a table of labels, such
// as complexity's) has nothing to colour and is printed as the table format prints it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/block_average.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"
#include "io/table.hpp"

namespace attn::io {

constexpr std::size_t kMaxHeatmapRows = 2000;    // grid rows of all panels when height is 0
constexpr std::size_t kMaxHeatmapPanels = 1024;  // more are drawn as one panel

class HeatmapWriter : public ArraySink {
  public:
    HeatmapWriter(OutputFile& out, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;

  private:
    OutputFile& out_;
    TextStyle style_;
    ArrayInfo info_;
    std::size_t arrays_ = 0;
    std::size_t label_width_ = 0;    // characters of the row labels
    std::size_t cell_width_ = 1;     // characters per grid column
    std::size_t rows_per_line_ = 1;  // 2: upper half blocks
    std::size_t across_ = 1;         // panels side by side
    PanelAverage grid_;
    std::vector<bool> panel_field_;       // per label field: constant within each panel
    std::unique_ptr<TableWriter> table_;  // the array has no value columns
    std::string label(std::size_t row) const;
};

}  // namespace attn::io
