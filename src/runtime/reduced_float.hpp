// bfloat16 and float16: rounding a value once to nearest (ties to even) and their bit patterns,
// shared by the library (values rounded from their exact double-double form) and io (npy <f2).
//
//   format    significand bits p   smallest normal   largest finite
//   bfloat16  8                    2^-126            (2 - 2^-7) 2^127   (subnormals to 2^-133)
//   float16   11                   2^-14             65504              (subnormals to 2^-24)
//
// A value is rounded on the grid of quantum q = 2^(max(e, e_min) - (p - 1)), e = floor(log2|x|):
// x / q is exact (a power-of-two scaling), rounded to the nearest integer, ties to the even one.
// Past the largest finite value (from the midpoint to the next power, 65520 for float16) the
// result is +-inf; signs of zero are kept (-1e-9 rounds to -0).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn::runtime {

enum class Reduced { bfloat16, float16 };

/// hi + lo (an unevaluated sum, |lo| <= ulp(hi) / 2) rounded once to the format: lo decides
/// only when hi lies exactly halfway between two neighbours of the format, so the result is
/// that of the exact sum, never of hi rounded twice. NaN stays NaN.
double round_to(Reduced format, double hi, double lo = 0.0);

/// v[0 .. count) rounded once to the format, in place: the float32 (or double) result of an op
/// computed as PyTorch's CPU kernels compute bfloat16 and float16 ops, then stored in the dtype.
void round_all(Reduced format, float* v, std::size_t count);
void round_all(Reduced format, double* v, std::size_t count);

/// The distance from v to the nearest midpoint between two neighbours of the format (a value
/// whose rounding depends on digits beyond v when the distance is below v's error), inf for
/// NaN and inf.
double distance_to_tie(Reduced format, double v);

/// The bits of v, a value of the format (round_to's result): float16 IEEE binary16, bfloat16
/// the upper half of the float32 bits.
std::uint16_t float16_bits(double v);
std::uint16_t bfloat16_bits(double v);
/// The value of the bits, exactly.
double from_float16_bits(std::uint16_t bits);
double from_bfloat16_bits(std::uint16_t bits);

/// The largest finite value and the unit roundoff 2^-p of the format.
double largest(Reduced format);
double unit_roundoff(Reduced format);

}  // namespace attn::runtime
