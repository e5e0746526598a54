#include "attn/positions/alibi.hpp"

#include "attn/positions/parameter_error.hpp"

#include <stdexcept>
#include <string>

#include <quadmath.h>

namespace attn::positions {

namespace {

__extension__ typedef __float128 Quad;

DoubleDouble power_of_two(Quad e) {  // 2^e to about 106 bits
    const Quad v = exp2q(e);
    const double hi = static_cast<double>(v);
    return fast_two_sum(hi, static_cast<double>(v - static_cast<Quad>(hi)));
}

}  // namespace

std::vector<DoubleDouble> alibi_slopes_exact(std::size_t heads) {
    if (heads == 0) throw ParameterError("heads", "0 is not a number of heads (at least 1)");
    std::size_t p = 1;  // the largest power of two <= heads
    while (p * 2 <= heads) p *= 2;
    std::vector<DoubleDouble> slopes;
    for (std::size_t h = 1; h <= p; ++h)  // exponents -8h/p are exact (p is a power of two)
        slopes.push_back(power_of_two(-static_cast<Quad>(8 * h) / static_cast<Quad>(p)));
    for (std::size_t k = 0; slopes.size() < heads; ++k)
        slopes.push_back(power_of_two(-static_cast<Quad>(4 * (2 * k + 1)) / static_cast<Quad>(p)));
    return slopes;
}

std::vector<double> alibi_slopes(std::size_t heads) {
    std::vector<double> out;
    for (const DoubleDouble& m : alibi_slopes_exact(heads)) out.push_back(to_double(m));
    return out;
}

AlibiBias::AlibiBias(std::size_t heads, std::size_t n) : slopes_(alibi_slopes_exact(heads)), n_(n) {
    if (n == 0) throw ParameterError("n", "0 positions (at least 1)");
}

void AlibiBias::fill(std::size_t first, std::size_t count, double* out) const {
    if (first + count > rows())
        throw std::invalid_argument("AlibiBias::fill: rows beyond heads x n");
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t g = first + k, h = g / n_, i = g % n_;
        const DoubleDouble m = slopes_[h];
        double* row = out + k * n_;
        for (std::size_t j = 0; j < n_; ++j) {
            const std::size_t distance = i > j ? i - j : j - i;
            row[j] =
                distance == 0 ? 0.0 : -to_double(multiply(static_cast<std::int64_t>(distance), m));
        }
    }
}

}  // namespace attn::positions
