#include "runtime/tensor_view.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

using attn::runtime::DType;
using attn::runtime::TensorView;

namespace {

/// The value binary16 bits stand for, from the format's definition, in double.
double half_value(std::uint16_t bits) {
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    const int e = (bits >> 10) & 0x1f, f = bits & 0x3ff;
    if (e == 0) return sign * std::ldexp(f, -24);
    return sign * std::ldexp(1024 + f, e - 25);
}

/// The value bfloat16 bits stand for (8 exponent bits, bias 127, 7 fraction bits).
double bfloat16_value(std::uint16_t bits) {
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    const int e = (bits >> 7) & 0xff, f = bits & 0x7f;
    if (e == 0) return sign * std::ldexp(f, -133);
    return sign * std::ldexp(128 + f, e - 134);
}

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
    std::vector<std::byte> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

}  // namespace

TEST_CASE("half_to_float and bfloat16_to_float: every finite bit pattern exactly") {
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto bits = static_cast<std::uint16_t>(b);
        if (((bits >> 10) & 0x1f) != 0x1f)
            REQUIRE(static_cast<double>(attn::runtime::half_to_float(bits)) == half_value(bits));
        if (((bits >> 7) & 0xff) != 0xff)
            REQUIRE(static_cast<double>(attn::runtime::bfloat16_to_float(bits)) ==
                    bfloat16_value(bits));
    }
    CHECK(attn::runtime::half_to_float(0x7c00) == std::numeric_limits<float>::infinity());
    CHECK(attn::runtime::half_to_float(0xfc00) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(attn::runtime::half_to_float(0x7e00)));
    CHECK(std::signbit(attn::runtime::half_to_float(0x8000)));
    CHECK(std::isnan(attn::runtime::bfloat16_to_float(0x7fc0)));
}

TEST_CASE("TensorView: F32 read in place, no copy") {
    const std::vector<float> values{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f};
    const auto raw = bytes_of(values);
    const TensorView t{DType::F32, {2, 3}, raw};
    CHECK(t.numel() == 6);
    CHECK(t.dim(0) == 2);
    CHECK(t.dim(-1) == 3);
    CHECK_THROWS_AS(t.dim(2), std::out_of_range);
    REQUIRE(t.is_f32_in_place());
    CHECK(t.f32().data() == reinterpret_cast<const float*>(raw.data()));
    std::vector<float> scratch;
    CHECK(t.floats(scratch).data() == reinterpret_cast<const float*>(raw.data()));
    CHECK(scratch.empty());
    CHECK(t.at(2) == 3.25f);
    std::vector<double> d(2);
    t.to_double(d, 4);
    CHECK(d == std::vector<double>{7.0, -0.5});
    CHECK_THROWS_AS(t.to_double(d, 5), std::out_of_range);
    // Misaligned F32 bytes are widened (copied) instead.
    std::vector<std::byte> shifted(raw.size() + 1);
    std::memcpy(shifted.data() + 1, raw.data(), raw.size());
    const TensorView odd{DType::F32, {6}, std::span(shifted).subspan(1)};
    CHECK(!odd.is_f32_in_place());
    CHECK_THROWS_AS(odd.f32(), std::logic_error);
    const auto f = odd.floats(scratch);
    CHECK(std::vector<float>(f.begin(), f.end()) == values);
}

TEST_CASE("TensorView: F16 and BF16 widened into the caller's buffer") {
    // 1.0, -2.5, 65504 (largest), 2^-24 (smallest subnormal) in binary16.
    const std::vector<std::uint16_t> half{0x3c00, 0xc100, 0x7bff, 0x0001};
    const auto hb = bytes_of(half);
    const TensorView h{DType::F16, {4}, hb};
    CHECK(!h.is_f32_in_place());
    std::vector<double> d(4);
    h.to_double(d);
    CHECK(d == std::vector<double>{1.0, -2.5, 65504.0, std::ldexp(1.0, -24)});
    // 1.0, -3.0, pi rounded to bfloat16 (3.140625), 2^-133 (smallest subnormal).
    const std::vector<std::uint16_t> bf{0x3f80, 0xc040, 0x4049, 0x0001};
    const auto bb = bytes_of(bf);
    const TensorView b{DType::BF16, {2, 2}, bb};
    std::vector<float> scratch;
    const auto f = b.floats(scratch);
    CHECK(std::vector<float>(f.begin(), f.end()) ==
          std::vector<float>{1.0f, -3.0f, 3.140625f, std::ldexp(1.0f, -133)});
    CHECK(b.at(2) == 3.140625f);
    CHECK(attn::runtime::dtype_name(DType::BF16) == "BF16");
    CHECK(attn::runtime::dtype_size(DType::F16) == 2);
}
