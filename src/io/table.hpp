// The human table: a title line with the shape, aligned columns, 4 decimals (as PyTorch
// prints tensors). What does not fit the width or height is elided in the middle with
// "...", never wrapped, as NumPy and PyTorch do.
//
// Memory does not grow with the rows. With a height (a terminal, or LINES) only the rows
// shown are kept. Without one every row is printed, in blocks of up to kBlockValues values:
// the first block sets the column layout (notation, widths, which columns are elided); a
// later block may widen a column or move it to a wider notation (whole -> fixed ->
// scientific) for the rows from there on, never back.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

class TableWriter : public ArraySink {
  public:
    static constexpr std::size_t kBlockValues = std::size_t{1} << 16;

    TableWriter(OutputFile& out, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;

  private:
    enum class Notation { whole, fixed, scientific };  // in the order a column may move

    bool kept(std::size_t row) const { return row < head_ || row >= info_.rows() - tail_; }
    void print_block();
    /// v (of dtype) in column c's notation; c counts the label fields first.
    std::string cell(double v, Dtype dtype, std::size_t c) const;
    std::string render(const std::vector<std::string>& row) const;

    OutputFile& out_;
    TextStyle style_;
    ArrayInfo info_;
    std::size_t arrays_ = 0;
    std::size_t head_ = 0, tail_ = 0;   // rows shown from the start and from the end
    std::size_t block_rows_ = 0;        // rows per printed block (streaming), else all kept
    bool laid_out_ = false;             // title and header printed
    std::vector<Notation> notation_;    // per label field (those with numbers), then value column
    std::vector<std::size_t> width_;    // per label field, then per value column
    std::size_t left_ = 0, right_ = 0;  // value columns shown before and after "..."
    std::vector<std::size_t> kept_rows_;
    std::vector<double> kept_values_;  // kept_rows_.size() x columns
};

}  // namespace attn::io
