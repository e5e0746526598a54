#include "runtime/reduced_float.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace attn::runtime {

namespace {

struct Grid {
    int p;           // significand bits, the leading one included
    int min_exp;     // exponent of the smallest normal
    double largest;  // largest finite value
};

Grid grid(Reduced f) {
    return f == Reduced::bfloat16 ? Grid{8, -126, std::ldexp(255.0, 120)} : Grid{11, -14, 65504.0};
}

// The quantum (distance between neighbours) of the format around |x| (x finite, nonzero).
double quantum(const Grid& g, double x) {
    const int e = std::max(std::ilogb(x), g.min_exp);
    return std::ldexp(1.0, e - (g.p - 1));
}

// The normal range of the format, where rounding is integer arithmetic on the double's bits:
// the low `drop` bits of the significand go, rounded to nearest even (a carry into the
// exponent is the next power of two, as it should be).
struct Bits {
    int drop;            // 53 - p
    double least, most;  // smallest normal and largest finite value
};

Bits bits_of(Reduced f) {
    return f == Reduced::bfloat16 ? Bits{45, 0x1p-126, 0x1.fep127} : Bits{42, 0x1p-14, 65504.0};
}

}  // namespace

double round_to(Reduced format, double hi, double lo) {
    const Bits b = bits_of(format);
    if (const double a = std::fabs(hi); a >= b.least && a <= b.most) {
        const auto u = std::bit_cast<std::uint64_t>(hi);
        const std::uint64_t mask = (std::uint64_t{1} << b.drop) - 1, half = mask / 2 + 1;
        const std::uint64_t frac = u & mask;
        std::uint64_t up;  // 1: away from zero, 0: towards it
        if (frac != half)
            up = frac > half;
        else if (lo != 0)
            up = (lo > 0) == (hi > 0);
        else
            up = (u >> b.drop) & 1;  // a true tie: to even
        const double v = std::bit_cast<double>((u & ~mask) + (up << b.drop));
        return std::fabs(v) > b.most ? std::copysign(std::numeric_limits<double>::infinity(), hi)
                                     : v;
    }
    if (!std::isfinite(hi) || hi == 0.0) return hi;
    const Grid g = grid(format);
    const double q = quantum(g, hi);
    const double r = hi / q;  // exact: a power-of-two scaling of a normal double
    const double below = std::floor(r);
    double n;
    if (r - below != 0.5)
        n = std::nearbyint(r);  // the rounding mode is to nearest, ties to even
    else if (lo > 0)
        n = below + 1;  // hi + lo lies above the midpoint
    else if (lo < 0)
        n = below;
    else
        n = std::fmod(below, 2.0) == 0 ? below : below + 1;  // a true tie: to even
    // n * q is exact; n == 2^p (rounding up to the next power) is still exact.
    const double v = n == 0 ? std::copysign(0.0, hi) : n * q;
    if (std::fabs(v) > g.largest) return std::copysign(std::numeric_limits<double>::infinity(), hi);
    return v;
}

void round_all(Reduced format, float* v, std::size_t count) {
    // On the float's bits, where the format's quantum is fixed by the float's exponent (its
    // normal range; for bfloat16, whose exponents are float32's, every finite float): the low
    // `drop` bits go, rounded to nearest even (24 - p bits: 16 for bfloat16, 13 for float16); a
    // carry into the exponent is the next power of two. A first pass does that where it
    // applies, branch-free on integers (the compiler vectorises it); if any value lies outside
    // (float16's subnormals, past the largest finite value, inf, NaN), a second pass sends
    // those through round_to (values already rounded are values of the format: they stay).
    const Bits b = bits_of(format);
    const int drop = b.drop - 29;  // 53 - p for a double, 24 - p for a float
    const std::uint32_t mask = (std::uint32_t{1} << drop) - 1, half = mask >> 1;
    const std::uint32_t least = format == Reduced::bfloat16
                                    ? 0u
                                    : std::bit_cast<std::uint32_t>(static_cast<float>(b.least));
    const std::uint32_t most = std::bit_cast<std::uint32_t>(static_cast<float>(b.most));
    const auto inside = [&](std::uint32_t u, std::uint32_t r) -> std::uint32_t {
        const std::uint32_t ua = u & 0x7fffffffu, ra = r & 0x7fffffffu;  // magnitudes' bits
        return (static_cast<std::uint32_t>(ua >= least) | static_cast<std::uint32_t>(ua == 0)) &
               static_cast<std::uint32_t>(ua <= most) & static_cast<std::uint32_t>(ra <= most);
    };
    std::uint32_t outside = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const auto u = std::bit_cast<std::uint32_t>(v[k]);
        const std::uint32_t r = (u + half + ((u >> drop) & 1)) & ~mask;
        const std::uint32_t in = inside(u, r);
        outside |= in ^ 1u;
        v[k] = std::bit_cast<float>(in ? r : u);
    }
    if (!outside) return;
    for (std::size_t k = 0; k < count; ++k) {
        const auto u = std::bit_cast<std::uint32_t>(v[k]);
        if (!inside(u, u)) v[k] = static_cast<float>(round_to(format, v[k]));
    }
}
void round_all(Reduced format, double* v, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) v[k] = round_to(format, v[k]);
}

