// Test references in quad precision (GCC's __float128, 113 bits), computed independently of
// src/attn/positions: frequencies from expq(-e logq(base)), angles by quad multiplication,
// sinq/cosq with libquadmath's own argument reduction. ulp distances in float and double.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include <quadmath.h>

namespace attn_test {

__extension__ typedef __float128 Quad;

/// base^(-num/den) in quad.
inline Quad quad_frequency(double base, std::size_t num, std::size_t den) {
    return expq(-(static_cast<Quad>(num) / static_cast<Quad>(den)) * logq(static_cast<Quad>(base)));
}
inline Quad quad_pi() {
    return 4 * atanq(static_cast<Quad>(1));
}
inline Quad quad_sin(std::int64_t x, Quad f) {
    return sinq(static_cast<Quad>(x) * f);
}
inline Quad quad_cos(std::int64_t x, Quad f) {
    return cosq(static_cast<Quad>(x) * f);
}

/// Distance in ulps between two finite doubles (through zero across a sign change).
inline std::int64_t ulps(double a, double b) {
    std::int64_t ia, ib;
    std::memcpy(&ia, &a, 8);
    std::memcpy(&ib, &b, 8);
    if (ia < 0) ia = std::numeric_limits<std::int64_t>::min() - ia;
    if (ib < 0) ib = std::numeric_limits<std::int64_t>::min() - ib;
    return std::llabs(ia - ib);
}
inline std::int64_t ulps(float a, float b) {
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    if (ia < 0) ia = std::numeric_limits<std::int32_t>::min() - ia;
    if (ib < 0) ib = std::numeric_limits<std::int32_t>::min() - ib;
    return std::llabs(std::int64_t{ia} - std::int64_t{ib});
}

/// tests/data (the build defines where).
inline std::string data_dir() {
    return ATTN_TEST_DATA_DIR;
}

/// A reproducible stream of integers in [0, bound) (64-bit LCG, high bits).
struct Lcg {
    std::uint64_t state = 0x853c49e6748fea9bULL;
    std::uint64_t next(std::uint64_t bound) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 11) % bound;
    }
};

}  // namespace attn_test
