#include "runtime/dequantize.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace attn::runtime {

namespace {

using u8 = std::uint8_t;

std::uint16_t load16(const u8* p) {
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
std::uint32_t load32(const u8* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
// An fp16 scale: every binary16 value is a float, so the conversion is exact.
float half(const u8* p) {
    return half_to_float(load16(p));
}

// ---------------------------------------------------------------------------------------------
// One block each: x the block's bytes, y its B floats. The loops are the compiler's to
// vectorise; int -> float conversions are exact, each * and + rounds once.

// Q8_0: d (fp16), qs[32] (int8).
void q8_0(const u8* x, float* y) {
    const float d = half(x);
    const auto* qs = reinterpret_cast<const std::int8_t*>(x + 2);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(qs[j]) * d;
}

// Q4_0: d, qs[16]; element j is the low nibble of qs[j], element j + 16 the high one.
void q4_0(const u8* x, float* y) {
    const float d = half(x);
    const u8* qs = x + 2;
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
        y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
    }
}

// Q4_1: d, m, qs[16].
void q4_1(const u8* x, float* y) {
    const float d = half(x), m = half(x + 2);
    const u8* qs = x + 4;
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
        y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
    }
}

// Q5_0: d, qh (32 fifth bits, bit j of element j), qs[16].
void q5_0(const u8* x, float* y) {
    const float d = half(x);
    const std::uint32_t qh = load32(x + 2);
    const u8* qs = x + 6;
    for (int j = 0; j < 16; ++j) {
        const int h0 = static_cast<int>(((qh >> j) << 4) & 0x10);
        const int h1 = static_cast<int>((qh >> (j + 12)) & 0x10);
        y[j] = static_cast<float>(((qs[j] & 0x0F) | h0) - 16) * d;
        y[j + 16] = static_cast<float>(((qs[j] >> 4) | h1) - 16) * d;
    }
}

// Q5_1: d, m, qh, qs[16].
void q5_1(const u8* x, float* y) {
    const float d = half(x), m = half(x + 2);
    const std::uint32_t qh = load32(x + 4);
    const u8* qs = x + 8;
    for (int j = 0; j < 16; ++j) {
        const int h0 = static_cast<int>(((qh >> j) << 4) & 0x10);
        const int h1 = static_cast<int>((qh >> (j + 12)) & 0x10);
        y[j] = static_cast<float>((qs[j] & 0x0F) | h0) * d + m;
        y[j + 16] = static_cast<float>((qs[j] >> 4) | h1) * d + m;
    }
}

// The K types' 12 bytes of scales: sub-block j's 6-bit scale sc and min mn (get_scale_min_k4).
void scale_min(int j, const u8* s, int& sc, int& mn) {
    if (j < 4) {
        sc = s[j] & 63;
        mn = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
        mn = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// Q4_K: d, dmin, scales[12], qs[128]. Each 64 elements share 32 bytes of qs: low nibbles are
// sub-block 2i, high nibbles sub-block 2i + 1.
void q4_k(const u8* x, float* y) {
    const float d = half(x), dmin = half(x + 2);
    const u8* scales = x + 4;
    const u8* q = x + 16;
    for (int i = 0; i < 4; ++i, q += 32, y += 64) {
        int sc, mn;
        scale_min(2 * i, scales, sc, mn);
        const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(mn);
        scale_min(2 * i + 1, scales, sc, mn);
        const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(mn);
        for (int l = 0; l < 32; ++l) y[l] = d1 * static_cast<float>(q[l] & 0xF) - m1;
        for (int l = 0; l < 32; ++l) y[l + 32] = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
}

// Q5_K: d, dmin, scales[12], qh[32], qs[128]; sub-block 2i's fifth bits are bit 2i of qh[l],
// sub-block 2i + 1's bit 2i + 1.
void q5_k(const u8* x, float* y) {
    const float d = half(x), dmin = half(x + 2);
    const u8* scales = x + 4;
    const u8* qh = x + 16;
    const u8* ql = x + 48;
    for (int i = 0; i < 4; ++i, ql += 32, y += 64) {
        int sc, mn;
        scale_min(2 * i, scales, sc, mn);
        const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(mn);
        scale_min(2 * i + 1, scales, sc, mn);
        const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(mn);
        const int u1 = 1 << (2 * i), u2 = 2 << (2 * i);
        for (int l = 0; l < 32; ++l)
            y[l] = d1 * static_cast<float>((ql[l] & 0xF) + ((qh[l] & u1) ? 16 : 0)) - m1;
        for (int l = 0; l < 32; ++l)
            y[l + 32] = d2 * static_cast<float>((ql[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) - m2;
    }
}

// Q6_K: ql[128] (low 4 bits), qh[64] (high 2 bits), scales[16] (int8), d. Each 128 elements
// use 64 bytes of ql and 32 of qh; element l + 32 k of them takes nibble (k >= 2) of
// ql[l + 32 (k & 1)] and bits 2k, 2k + 1 of qh[l], with scale sc[l / 16 + 2 k].
void q6_k(const u8* x, float* y) {
    const u8* ql = x;
    const u8* qh = x + 128;
    const auto* sc = reinterpret_cast<const std::int8_t*>(x + 192);
    const float d = half(x + 208);
    for (int n = 0; n < 2; ++n, ql += 64, qh += 32, sc += 8, y += 128) {
        for (int l = 0; l < 32; ++l) {
            const int is = l / 16;
            const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
            y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
            y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
            y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
        }
    }
}

template <void (*Block)(const u8*, float*)>
void blocks_of(const u8* x, float* y, std::size_t count, std::size_t bytes, std::size_t elements) {
    for (std::size_t i = 0; i < count; ++i) Block(x + i * bytes, y + i * elements);
}

}  // namespace

void dequantize(DType t, std::span<const std::byte> blocks, std::span<float> out) {
    const std::size_t B = dtype_block(t), S = dtype_size(t);
    const std::size_t count = out.size() / B;
    if (out.size() % B != 0 || blocks.size() / S != count || blocks.size() % S != 0)
        throw std::invalid_argument(
            std::to_string(out.size()) + " elements of " + std::string(dtype_name(t)) + " from " +
            std::to_string(blocks.size()) + " bytes: not whole blocks of " + std::to_string(B) +
            " elements in " + std::to_string(S) + " bytes");
    const auto* x = reinterpret_cast<const u8*>(blocks.data());
    float* y = out.data();
    switch (t) {
        case DType::F32:
            if (count > 0) std::memcpy(y, x, 4 * count);
            return;
        case DType::F16:
            for (std::size_t i = 0; i < count; ++i) {
                // ggml's portable conversion scales by 2^-112: a NaN comes out quiet.
                const float v = half(x + 2 * i);
                y[i] =
                    v == v ? v : std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) | 0x400000u);
            }
            return;
        case DType::BF16:
            for (std::size_t i = 0; i < count; ++i) y[i] = bfloat16_to_float(load16(x + 2 * i));
            return;
        case DType::Q8_0:
            return blocks_of<q8_0>(x, y, count, S, B);
        case DType::Q4_0:
            return blocks_of<q4_0>(x, y, count, S, B);
        case DType::Q4_1:
            return blocks_of<q4_1>(x, y, count, S, B);
        case DType::Q5_0:
            return blocks_of<q5_0>(x, y, count, S, B);
        case DType::Q5_1:
            return blocks_of<q5_1>(x, y, count, S, B);
        case DType::Q4_K:
            return blocks_of<q4_k>(x, y, count, S, B);
        case DType::Q5_K:
            return blocks_of<q5_k>(x, y, count, S, B);
        case DType::Q6_K:
            return blocks_of<q6_k>(x, y, count, S, B);
    }
}

}  // namespace attn::runtime
