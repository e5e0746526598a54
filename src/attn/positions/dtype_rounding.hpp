// Values of a reduced-precision table: the exact value rounded once to bfloat16 or float16, and
// the angles framework code computes in a dtype.
//
// Rounded once: the fast double paths (P, RoPE, ALiBi) are within e = abs + rel |v| of the
// exact value; a double v farther than e from every midpoint of the format rounds as the exact
// value does. The few within e are recomputed as double-doubles (error below 2^-100) and
// rounded from hi + lo, so a value is never rounded twice (double -> float32 -> bfloat16).
//
// In the dtype D (--angles D), as PyTorch code holding positions and inv_freq in D computes:
//   a_ij = fl_D(fl_D(i) fl_D(f_j))      (the product of two D values, rounded once)
//   sin, cos = fl_D(sin a_ij), fl_D(cos a_ij)   (exact sin/cos of that angle, rounded once)
// fl_D rounds to nearest even; float16 positions above 65504 are inf, and so are their angles
// (sin and cos NaN), as in float16 arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "attn/positions/angle.hpp"
#include "runtime/reduced_float.hpp"

namespace attn::positions {

/// The dtype of angles computed in it: float32 or one of the reduced formats.
enum class AngleDtype { float32, bfloat16, float16 };

/// v rounded once to the dtype (hi + lo as in runtime::round_to; float32 likewise).
double round_to(AngleDtype t, DoubleDouble v);

/// fl_D(fl_D(x) fl_D(f)).
double dtype_angle(AngleDtype t, std::int64_t x, DoubleDouble f);
/// fl_D of the exact sin and cos of the angle a (a double): NaN for inf or NaN.
void dtype_sincos(AngleDtype t, double a, double& sine, double& cosine);

/// Rounds v[0 .. count) in place to the format. Each v[k] is within abs + rel |v[k]| of the
/// exact value; one that close to a midpoint (or to 0) is replaced by exact(k) rounded once.
void round_values(runtime::Reduced format, double* v, std::size_t count, double abs, double rel,
                  const std::function<DoubleDouble(std::size_t k)>& exact);

}  // namespace attn::positions
