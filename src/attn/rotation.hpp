// Relative positional information (d2l "Self-Attention and Positional Encoding"): for a
// fixed offset delta, each column pair of the sinusoidal encoding is rotated by a 2x2
// matrix that does not depend on the position i,
//
//   [ cos(delta w_j)   sin(delta w_j) ] [ p[i, 2j]   ]   [ p[i+delta, 2j]   ]
//   [ -sin(delta w_j)  cos(delta w_j) ] [ p[i, 2j+1] ] = [ p[i+delta, 2j+1] ],
//
// w_j = base^(-2j/d). This file measures how well that holds for P as it is computed, and
// the consequence that P[i]·P[i+delta] = sum_j cos(delta w_j) depends on delta alone.
//
// Precision: "the precision in which P is built and the rotation applied".
//   Precision::float64  the accurate P (PositionalEncoder, Combine::extended: correctly
//                       rounded sin/cos(i w_j)); cos/sin(delta w_j) in long double rounded
//                       to double; the rotation in double. Residuals are a few 1e-16 near 0
//                       and grow only with the long-double angle's rounding, ~5e-20 |i|
//                       (5e-13 at i = 1e7, ~5e-12 at 1e8).
//   Precision::float32  P built the way float32 users build it (d2l's PyTorch code):
//                         D_j   = powf(float(base), float(2j) / float(d))     in float32
//                         a     = float(i) / D_j                              in float32
//                         P     = sinf(a), cosf(a)
//                       cos/sin(delta w_j) by the same recipe with i = delta, and the
//                       rotation c*p0 + s*p1 in float32. The angle a carries up to half an
//                       ulp of i w_j, so the residual grows with the position (about
//                       5e-8 (|i| + |delta|) typically; past ~1e7 the angles are noise).
//
//   Precision::bfloat16, Precision::float16  P as framework code holding positions and
//                       frequencies in that dtype D builds it (positions/dtype_rounding.hpp):
//                         a = fl_D(fl_D(i) fl_D(w_j)),  P = fl_D(sin a), fl_D(cos a)
//                       cos/sin(delta w_j) by the same recipe with i = delta, and the rotation
//                       fl_D(fl_D(c p0) + fl_D(s p1)) in D. Integers are exact in D only up to
//                       256 (bfloat16) and 2048 (float16), so the residual reaches O(1) soon
//                       after; float16 positions above 65504 are inf (residual NaN).
//
// Tolerance (default): with u = 2^-24 (float32) or 2^-53 (float64), the unit roundoff,
//   tol(i, delta) = u * (16 + 4 (|i| + |delta|)),  u = 2^-8 (bfloat16), 2^-11 (float16) too.
//   The three angles a_i, a_(i+delta), a_delta each carry at most u |angle| <= u (|i|+|delta|)
//   (2u for |i| >= 2^24, where float(i) itself rounds): 4 per unit of position covers them
//   with margin, 16 covers sinf/cosf and the rotation's own roundings near position 0.
//   float32: 9.5e-7 + 2.4e-7 (|i| + |delta|);  float64: 1.8e-15 + 4.4e-16 (|i| + |delta|).
//
// Odd d: the last column is sin(i w_m), m = (d-1)/2, without its cosine. sin((i+delta) w_m)
// = cos(delta w_m) sin(i w_m) + sin(delta w_m) cos(i w_m) needs cos(i w_m), which P does not
// hold: no linear map of P[i] gives that column. It is left out of every check and of the dot
// product, and its row of M_delta is NaN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/positions/angle.hpp"
#include "attn/positions/sinusoidal.hpp"

namespace attn {

enum class Precision { float32, float64, bfloat16, float16 };

/// Unit roundoff: 2^-24, 2^-53, 2^-8 or 2^-11.
double unit_roundoff(Precision p);

/// The default tolerance for the residual at position i and offset delta (formula above).
double rotation_tolerance(Precision p, std::int64_t i, std::int64_t delta);

/// Rows of the interleaved P (layout [s0 c0 s1 c1 ...]) as built in a precision (see the
/// top of this file). Values are exactly representable in that precision.
class EncodingRows {
  public:
    /// d >= 1, base > 1 and finite (std::invalid_argument otherwise).
    EncodingRows(std::size_t d, double base, Precision precision, std::size_t max_block = 256);

    std::size_t dim() const { return d_; }
    std::size_t block_rows() const;
    /// Rows for positions first .. first+count-1 (count <= block_rows()), count x d.
    void fill(std::int64_t first, std::size_t count, double* out) const;

