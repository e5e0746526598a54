// A tensor as it lies in a checkpoint: its bytes (little-endian, C order), dtype and shape,
// with no copy. Model code reads F32 tensors in place and widens F16/BF16 ones, one tensor at
// a time, into a buffer it owns; widening is exact (every F16 and BF16 value is a float).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace attn::runtime {

static_assert(std::endian::native == std::endian::little, "tensors are read little-endian");

enum class DType { F32, F16, BF16 };

/// Bytes of one element: 4, 2, 2.
constexpr std::size_t dtype_size(DType t) {
    return t == DType::F32 ? 4 : 2;
}
/// The safetensors spelling: "F32", "F16", "BF16".
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
    std::span<const std::byte> bytes;  // numel() * dtype_size(dtype) bytes

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
    /// Elements [first, first + out.size()) widened exactly into out; std::out_of_range when
    /// the range passes numel().
    void to_float(std::span<float> out, std::uint64_t first = 0) const;
    void to_double(std::span<double> out, std::uint64_t first = 0) const;

    /// The values as floats: f32() when in place, else widened into scratch (resized to
    /// numel()) and returned from there. One tensor at a time, no copy for F32.
    std::span<const float> floats(std::vector<float>& scratch) const;
};

}  // namespace attn::runtime
