#include "attn/bits.hpp"

#include <cmath>
#include <numbers>

#include "attn/positions/sinusoidal.hpp"

namespace attn {

std::size_t binary_width(std::uint64_t n) {
    std::size_t w = 1;
    for (std::uint64_t top = n > 0 ? n - 1 : 0; top >> w; ++w) {
    }
    return w;
}

std::string binary_string(std::uint64_t i, std::size_t width) {
    std::string s(width, '0');
    for (std::size_t k = 0; k < width; ++k)
        if (bit(i, k)) s[width - 1 - k] = '1';
    return s;
}

double bit_period(std::size_t k) {
    return std::ldexp(1.0, static_cast<int>(k) + 1);
}

double pair_wavelength(std::size_t j, std::size_t d, double base) {
    return static_cast<double>(2 * std::numbers::pi_v<long double> /
                               positions::pair_frequency_l(j, d, base));
}

}  // namespace attn
