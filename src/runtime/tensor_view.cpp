#include "runtime/tensor_view.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "runtime/dequantize.hpp"

namespace attn::runtime {

std::string_view dtype_name(DType t) {
    switch (t) {
        case DType::F32:
            return "F32";
        case DType::F16:
            return "F16";
        case DType::BF16:
            return "BF16";
        case DType::Q8_0:
            return "Q8_0";
        case DType::Q4_0:
            return "Q4_0";
        case DType::Q4_1:
            return "Q4_1";
        case DType::Q5_0:
            return "Q5_0";
        case DType::Q5_1:
            return "Q5_1";
        case DType::Q4_K:
            return "Q4_K";
        case DType::Q5_K:
            return "Q5_K";
        case DType::Q6_K:
            return "Q6_K";
    }
    return "?";
}

// binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits. Normal: (1 + f/2^10) 2^(e-15);
// subnormal (e = 0): f 2^-24; e = 31: infinity (f = 0) or NaN (payload kept in the high bits).
float half_to_float(std::uint16_t bits) {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    std::uint32_t fraction = bits & 0x3ffu;
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (fraction << 13));
    if (exponent != 0)
        return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (fraction << 13));
    if (fraction == 0) return std::bit_cast<float>(sign);
    // Subnormal: shift the fraction up to a leading 1; each shift lowers the exponent.
    std::uint32_t e = 113;  // 2^-14 as a float exponent (127 - 14)
    while ((fraction & 0x400u) == 0) {
        fraction <<= 1;
        --e;
    }
    return std::bit_cast<float>(sign | (e << 23) | ((fraction & 0x3ffu) << 13));
}

std::uint64_t TensorView::numel() const {
    std::uint64_t n = 1;
    for (const auto s : shape) n *= s;
    return n;
}

std::uint64_t TensorView::dim(int axis) const {
    const int rank = static_cast<int>(shape.size());
    const int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        throw std::out_of_range("axis " + std::to_string(axis) + " of a rank-" +
                                std::to_string(rank) + " tensor");
    return shape[static_cast<std::size_t>(a)];
}

bool TensorView::is_f32_in_place() const {
    return dtype == DType::F32 && reinterpret_cast<std::uintptr_t>(bytes.data()) % 4 == 0;
}

std::span<const float> TensorView::f32() const {
    if (!is_f32_in_place())
        throw std::logic_error("tensor is not F32 in place (" + std::string(dtype_name(dtype)) +
                               ")");
    return {reinterpret_cast<const float*>(bytes.data()), static_cast<std::size_t>(numel())};
}

namespace {

// Quantized elements [first, first + out.size()): the blocks covering them widened 16 at a
// time into a buffer of 16 blocks, or straight into out when T is float and the blocks lie
// wholly inside the range.
template <class T>
void widen_blocks(const TensorView& t, std::span<T> out, std::uint64_t first) {
    const std::size_t B = dtype_block(t.dtype), S = dtype_size(t.dtype);
    if (t.numel() % B != 0 || t.bytes.size() != t.numel() / B * S)
        throw std::logic_error(std::to_string(t.bytes.size()) + " bytes for " +
                               std::to_string(t.numel()) + " elements of " +
                               std::string(dtype_name(t.dtype)));
    std::array<float, 16 * 256> buffer;
    std::uint64_t i = first;
    const std::uint64_t end = first + out.size();
    while (i < end) {
        const std::uint64_t block = i / B, skip = i - block * B;
        const std::uint64_t want = std::min<std::uint64_t>(end - i, 16 * B - skip);
        const std::uint64_t blocks = (skip + want + B - 1) / B;
        const auto bytes = t.bytes.subspan(block * S, blocks * S);
        T* dst = out.data() + (i - first);
        if constexpr (std::is_same_v<T, float>) {
            if (skip == 0 && want == blocks * B) {
                dequantize(t.dtype, bytes, {dst, want});
                i += want;
                continue;
            }
        }
        dequantize(t.dtype, bytes, {buffer.data(), blocks * B});
        for (std::uint64_t k = 0; k < want; ++k) dst[k] = static_cast<T>(buffer[skip + k]);
        i += want;
    }
}

template <class T>
void widen(const TensorView& t, std::span<T> out, std::uint64_t first) {
    if (first > t.numel() || out.size() > t.numel() - first)
        throw std::out_of_range("elements " + std::to_string(first) + ".." +
                                std::to_string(first + out.size()) + " of a tensor of " +
                                std::to_string(t.numel()));
    if (dtype_block(t.dtype) > 1) return widen_blocks(t, out, first);
    const std::byte* p = t.bytes.data() + first * dtype_size(t.dtype);
    switch (t.dtype) {
        case DType::F32:
            for (std::size_t i = 0; i < out.size(); ++i) {
                float v;
                std::memcpy(&v, p + 4 * i, 4);
                out[i] = static_cast<T>(v);
            }
            return;
        case DType::F16:
            for (std::size_t i = 0; i < out.size(); ++i) {
                std::uint16_t b;
                std::memcpy(&b, p + 2 * i, 2);
                out[i] = static_cast<T>(half_to_float(b));
            }
            return;
        case DType::BF16:
            for (std::size_t i = 0; i < out.size(); ++i) {
                std::uint16_t b;
                std::memcpy(&b, p + 2 * i, 2);
                out[i] = static_cast<T>(bfloat16_to_float(b));
            }
            return;
        default:
            return;  // the block types: widen_blocks
    }
}

}  // namespace

float TensorView::at(std::uint64_t i) const {
    float v;
    to_float({&v, 1}, i);
    return v;
}

void TensorView::to_float(std::span<float> out, std::uint64_t first) const {
    widen(*this, out, first);
}

void TensorView::to_double(std::span<double> out, std::uint64_t first) const {
    widen(*this, out, first);
}

std::span<const float> TensorView::floats(std::vector<float>& scratch) const {
    if (is_f32_in_place()) return f32();
    scratch.resize(static_cast<std::size_t>(numel()));
    to_float(scratch);
    return scratch;
}

}  // namespace attn::runtime
