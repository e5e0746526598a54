// A tensor as it lies in a checkpoint: its bytes (little-endian, C order), dtype and shape,
// with no copy. Model code reads F32 tensors in place and widens F16/BF16 ones, one tensor at
// a time, into a buffer it owns; widening is exact (every F16 and BF16 value is a float).
// ggml's quantized types (GGUF files) are blocks of B consecutive elements of a row (B = 32
// or 256, rows a whole number of blocks): they are widened as ggml's dequantize_row_* does
// (runtime/dequantize.hpp), a range of elements at a time.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace attn::runtime {

static_assert(std::endian::native == std::endian::little, "tensors are read little-endian");

enum class DType { F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K };

/// Elements of one block: 1 for F32, F16, BF16; 32 for Q8_0 .. Q5_1; 256 for the K types.
constexpr std::size_t dtype_block(DType t) {
    switch (t) {
        case DType::F32:
        case DType::F16:
        case DType::BF16:
            return 1;
        case DType::Q4_K:
        case DType::Q5_K:
        case DType::Q6_K:
            return 256;
        default:
            return 32;
    }
}
/// Bytes of one block (of one element for F32, F16, BF16), as ggml-common.h lays them out:
/// F32 4, F16 2, BF16 2, Q8_0 34, Q4_0 18, Q4_1 20, Q5_0 22, Q5_1 24, Q4_K 144, Q5_K 176,
/// Q6_K 210.
constexpr std::size_t dtype_size(DType t) {
    switch (t) {
        case DType::F32:
            return 4;
        case DType::F16:
        case DType::BF16:
            return 2;
        case DType::Q8_0:
            return 34;
        case DType::Q4_0:
            return 18;
        case DType::Q4_1:
            return 20;
        case DType::Q5_0:
            return 22;
        case DType::Q5_1:
            return 24;
        case DType::Q4_K:
            return 144;
        case DType::Q5_K:
            return 176;
        case DType::Q6_K:
            return 210;
    }
    return 0;
}
/// The safetensors spelling ("F32", "F16", "BF16"), ggml's in capitals for the others
/// ("Q8_0", "Q4_K", ...).
std::string_view dtype_name(DType t);

/// IEEE binary16 bits -> float, exactly (subnormals, infinities and NaN included).
float half_to_float(std::uint16_t bits);
/// bfloat16 bits -> float, exactly (the high half of a float's bits).
inline float bfloat16_to_float(std::uint16_t bits) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

struct TensorView {
    DType dtype = DType::F32;
    std::vector<std::uint64_t> shape;  // empty: a scalar
    std::span<const std::byte> bytes;  // numel() / dtype_block(dtype) * dtype_size(dtype) bytes

    /// Product of the shape (1 for a scalar).
    std::uint64_t numel() const;
    /// shape[axis] counted from the end for a negative axis; std::out_of_range past the rank.
    std::uint64_t dim(int axis) const;

    /// True when the tensor can be read as floats where it lies: F32 and 4-byte aligned.
    bool is_f32_in_place() const;
    /// The F32 values where they lie (no copy); std::logic_error unless is_f32_in_place().
    std::span<const float> f32() const;

    /// Element i widened to float / double.
    float at(std::uint64_t i) const;
    /// Elements [first, first + out.size()) widened exactly into out (quantized blocks as
    /// ggml's dequantize_row_*, whole or in part); std::out_of_range when the range passes
    /// numel().
    void to_float(std::span<float> out, std::uint64_t first = 0) const;
    void to_double(std::span<double> out, std::uint64_t first = 0) const;

    /// The values as floats: f32() when in place, else widened into scratch (resized to
    /// numel()) and returned from there. One tensor at a time, no copy for F32.
    std::span<const float> floats(std::vector<float>& scratch) const;
};

}  // namespace attn::runtime
