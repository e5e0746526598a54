// Sinusoidal positional encoding (d2l "Self-Attention and Positional Encoding";
// Vaswani et al. 2017, sec. 3.5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/positions/layout.hpp"
#include "attn/positions/sincos_rows.hpp"

namespace attn::positions {

// Column order of P (layout.hpp). For d = 8 (s = sine of pair j, c = cosine of pair j):
//   Layout::interleaved -> [s0 c0 s1 c1 s2 c2 s3 c3]   (the book, Vaswani et al.)
//   Layout::split       -> [s0 s1 s2 s3 c0 c1 c2 c3]   (all sines, then all cosines)
// With odd d the last column is the sine of pair (d-1)/2, which has no cosine:
//   interleaved d = 5 -> [s0 c0 s1 c1 s2],  split d = 5 -> [s0 s1 s2 c0 c1].

/// The arithmetic of the last step (see PositionalEncoder).
enum class Combine { fast, extended };

/// Frequency of column pair j: w_j = base^(-2j/d), j in [0, ceil(d/2)). The one formula of
/// the pair frequencies: P, the rotation checks and the wavelengths of bits all call it.
double pair_frequency(std::size_t j, std::size_t d, double base);
/// The same w_j in long double (64-bit mantissa); pair_frequency is it rounded to double.
long double pair_frequency_l(std::size_t j, std::size_t d, double base);

/// Rows of P, generated block by block so memory does not depend on n.
///   P[i, 2j]   = sin(i * w_j)
///   P[i, 2j+1] = cos(i * w_j),   i = start + row.
/// Accuracy: w_j is carried as a double-double (about 106 bits), and sin/cos(i w_j) =
/// sin/cos((i0 + k) w_j) are combined by the angle-addition formulas from sin/cos(i0 w_j) and
/// sin/cos(k w_j), both evaluated exactly (positions/angle.hpp: error below 2^-100) for each
/// block start i0 and each offset k < block_rows().
///   Combine::fast      combines the doubles nearest those values in double: within ~4e-16 of
///                      the closed form, so a float32 result is within 1 ulp of it.
///   Combine::extended  combines the double-doubles (exact products, one rounding at the end):
///                      within 2^-100 + |i w_j| 2^-104 of the closed form before that rounding
///                      (w_j's own 106 bits bound the second term), so float64 values are
///                      within 1 ulp: correctly rounded on every grid tested up to |i| = 2^31;
///                      a value below 2^-19 in magnitude at |i| near 2^31 could miss by 2 ulps.
class PositionalEncoder {
  public:
    /// d >= 1, base > 1 and finite; throws std::invalid_argument otherwise. block_rows() is
    /// at most 256 and at most max_block (a short P needs short tables).
    PositionalEncoder(std::size_t d, double base = 10000.0, Layout layout = Layout::interleaved,
                      std::size_t max_block = 256, Combine combine = Combine::fast);

    std::size_t dim() const { return d_; }
    /// Rows per block: tables are block_rows() x ceil(d/2).
    std::size_t block_rows() const { return rows_.block_rows(); }

    /// Writes rows for positions first .. first+count-1 (count <= block_rows()) into out,
    /// count x d, row-major.
    void fill(std::int64_t first, std::size_t count, double* out) const;

  private:
    std::size_t d_, pairs_;
    Layout layout_;
    Combine combine_;
    SinCosRows rows_;  // sin/cos((i0 + k) w_j), w_j = base^(-2j/d) to 106 bits
};

/// The whole P, shape (n, d), positions start .. start+n-1.
xt::xtensor<double, 2> positional_encoding(std::size_t n, std::size_t d, double base = 10000.0,
                                           std::int64_t start = 0,
                                           Layout layout = Layout::interleaved,
                                           Combine combine = Combine::fast);

/// Column index of sine/cosine of pair j in a layout (the cosine of the last pair of an odd d
/// does not exist).
std::size_t sine_column(std::size_t j, std::size_t d, Layout layout);
std::size_t cosine_column(std::size_t j, std::size_t d, Layout layout);

}  // namespace attn::positions