  private:
    std::size_t d_;
    Precision precision_;
    std::optional<positions::PositionalEncoder> encoder_;  // float64
    std::vector<float> divisor_;                           // float32: D_j, (ceil(d/2),)
    std::vector<positions::DoubleDouble> freq_;            // bfloat16, float16: w_j, (ceil(d/2),)
    std::size_t block_;
};

/// The 2x2 block of pair j: R = [[cos, sin], [-sin, cos]] with angle delta w_j, the values
/// used in the precision (float32: cosf/sinf(float(delta) / D_j)).
struct PairRotation {
    double cos = 1, sin = 0;
};
PairRotation pair_rotation(std::int64_t delta, std::size_t j, std::size_t d, double base,
                           Precision precision);

/// Row r of M_delta (d x d, block diagonal) into out (d values): P[i+delta] = M_delta P[i]
/// (column vectors). Rows 2j, 2j+1 hold R_j at columns 2j, 2j+1. With odd d, row d-1 is NaN.
void offset_matrix_row(std::int64_t delta, std::size_t r, std::size_t d, double base,
                       Precision precision, double* out);
/// The whole M_delta.
xt::xtensor<double, 2> offset_matrix(std::int64_t delta, std::size_t d, double base,
                                     Precision precision);

/// sum_j cos(delta w_j) over the d/2 complete pairs, in long double: P[i]·P[i+delta] over
/// the paired columns, for every i.
double dot_closed_form(std::int64_t delta, std::size_t d, double base);

/// Worst residual of one pair over i.
struct PairError {
    double max_error = 0;  // max over i of |R p_i - p_(i+delta)|, both coordinates
    std::int64_t at_i = 0;
};

/// Everything the scan measures for one offset. Positions i run over those where both i and
/// i + delta lie in [start, start + n).
struct OffsetResult {
    std::int64_t delta = 0;
    std::size_t checked = 0;       // number of positions i
    std::vector<PairError> pairs;  // (d/2,), complete pairs only
    double max_error = 0;          // max over pairs and i
    std::int64_t at_i = 0;
    double tol_at_i = 0;   // the tolerance at at_i
    double max_ratio = 0;  // max over i of (max over pairs of error) / tol(i)
    std::int64_t ratio_i = 0;
    double dot_min = 0, dot_max = 0;  // over i of P[i]·P[i+delta] (paired columns)
    std::int64_t dot_min_i = 0, dot_max_i = 0;
    double dot_closed = 0;     // dot_closed_form
    double dot_max_error = 0;  // max over i of |P[i]·P[i+delta] - dot_closed|
    std::int64_t dot_error_i = 0;
    bool passed() const { return max_ratio <= 1.0; }
};

struct ScanSpec {
    std::size_t n = 1000;  // positions start .. start+n-1
    std::size_t d = 512;   // >= 2
    double base = 10000.0;
    std::int64_t start = 0;
    Precision precision = Precision::float32;
    double tol = 0;  // > 0: a fixed tolerance for every i; 0: rotation_tolerance(i, delta)
};

/// Called on each block of rows after it is built and before it is used: first position,
/// count, rows (count x d). Tests use it to plant errors.
using RowEdit = std::function<void(std::int64_t first, std::size_t count, double* rows)>;

/// Bytes scan_offsets allocates: a ring of max|delta| + 1 rows, one block of rows, the
/// encoder's tables and the per-pair results.
std::uint64_t scan_bytes(std::size_t d, const std::vector<std::int64_t>& offsets);

/// Streams P once, block by block, keeping the last max|delta| + 1 rows in a ring, and for
/// every offset and every valid i compares R P[i] with P[i+delta]. Memory does not depend on
/// n. Requires |delta| < n for each offset (std::invalid_argument otherwise).
std::vector<OffsetResult> scan_offsets(const ScanSpec& spec,
                                       const std::vector<std::int64_t>& offsets,
                                       const RowEdit& edit = {});

/// Magnitudes of a position sweep up to N: 0, 10, 20, 50, 100, 200, 500, ... <= N, and N.
std::vector<std::int64_t> magnitude_grid(std::int64_t up_to);

/// The worst over several offsets: max_error/at_i/tol_at_i and delta from the offset with the
/// largest error, max_ratio/ratio_i from the offset with the largest ratio.
OffsetResult worst_of(const std::vector<OffsetResult>& results);

/// One row of the sweep: the scan of positions [position, position + n) in both precisions.
struct SweepRow {
    std::int64_t position = 0;
    OffsetResult float32, float64;  // worst_of the offsets in each precision
    OffsetResult reduced;           // in the `reduced` precision of sweep_positions, if asked
};
/// reduced: bfloat16 or float16 scanned too (float32 and float64 always are).
std::vector<SweepRow> sweep_positions(ScanSpec spec, const std::vector<std::int64_t>& offsets,
                                      std::int64_t up_to,
                                      std::optional<Precision> reduced = std::nullopt);

}  // namespace attn
