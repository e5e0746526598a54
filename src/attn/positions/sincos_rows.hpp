// Rows of sin/cos((first + k) f_j) for many positions and frequencies, each within 1 ulp of
// the exact value in double, fast: exact values at each block start and for offsets k < block
// (positions/angle.hpp), combined by angle addition in double-double and rounded once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/positions/angle.hpp"

namespace attn::positions {

class SinCosRows {
  public:
    /// freq: the m frequencies f_j, exact to about 106 bits; scale s multiplies every value
    /// (yarn's attention factor; 1 otherwise). Tables of block_rows() x m double-doubles,
    /// block_rows() <= max_block (at least 1, at most 256).
    explicit SinCosRows(std::vector<DoubleDouble> freq, DoubleDouble scale = {1.0, 0.0},
                        std::size_t max_block = 256);

    std::size_t frequencies() const { return freq_.size(); }
    std::size_t block_rows() const { return block_; }

    /// sines[k * m + j] = s * sin((first + k) f_j), cosines likewise, k < count <= block_rows(),
    /// |first + k| <= 2^53. Error before the one rounding below 2^-100 (|s| <= 2).
    void fill(std::int64_t first, std::size_t count, double* sines, double* cosines) const;
    /// The same from the doubles nearest the exact values, combined in double (about 3x
    /// faster): within ~4e-16 |s| of the exact values, enough for float32 within 1 ulp.
    void fill_fast(std::int64_t first, std::size_t count, double* sines, double* cosines) const;

  private:
    // s * sin/cos(first f_j) as hi and lo parts, (m,) each.
    void start(std::int64_t first, std::vector<double>& sh, std::vector<double>& sl,
               std::vector<double>& ch, std::vector<double>& cl) const;

    std::vector<DoubleDouble> freq_;
    DoubleDouble scale_;
    std::size_t block_;
    std::vector<double> sin_hi_, sin_lo_, cos_hi_, cos_lo_;  // sin/cos(k f_j), (block, m)
};

}  // namespace attn::positions
