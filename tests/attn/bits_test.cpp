#include "attn/bits.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

TEST_CASE("bits: width, digits and periods as in the chapter's loop") {
    CHECK(attn::binary_width(1) == 1);
    CHECK(attn::binary_width(2) == 1);
    CHECK(attn::binary_width(8) == 3);
    CHECK(attn::binary_width(9) == 4);
    CHECK(attn::binary_width(1024) == 10);
    CHECK(attn::binary_string(0, 3) == "000");
    CHECK(attn::binary_string(5, 3) == "101");
    CHECK(attn::binary_string(7, 3) == "111");
    CHECK(attn::binary_string(5, 5) == "00101");
    CHECK(attn::bit(6, 0) == 0);
    CHECK(attn::bit(6, 1) == 1);
    CHECK(attn::bit(6, 2) == 1);
    CHECK(attn::bit_period(0) == 2.0);
    CHECK(attn::bit_period(3) == 16.0);
    // Bit k is periodic with period 2^(k+1).
    for (std::uint64_t i = 0; i < 64; ++i)
        for (std::size_t k = 0; k < 4; ++k)
            CHECK(attn::bit(i, k) == attn::bit(i + std::uint64_t(attn::bit_period(k)), k));
}

TEST_CASE("bits: column-pair wavelengths run from 2 pi to 2 pi base^((d-1)/d)") {
    CHECK(attn::pair_wavelength(0, 8, 10000.0) ==
          doctest::Approx(2 * std::numbers::pi).epsilon(1e-15));
    CHECK(attn::pair_wavelength(3, 8, 10000.0) ==
          doctest::Approx(2 * std::numbers::pi * std::pow(10000.0, 0.75)).epsilon(1e-15));
}
