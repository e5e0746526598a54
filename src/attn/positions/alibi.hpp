// ALiBi (Press et al. 2022, "Train Short, Test Long"): attention biases linear in distance.
//   slopes (H): for H a power of two, m_h = 2^(-8h/H), h = 1..H. Otherwise, with P the largest
//     power of two below H: the P slopes 2^(-8h/P), then the first H - P of 2^(-4(2k+1)/P),
//     k = 0, 1, ... (every other slope of 2P heads), in that head order, as BLOOM.
//     H = 12: 2^-1 .. 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
//   bias (H x n x n): bias[h, i, j] = -m_h |i - j|   (+0 on the diagonal).
// Every value is the exact product rounded once (slopes from quad precision, carried as
// double-doubles).
#pragma once

#include <cstddef>
#include <vector>

#include "attn/positions/angle.hpp"

namespace attn::positions {

/// Slopes m_1 .. m_H to about 106 bits; throws std::invalid_argument ("heads: ...") for H = 0.
std::vector<DoubleDouble> alibi_slopes_exact(std::size_t heads);
/// The same rounded once to double.
std::vector<double> alibi_slopes(std::size_t heads);

/// The bias as (H n) x n rows, streamed: row g is head h = g / n, query i = g % n.
class AlibiBias {
  public:
    /// heads >= 1 ("heads: ..."), n >= 1 ("n: ...") else std::invalid_argument.
    AlibiBias(std::size_t heads, std::size_t n);

    std::size_t heads() const { return slopes_.size(); }
    std::size_t n() const { return n_; }
    std::size_t rows() const { return slopes_.size() * n_; }

    /// out[k * n + j] = bias[h, i, j] for rows g = first + k, k < count, first + count <= rows().
    void fill(std::size_t first, std::size_t count, double* out) const;

  private:
    std::vector<DoubleDouble> slopes_;
    std::size_t n_;
};

}  // namespace attn::positions
