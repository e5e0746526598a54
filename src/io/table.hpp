// The human table: a title line with the shape, aligned columns, 4 decimals (as PyTorch
// prints tensors). What does not fit the width or height is elided in the middle with
// "...", never wrapped, as NumPy and PyTorch do.
#pragma once

#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

class TableWriter : public ArraySink {
  public:
    TableWriter(OutputFile& out, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;

  private:
    bool kept(std::size_t row) const { return row < head_ || row >= info_.rows() - tail_; }

    OutputFile& out_;
    TextStyle style_;
    ArrayInfo info_;
    std::size_t arrays_ = 0;
    std::size_t head_ = 0, tail_ = 0;  // rows shown from the start and from the end
    std::vector<std::size_t> kept_rows_;
    std::vector<double> kept_values_;  // kept_rows_.size() x columns
};

}  // namespace attn::io
