#include "attn/positions/angle.hpp"

#include <array>
#include <cmath>
#include <limits>

#include <quadmath.h>

namespace attn::positions {

namespace {

__extension__ typedef __float128 Quad;

// pi/2 = P0 + P1 + P2 + P3 to 218 bits (each the rounding of what the previous ones leave).
constexpr double kHalfPi[4] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110,
                               0x1.4cf98e804177dp-164};
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;

// a - k pi/2 for an integer-valued double k: each k * P_i is exact (two_product), the sums are
// accurate double-double additions.
DoubleDouble subtract_quadrants(DoubleDouble a, double k) {
    for (double p : kHalfPi) a = add(a, negate(two_product(k, p)));
    return a;
}

// 1/n! as double-doubles, n = 0..19 (n! is exact in double up to 22!).
const std::array<DoubleDouble, 20>& inverse_factorials() {
    static const std::array<DoubleDouble, 20> table = [] {
        std::array<DoubleDouble, 20> t{};
        double factorial = 1.0;
        for (int n = 0; n < 20; ++n) {
            if (n > 0) factorial *= n;
            const double hi = 1.0 / factorial;
            const DoubleDouble e = two_product(hi, factorial);  // hi * n! = 1 - residual
            t[n] = fast_two_sum(hi, ((1.0 - e.hi) - e.lo) / factorial);
        }
        return t;
    }();
    return table;
}

// Taylor series of sin and cos, in double-double for the terms k < dd_terms and in double
// for k in [dd_terms, terms):
//   sin t = t * sum_k (-1)^k z^k / (2k+1)!,  cos t = sum_k (-1)^k z^k / (2k)!,  z = t^2.
SinCos series(DoubleDouble t, int dd_terms, int terms) {
    static const std::array<double, 32> approx = [] {  // 1/n! in double, for the tail
        std::array<double, 32> a{};
        a[0] = 1.0;
        for (int n = 1; n < 32; ++n) a[n] = a[n - 1] / n;
        return a;
    }();
    const auto& inv = inverse_factorials();
    const DoubleDouble z = multiply(t, t);
    double ts = 0.0, tc = 0.0;
    for (int k = terms - 1; k >= dd_terms; --k) {
        const double sign = (k % 2 == 0) ? 1.0 : -1.0;
        ts = sign * approx[2 * k + 1] + z.hi * ts;
        tc = sign * approx[2 * k] + z.hi * tc;
    }
    DoubleDouble s{ts, 0.0}, c{tc, 0.0};
    for (int k = dd_terms - 1; k >= 0; --k) {
        const DoubleDouble fs = inv[2 * k + 1], fc = inv[2 * k];
        s = add(k % 2 == 0 ? fs : negate(fs), multiply(z, s));
        c = add(k % 2 == 0 ? fc : negate(fc), multiply(z, c));
    }
    return {multiply(t, s), c};
}

// sin/cos(m / 32), |m| <= 26, from the series on |m/32| <= 0.82: 15 terms, k < 10 in
// double-double (terms k >= 10 are below 2^-67, the truncation below 2^-110).
constexpr int kTableHalf = 26;
const std::array<SinCos, 2 * kTableHalf + 1>& table() {
    static const std::array<SinCos, 2 * kTableHalf + 1> t = [] {
        std::array<SinCos, 2 * kTableHalf + 1> out{};
        for (int m = -kTableHalf; m <= kTableHalf; ++m)
            out[m + kTableHalf] = series({m / 32.0, 0.0}, 10, 15);
        return out;
    }();
    return t;
}

// sin and cos of |r| <= pi/4 + tiny: r = r0 + t with r0 = m/32 nearest, |t| <= 1/64, so
// z = t^2 <= 2^-12 and 7 terms suffice (the 8th is below 2^-124; terms k >= 4, below 2^-66,
// are summed in double). Then the angle-addition formulas with the table's r0.
SinCos kernel(DoubleDouble r) {
    const double m = std::nearbyint(r.hi * 32.0);
    const DoubleDouble t = fast_two_sum(r.hi - m / 32.0, r.lo);  // r.hi - m/32 is exact
    const SinCos v = series(t, 4, 7);
    const SinCos& w = table()[static_cast<int>(m) + kTableHalf];
    return {add(multiply(w.sin, v.cos), multiply(w.cos, v.sin)),
            add(multiply(w.cos, v.cos), negate(multiply(w.sin, v.sin)))};
}

}  // namespace

DoubleDouble inverse_power(double base, std::size_t num, std::size_t den) {
    const Quad e = static_cast<Quad>(num) / static_cast<Quad>(den);
    const Quad q = powq(static_cast<Quad>(base), -e);
    const double hi = static_cast<double>(q);
    return fast_two_sum(hi, static_cast<double>(q - static_cast<Quad>(hi)));
}

SinCos sincos(DoubleDouble a) {
    // Nearest quadrant: k from the leading part, then once more from the remainder (the first
    // k can be off by one when |a| is near 2^52 and beyond).
    double k = std::nearbyint(a.hi * kTwoOverPi);
    DoubleDouble r = subtract_quadrants(a, k);
    const double k2 = std::nearbyint(r.hi * kTwoOverPi);
    if (k2 != 0.0) {
        r = subtract_quadrants(r, k2);
        k += k2;
    }
    const SinCos v = kernel(r);
    // Quadrant q = k mod 4: rotate by q * pi/2.
    const auto q = static_cast<int>(static_cast<std::int64_t>(k) & 3);  // |k| < 2^62
    switch (q) {
        case 0:
            return v;
        case 1:
            return {v.cos, negate(v.sin)};
        case 2:
            return {negate(v.sin), negate(v.cos)};
        default:
            return {negate(v.cos), v.sin};
    }
}

SinCos sincos(std::int64_t x, DoubleDouble f) {
    return sincos(multiply(x, f));
}

float to_float(DoubleDouble v) {
    float f = static_cast<float>(v.hi);
    const double back = f, diff = v.hi - back;  // exact: v.hi is within a float ulp of f
    if (diff != 0.0 && v.lo != 0.0 && std::isfinite(f)) {
        // Rounding v.hi alone is wrong only when v.hi is the midpoint of f and its neighbour g
        // and lo points towards g.
        const float g = std::nextafter(f, diff > 0 ? std::numeric_limits<float>::infinity()
                                                   : -std::numeric_limits<float>::infinity());
        if (2.0 * diff == static_cast<double>(g) - back && (v.lo > 0) == (diff > 0)) f = g;
    }
    return f;
}

}  // namespace attn::positions