double distance_to_tie(Reduced format, double v) {
    if (!std::isfinite(v)) return std::numeric_limits<double>::infinity();
    const Grid g = grid(format);
    if (v == 0.0) return std::ldexp(1.0, g.min_exp - g.p);  // half the smallest subnormal
    const Bits b = bits_of(format);
    if (const double a = std::fabs(v); a >= 2 * b.least && a <= b.most) {
        const auto u = std::bit_cast<std::uint64_t>(a);
        const std::uint64_t mask = (std::uint64_t{1} << b.drop) - 1, half = mask / 2 + 1;
        const auto frac = static_cast<double>(u & mask);
        // In units of a's last bit: 2^e * 2^-52, e a's exponent.
        const double unit = std::bit_cast<double>(u & 0x7ff0000000000000u) * 0x1p-52;
        double d = std::fabs(frac - static_cast<double>(half));
        if ((u & 0x000fffffffffffffu & ~mask) == 0)  // just above a power of two
            d = std::min(d, frac + static_cast<double>(half / 2));
        return d * unit;
    }
    const double q = quantum(g, v);
    const double r = std::fabs(v) / q, below = std::floor(r), frac = r - below;
    // The midpoint above (below + 1/2) is nearer than the one under below (below - 1/2),
    // except at the bottom of a binade above the smallest normal: there the grid under v is
    // twice as fine, and its midpoint is q/4 under the power of two.
    double d = std::fabs(frac - 0.5) * q;
    if (below == std::ldexp(1.0, g.p - 1) && std::ilogb(v) > g.min_exp)
        d = std::min(d, (frac + 0.25) * q);
    return d;
}

std::uint16_t float16_bits(double v) {
    const std::uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
    const double a = std::fabs(v);
    if (a >= 0x1p-14 && a <= 65504.0) {  // normal: exponent and the top 10 significand bits
        const auto u = std::bit_cast<std::uint64_t>(a);
        const auto e = static_cast<std::uint16_t>(((u >> 52) & 0x7ff) - 1023 + 15);
        return sign | static_cast<std::uint16_t>(e << 10) |
               static_cast<std::uint16_t>((u >> 42) & 0x3ff);
    }
    if (std::isnan(v)) return 0x7e00u;
    if (std::isinf(a)) return sign | 0x7c00u;
    if (a < std::ldexp(1.0, -14))  // subnormal or zero: a / 2^-24 is the significand
        return sign | static_cast<std::uint16_t>(std::ldexp(a, 24));
    const int e = std::ilogb(a);
    const auto mantissa = static_cast<std::uint16_t>(std::ldexp(a, 10 - e) - 1024.0);
    return sign | static_cast<std::uint16_t>((e + 15) << 10) | mantissa;
}

std::uint16_t bfloat16_bits(double v) {
    return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(v)) >> 16);
}

double from_float16_bits(std::uint16_t bits) {
    const double sign = bits & 0x8000u ? -1.0 : 1.0;
    const int e = (bits >> 10) & 0x1f;
    const int m = bits & 0x3ff;
    if (e == 0x1f)
        return m ? std::numeric_limits<double>::quiet_NaN()
                 : sign * std::numeric_limits<double>::infinity();
    if (e == 0) return sign * std::ldexp(m, -24);
    return sign * std::ldexp(1024 + m, e - 25);
}

double from_bfloat16_bits(std::uint16_t bits) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

double largest(Reduced format) {
    return grid(format).largest;
}
double unit_roundoff(Reduced format) {
    return std::ldexp(1.0, -grid(format).p);
}

}  // namespace attn::runtime
