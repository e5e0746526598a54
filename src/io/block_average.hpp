// A streamed (rows x cols) array reduced to a grid of at most (max_rows x max_cols) cells,
// each the mean of a block of br x bc values (the last blocks may be smaller). The picture
// writers draw this grid; with br = bc = 1 it is the array itself.
// Masked values (a cell not computed) are left out of the means; a cell all of whose values
// are masked is masked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace attn::io {

/// mask(row, col): the value at (row, col) of the whole array is masked.
using CellMask = std::function<bool(std::size_t row, std::size_t col)>;

class BlockAverage {
  public:
    BlockAverage() = default;
    BlockAverage(std::size_t rows, std::size_t cols, std::size_t max_rows, std::size_t max_cols);

    /// n_rows complete rows of cols values starting at row first_row. With round_to_float,
    /// each value is first rounded to float32 (what the array holds). mask, when not empty,
    /// is asked about (mask_row0 + row, col).
    void add(std::size_t first_row, const double* values, std::size_t n_rows, bool round_to_float,
             const CellMask& mask = {}, std::size_t mask_row0 = 0);

    std::size_t rows() const { return rows_; }      // grid rows
    std::size_t cols() const { return cols_; }      // grid columns
    std::size_t block_rows() const { return br_; }  // source rows per grid row
    std::size_t block_cols() const { return bc_; }  // source columns per grid column
    bool averaged() const { return br_ > 1 || bc_ > 1; }
    /// The mean of grid cell (i, j)'s unmasked values; NaN where a value was NaN.
    double operator()(std::size_t i, std::size_t j) const;
    /// Every value of grid cell (i, j) is masked.
    bool masked(std::size_t i, std::size_t j) const;
    bool any_masked() const { return !masked_.empty(); }
    /// The smallest and largest finite unmasked cell; {0, 0} when no cell is.
    std::pair<double, double> finite_range() const;

  private:
    std::size_t count(std::size_t i, std::size_t j) const;

    std::size_t src_rows_ = 0, src_cols_ = 0;
    std::size_t rows_ = 0, cols_ = 0, br_ = 1, bc_ = 1;
    std::vector<double> sum_;
    std::vector<std::uint32_t> masked_;  // masked values per cell; empty = none yet
};

/// A (rows x cols) array split into panels of panel_rows rows each (0 = one panel of all
/// rows; the last panel may be shorter), each panel its own BlockAverage of at most
/// max_rows x max_cols cells. Memory: panels x max_rows x max_cols, whatever rows is.
class PanelAverage {
  public:
    PanelAverage() = default;
    PanelAverage(std::size_t rows, std::size_t cols, std::size_t panel_rows, std::size_t max_rows,
                 std::size_t max_cols, CellMask mask = {});

    void add(std::size_t first_row, const double* values, std::size_t n_rows, bool round_to_float);

    std::size_t panels() const { return panels_.size(); }
    std::size_t panel_rows() const { return panel_rows_; }
    const BlockAverage& panel(std::size_t p) const { return panels_[p]; }
    bool averaged() const { return !panels_.empty() && panels_[0].averaged(); }
    bool any_masked() const;
    /// Over every panel.
    std::pair<double, double> finite_range() const;

  private:
    std::size_t panel_rows_ = 0, cols_ = 0;
    std::vector<BlockAverage> panels_;
    CellMask mask_;
};

}  // namespace attn::io
