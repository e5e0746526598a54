// The chapter's "absolute positional information" illustration: the binary digits of
// 0..n-1 flip at periods 2, 4, 8, ..., as the encoding's columns oscillate at wavelengths
// that grow geometrically from 2*pi to 2*pi*base.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace attn {

/// Binary digits needed for n - 1 (at least 1): 8 -> 3, 9 -> 4, 1 -> 1.
std::size_t binary_width(std::uint64_t n);

/// i in binary, most significant digit first, zero-padded to width: (5, 4) -> "0101".
std::string binary_string(std::uint64_t i, std::size_t width);

/// Bit k of i (k = 0 is the least significant).
inline int bit(std::uint64_t i, std::size_t k) {
    return k < 64 ? int((i >> k) & 1u) : 0;
}

/// Bit k repeats every 2^(k+1) positions.
double bit_period(std::size_t k);

/// Wavelength, in positions, of encoding column pair j: 2*pi * base^(2j/d) = 2*pi / w_j.
double pair_wavelength(std::size_t j, std::size_t d, double base);

}  // namespace attn
