// A streamed (rows x cols) array reduced to a grid of at most (max_rows x max_cols) cells,
// each the mean of a block of br x bc values (the last blocks may be smaller). The picture
// writers draw this grid; with br = bc = 1 it is the array itself.
#pragma once

#include <cstddef>
#include <vector>

namespace attn::io {

class BlockAverage {
  public:
    BlockAverage() = default;
    BlockAverage(std::size_t rows, std::size_t cols, std::size_t max_rows, std::size_t max_cols);

    /// n_rows complete rows of cols values starting at row first_row. With round_to_float,
    /// each value is first rounded to float32 (what the array holds).
    void add(std::size_t first_row, const double* values, std::size_t n_rows, bool round_to_float);

    std::size_t rows() const { return rows_; }      // grid rows
    std::size_t cols() const { return cols_; }      // grid columns
    std::size_t block_rows() const { return br_; }  // source rows per grid row
    std::size_t block_cols() const { return bc_; }  // source columns per grid column
    bool averaged() const { return br_ > 1 || bc_ > 1; }
    /// The mean of grid cell (i, j); NaN where a value was NaN.
    double operator()(std::size_t i, std::size_t j) const;
    /// The smallest and largest finite cell; {0, 0} when no cell is finite.
    std::pair<double, double> finite_range() const;

  private:
    std::size_t src_rows_ = 0, src_cols_ = 0;
    std::size_t rows_ = 0, cols_ = 0, br_ = 1, bc_ = 1;
    std::vector<double> sum_;
};

}  // namespace attn::io
