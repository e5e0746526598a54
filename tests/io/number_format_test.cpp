#include "io/number_format.hpp"

#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <string>

#include "runtime/reduced_float.hpp"

using attn::io::Dtype;
using attn::runtime::Reduced;

namespace {

std::string text(double v, Dtype dtype) {
    fmt::memory_buffer b;
    attn::io::append_number(b, v, dtype, std::nullopt);
    return fmt::to_string(b);
}

}  // namespace

TEST_CASE("append_number: bfloat16 and float16 print the shortest text of their value") {
    CHECK(text(0.1, Dtype::bfloat16) == "0.1");  // 0.10009765625
    CHECK(text(0.1, Dtype::float16) == "0.1");   // 0.0999755859375
    CHECK(text(1.0 / 3, Dtype::bfloat16) == "0.334");
    CHECK(text(65504, Dtype::float16) == "65500");  // as numpy prints float16(65504)
    CHECK(text(1e6, Dtype::float16) == "inf");
    CHECK(text(-0.0, Dtype::float16) == "-0");
    CHECK(text(std::ldexp(1.0, -24), Dtype::float16) == "6e-08");
    CHECK(text(257, Dtype::bfloat16) == "256");  // a tie: to even
    CHECK(text(std::nan(""), Dtype::bfloat16) == "nan");
}

TEST_CASE("append_number: every float16 value reads back to itself") {
    std::size_t wrong = 0;
    for (std::uint32_t b = 0; b < 0x7c00u; ++b) {
        for (const Reduced f : {Reduced::float16, Reduced::bfloat16}) {
            const auto bits = static_cast<std::uint16_t>(b);
            const double v = f == Reduced::float16 ? attn::runtime::from_float16_bits(bits)
                                                   : attn::runtime::from_bfloat16_bits(bits);
            const std::string t = text(v, f == Reduced::float16 ? Dtype::float16 : Dtype::bfloat16);
            double back = 0;
            std::from_chars(t.data(), t.data() + t.size(), back);
            if (attn::runtime::round_to(f, back) != v) ++wrong;
        }
    }
    CHECK(wrong == 0);
}
