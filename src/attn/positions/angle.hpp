// Exact sines and cosines of large angles: double-double arithmetic (about 106 bits) with an
// argument reduction by pi/2 carried to 218 bits, so sin/cos(x * f) for an integer position x
// and a frequency f is correct to about 2^-100 before the single final rounding.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn::positions {

/// The unevaluated sum hi + lo with |lo| <= ulp(hi) / 2: about 106 significant bits.
struct DoubleDouble {
    double hi = 0.0;
    double lo = 0.0;
};

/// sin and cos of one angle, each within about 2^-104 (absolute) of the exact value.
struct SinCos {
    DoubleDouble sin, cos;
};

/// a + b exactly, as hi + lo (Knuth's two-sum).
inline DoubleDouble two_sum(double a, double b) {
    const double s = a + b, bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}
/// a + b exactly when |a| >= |b| or a == 0 (Dekker's fast two-sum).
inline DoubleDouble fast_two_sum(double a, double b) {
    const double s = a + b;
    return {s, b - (s - a)};
}
/// a * b exactly, as hi + lo (Dekker's product with Veltkamp's split: exact without FMA, for
/// |a|, |b| < 2^995; relies on -ffp-contract=off, which the build sets).
inline DoubleDouble two_product(double a, double b) {
    constexpr double split = 134217729.0;  // 2^27 + 1
    const double ca = split * a, ah = ca - (ca - a), al = a - ah;
    const double cb = split * b, bh = cb - (cb - b), bl = b - bh;
    const double p = a * b;
    return {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

/// a + b of double-doubles, relative error below 2^-104 (the accurate, two two-sums, addition).
inline DoubleDouble add(DoubleDouble a, DoubleDouble b) {
    DoubleDouble s = two_sum(a.hi, b.hi);
    const DoubleDouble t = two_sum(a.lo, b.lo);
    s = fast_two_sum(s.hi, s.lo + t.hi);
    return fast_two_sum(s.hi, s.lo + t.lo);
}
inline DoubleDouble negate(DoubleDouble a) {
    return {-a.hi, -a.lo};
}
/// a * b of double-doubles, relative error below 2^-102.
inline DoubleDouble multiply(DoubleDouble a, DoubleDouble b) {
    const DoubleDouble p = two_product(a.hi, b.hi);
    return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}
/// x * f for an integer |x| <= 2^53: x * f.hi is exact, the error is below 2^-104 |x f|.
inline DoubleDouble multiply(std::int64_t x, DoubleDouble f) {
    const double xd = static_cast<double>(x);
    const DoubleDouble p = two_product(xd, f.hi);
    return fast_two_sum(p.hi, p.lo + xd * f.lo);
}

/// base^(-num/den) to about 106 bits (from 113-bit quad arithmetic), base > 0, den > 0.
/// The frequency of pair j in the sinusoidal P and RoPE is base^(-2j/d) = inverse_power(base, 2j,
/// d).
DoubleDouble inverse_power(double base, std::size_t num, std::size_t den);

/// sin and cos of the angle a (|a.hi| < 2^62): a - k pi/2 is computed with pi/2 to 218 bits
/// (no cancellation is lost); r = a - k pi/2, |r| <= pi/4, is r0 + t with r0 = m/32
/// (sin/cos(r0) tabulated) and |t| <= 1/64 (7 Taylor terms in double-double), recombined by
/// angle addition. Error below 2^-100 (absolute) for |a| <= 2^53.
SinCos sincos(DoubleDouble a);
/// sin and cos of x * f: the angle of position x at frequency f (|x| <= 2^53). x * f is
/// formed to 2^-104 |x f|: with f itself exact to 106 bits, the result is within
/// 2^-100 + |x f| 2^-104 of sin/cos of the exact product (2^-73 at |x f| = 2^31).
SinCos sincos(std::int64_t x, DoubleDouble f);

/// hi + lo rounded once to float (no double rounding through double).
float to_float(DoubleDouble v);
/// hi + lo rounded to double: hi, since hi + lo is normalised.
inline double to_double(DoubleDouble v) {
    return v.hi + v.lo;
}

}  // namespace attn::positions
