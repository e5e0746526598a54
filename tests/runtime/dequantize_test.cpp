// Dequantization against ggml-common.h's block layouts, with scales and quants chosen so that
// every product and sum is exact in float: each element's value is then the formula's, whatever
// the order of operations. Bit-for-bit agreement with ggml's own to_float on quantized and
// random blocks is tests/io/gguf_ggml_check.py's (ctest cli.gguf_ggml).
#include "runtime/dequantize.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

using attn::runtime::dequantize;
using attn::runtime::DType;
using attn::runtime::TensorView;

namespace {

using Bytes = std::vector<std::byte>;

void put16(Bytes& b, std::size_t at, std::uint16_t v) {
    std::memcpy(b.data() + at, &v, 2);
}
void put8(Bytes& b, std::size_t at, int v) {
    b[at] = static_cast<std::byte>(v & 0xff);
}
int byte_at(const Bytes& b, std::size_t at) {
    return std::to_integer<int>(b[at]);
}

constexpr std::uint16_t kHalfHalf = 0x3800;      // 0.5
constexpr std::uint16_t kHalfTwo = 0x4000;       // 2
constexpr std::uint16_t kHalfMinusOne = 0xBC00;  // -1
constexpr std::uint16_t kHalfQuarter = 0x3400;   // 0.25

std::vector<float> run(DType t, const Bytes& b, std::size_t n) {
    std::vector<float> y(n);
    dequantize(t, b, y);
    return y;
}

/// 6-bit scale sc and min mn of sub-block j packed as get_scale_min_k4 reads them.
void pack_scale_min(Bytes& b, std::size_t at, int j, int sc, int mn) {
    if (j < 4) {
        put8(b, at + j, (byte_at(b, at + j) & 0xC0) | sc);
        put8(b, at + j + 4, (byte_at(b, at + j + 4) & 0xC0) | mn);
    } else {
        put8(b, at + j + 4, (sc & 0xF) | ((mn & 0xF) << 4));
        put8(b, at + j - 4, byte_at(b, at + j - 4) | ((sc >> 4) << 6));
        put8(b, at + j, byte_at(b, at + j) | ((mn >> 4) << 6));
    }
}

}  // namespace

TEST_CASE("dequantize: Q8_0 is q d, Q4_0 (q - 8) d, Q4_1 q d + m") {
    Bytes q8(34);
    put16(q8, 0, kHalfHalf);
    for (int j = 0; j < 32; ++j) put8(q8, 2 + j, j * 8 - 128);
    const auto y8 = run(DType::Q8_0, q8, 32);
    for (int j = 0; j < 32; ++j) CHECK(y8[j] == (j * 8 - 128) * 0.5f);

    Bytes q4(18);  // element j: low nibble of byte j; element j + 16: its high nibble
    put16(q4, 0, kHalfTwo);
    for (int j = 0; j < 16; ++j) put8(q4, 2 + j, j | ((15 - j) << 4));
    const auto y40 = run(DType::Q4_0, q4, 32);
    for (int j = 0; j < 16; ++j) {
        CHECK(y40[j] == (j - 8) * 2.0f);
        CHECK(y40[j + 16] == (7 - j) * 2.0f);
    }

    Bytes q41(20);
    put16(q41, 0, kHalfHalf);
    put16(q41, 2, kHalfMinusOne);
    for (int j = 0; j < 16; ++j) put8(q41, 4 + j, j | ((15 - j) << 4));
    const auto y41 = run(DType::Q4_1, q41, 32);
    for (int j = 0; j < 16; ++j) {
        CHECK(y41[j] == j * 0.5f - 1);
        CHECK(y41[j + 16] == (15 - j) * 0.5f - 1);
    }
}

TEST_CASE("dequantize: Q5_0 and Q5_1 take element j's fifth bit from bit j of qh") {
    const std::uint32_t qh = 0xA5C3'0F96u;
    for (const DType t : {DType::Q5_0, DType::Q5_1}) {
        const bool with_min = t == DType::Q5_1;
        Bytes b(with_min ? 24 : 22);
        put16(b, 0, kHalfQuarter);
        if (with_min) put16(b, 2, kHalfTwo);
        const std::size_t h = with_min ? 4 : 2, qs = h + 4;
        std::memcpy(b.data() + h, &qh, 4);
        for (int j = 0; j < 16; ++j) put8(b, qs + j, ((3 * j) & 15) | (((5 * j + 1) & 15) << 4));
        const auto y = run(t, b, 32);
        for (int e = 0; e < 32; ++e) {
            const int j = e % 16;
            const int low = e < 16 ? (3 * j) & 15 : (5 * j + 1) & 15;
            const int q = low | static_cast<int>(((qh >> e) & 1) << 4);
            const float want = with_min ? q * 0.25f + 2 : (q - 16) * 0.25f;
            CHECK_MESSAGE(y[e] == want, dtype_name(t), " element ", e);
        }
    }
}

