#include "attn/positions/dtype_rounding.hpp"

#include <cmath>
#include <limits>

namespace attn::positions {

namespace {

double round_pair(AngleDtype t, double hi, double lo) {
    switch (t) {
        case AngleDtype::bfloat16:
            return runtime::round_to(runtime::Reduced::bfloat16, hi, lo);
        case AngleDtype::float16:
            return runtime::round_to(runtime::Reduced::float16, hi, lo);
        case AngleDtype::float32:
            break;
    }
    return to_float({hi, lo});
}

}  // namespace

double round_to(AngleDtype t, DoubleDouble v) {
    return round_pair(t, v.hi, v.lo);
}

double dtype_angle(AngleDtype t, std::int64_t x, DoubleDouble f) {
    // x rounded alone: to_float of an integer above 2^53 is not reached (|x| <= 2^52).
    const double xd = round_pair(t, static_cast<double>(x), 0.0);
    const double fd = round_to(t, f);
    // Two values of at most 24 significant bits: the product is exact in double (inf * 0 is
    // NaN, as in the dtype).
    return round_pair(t, xd * fd, 0.0);
}

void dtype_sincos(AngleDtype t, double a, double& sine, double& cosine) {
    if (!std::isfinite(a)) {
        sine = cosine = std::numeric_limits<double>::quiet_NaN();
        return;
    }
    const SinCos v = sincos({a, 0.0});
    sine = round_to(t, v.sin);
    cosine = round_to(t, v.cos);
}

void round_values(runtime::Reduced format, double* v, std::size_t count, double abs, double rel,
                  const std::function<DoubleDouble(std::size_t k)>& exact) {
    for (std::size_t k = 0; k < count; ++k) {
        const double err = abs + rel * std::fabs(v[k]);
        // Near a midpoint the rounding, and near 0 the sign of a zero, needs the exact value.
        if (runtime::distance_to_tie(format, v[k]) <= err || std::fabs(v[k]) <= err) {
            const DoubleDouble e = exact(k);
            v[k] = runtime::round_to(format, e.hi, e.lo);
        } else {
            v[k] = runtime::round_to(format, v[k]);
        }
    }
}

}  // namespace attn::positions
