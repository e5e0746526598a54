#include "attn/positions/float32_angles.hpp"

#include <cmath>
#include <stdexcept>

#include <quadmath.h>

#include "attn/positions/angle.hpp"

namespace attn::positions {

namespace {

__extension__ typedef __float128 Quad;

// v rounded to float when every value within v's error bound rounds the same way; false when
// the bound straddles a rounding boundary. err is an absolute bound on |v - exact|.
bool decided(double v, double err, float& out) {
    const float lo = static_cast<float>(v - err), hi = static_cast<float>(v + err);
    if (lo != hi) return false;
    out = lo;
    return true;
}

}  // namespace

void sincos_float(float a, float& sine, float& cosine) {
    // libm's double sin/cos are within 1 ulp of double; 8 ulps of margin (and 2^-1074 near 0).
    const double x = a, s = std::sin(x), c = std::cos(x);
    const double es = std::fabs(s) * 0x1p-50 + 0x1p-1074, ec = std::fabs(c) * 0x1p-50 + 0x1p-1074;
    if (decided(s, es, sine) && decided(c, ec, cosine)) return;
    const SinCos v = sincos(DoubleDouble{x, 0.0});
    sine = to_float(v.sin);
    cosine = to_float(v.cos);
}

Float32AngleEncoder::Float32AngleEncoder(std::size_t d, double base, Layout columns)
    : d_(d), pairs_((d + 1) / 2), columns_(columns) {
    if (d < 1) throw std::invalid_argument("d must be at least 1");
    if (!(base > 1.0) || !std::isfinite(base) || !std::isfinite(static_cast<float>(base)))
        throw std::invalid_argument("base must be a finite float32 greater than 1");
    const float b = static_cast<float>(base);
    power_.resize(pairs_);
    for (std::size_t j = 0; j < pairs_; ++j) {
        const float e = static_cast<float>(2 * j) / static_cast<float>(d);  // one rounding
        power_[j] = static_cast<float>(powq(static_cast<Quad>(b), static_cast<Quad>(e)));
    }
}

float Float32AngleEncoder::angle(std::int64_t i, std::size_t j) const {
    return static_cast<float>(i) / power_[j];
}

void Float32AngleEncoder::fill(std::int64_t first, std::size_t count, double* out) const {
    const bool interleaved = columns_ == Layout::interleaved;
    for (std::size_t k = 0; k < count; ++k) {
        double* row = out + k * d_;
        const std::int64_t i = first + static_cast<std::int64_t>(k);
        for (std::size_t j = 0; j < pairs_; ++j) {
            float s, c;
            sincos_float(angle(i, j), s, c);
            row[interleaved ? 2 * j : j] = s;
            if (2 * j + 1 < d_) row[interleaved ? 2 * j + 1 : pairs_ + j] = c;
        }
    }
}

}  // namespace attn::positions