TEST_CASE("dequantize: Q4_K and Q5_K are (d sc) q - dmin mn over 8 sub-blocks of 32") {
    for (const DType t : {DType::Q4_K, DType::Q5_K}) {
        const bool five = t == DType::Q5_K;
        Bytes b(five ? 176 : 144);
        put16(b, 0, kHalfTwo);   // d
        put16(b, 2, kHalfHalf);  // dmin
        const int sc[8] = {1, 63, 17, 40, 5, 33, 62, 48}, mn[8] = {0, 2, 63, 31, 16, 47, 1, 59};
        for (int j = 0; j < 8; ++j) pack_scale_min(b, 4, j, sc[j], mn[j]);
        const std::size_t qh = 16, qs = five ? 48 : 16;
        for (int l = 0; l < 32 && five; ++l) put8(b, qh + l, l * 37 + 11);
        for (int i = 0; i < 128; ++i) put8(b, qs + i, i * 29 + 3);
        const auto y = run(t, b, 256);
        for (int e = 0; e < 256; ++e) {
            // Element e: sub-block s = e / 32, in the 32 bytes of qs for s / 2, nibble s % 2.
            const int s = e / 32, l = e % 32, byte = byte_at(b, qs + 32 * (s / 2) + l);
            int q = s % 2 == 0 ? byte & 15 : byte >> 4;
            if (five) q += ((byte_at(b, qh + l) >> s) & 1) * 16;
            CHECK_MESSAGE(y[e] == 2.0f * sc[s] * q - 0.5f * mn[s], dtype_name(t), " element ", e);
        }
    }
}

TEST_CASE("dequantize: Q6_K is d sc (q - 32) over 16 sub-blocks of 16") {
    Bytes b(210);
    for (int i = 0; i < 128; ++i) put8(b, i, i * 53 + 7);               // ql
    for (int i = 0; i < 64; ++i) put8(b, 128 + i, i * 91 + 5);          // qh
    for (int i = 0; i < 16; ++i) put8(b, 192 + i, (i * 13) % 64 - 32);  // scales
    put16(b, 208, kHalfQuarter);
    const auto y = run(DType::Q6_K, b, 256);
    for (int e = 0; e < 256; ++e) {
        // Half n = e / 128 uses ql[64 n ..], qh[32 n ..]; within it, k = (e % 128) / 32.
        const int n = e / 128, k = (e % 128) / 32, l = e % 32;
        const int ql = byte_at(b, 64 * n + l + 32 * (k & 1));
        const int low = k < 2 ? ql & 15 : ql >> 4;
        const int high = (byte_at(b, 128 + 32 * n + l) >> (2 * k)) & 3;
        const int sc = static_cast<std::int8_t>(byte_at(b, 192 + 8 * n + l / 16 + 2 * k));
        CHECK_MESSAGE(y[e] == 0.25f * sc * ((low | (high << 4)) - 32), "element ", e);
    }
}

TEST_CASE("dequantize: F16 as ggml widens it (a signalling NaN made quiet), BF16 as it is") {
    Bytes h(8);
    put16(h, 0, 0x3C00);  // 1
    put16(h, 2, 0x0001);  // 2^-24
    put16(h, 4, 0x7C01);  // a signalling NaN: quiet, its payload kept
    put16(h, 6, 0xFC00);  // -inf
    const auto y = run(DType::F16, h, 4);
    CHECK(y[0] == 1.0f);
    CHECK(y[1] == 0x1p-24f);
    CHECK(std::bit_cast<std::uint32_t>(y[2]) == 0x7FC02000u);
    CHECK(std::bit_cast<std::uint32_t>(y[3]) == 0xFF800000u);
    // TensorView's widening (safetensors' F16 too) keeps it signalling; no arithmetic differs.
    CHECK(std::bit_cast<std::uint32_t>(attn::runtime::half_to_float(0x7C01)) == 0x7F802000u);

    Bytes bf(4);
    put16(bf, 0, 0x7F81);  // a signalling NaN, kept as it is
    put16(bf, 2, 0xC0A0);  // -5
    const auto z = run(DType::BF16, bf, 2);
    CHECK(std::bit_cast<std::uint32_t>(z[0]) == 0x7F810000u);
    CHECK(z[1] == -5.0f);
}

TEST_CASE("dequantize: sizes that are not whole blocks are refused naming the type") {
    std::vector<float> y(32);
    CHECK_THROWS_WITH_AS(dequantize(DType::Q4_K, Bytes(144), y),
                         "32 elements of Q4_K from 144 bytes: not whole blocks of 256 elements in "
                         "144 bytes",
                         std::invalid_argument);
    CHECK_THROWS_AS(dequantize(DType::Q8_0, Bytes(33), y), std::invalid_argument);
}

TEST_CASE("tensor view: quantized elements widened in any range, as floats and doubles") {
    // Three Q4_0 blocks with scales 1, 2, 0.5: element 32 b + j.
    Bytes b(3 * 18);
    const std::uint16_t scales[3] = {0x3C00, kHalfTwo, kHalfHalf};
    for (int k = 0; k < 3; ++k) {
        put16(b, 18 * k, scales[k]);
        for (int j = 0; j < 16; ++j) put8(b, 18 * k + 2 + j, (j + k) % 16 | (((j * 7) % 16) << 4));
    }
    const TensorView v{DType::Q4_0, {2, 48}, b};
    std::vector<float> all(96);
    v.to_float(all);
    CHECK(all == run(DType::Q4_0, b, 96));
    const std::pair<int, int> ranges[] = {{0, 96}, {5, 3}, {30, 40}, {64, 32}, {95, 1}};
    for (const auto& [first, count] : ranges) {
        std::vector<float> part(count);
        std::vector<double> wide(count);
        v.to_float(part, first);
        v.to_double(wide, first);
        for (int i = 0; i < count; ++i) {
            CHECK(part[i] == all[first + i]);
            CHECK(wide[i] == all[first + i]);
        }
    }
    CHECK(v.at(33) == all[33]);
    std::vector<float> scratch;
    CHECK(std::vector<float>(v.floats(scratch).begin(), v.floats(scratch).end()) == all);
    std::vector<float> past(2);
    CHECK_THROWS_AS(v.to_float(past, 95), std::out_of_range);
    CHECK(attn::runtime::dtype_name(DType::Q6_K) == "Q6_K");
}
