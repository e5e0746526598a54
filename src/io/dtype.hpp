// The element type of an output array: what text formats round to and what npy stores.
// int64 holds integers (bucket ids, token ids, exact counts): values still arrive as double,
// exact below 2^53 in magnitude, and writers convert them (npy "<i8", text without a point).
#pragma once

#include <cstddef>
#include <string_view>

namespace attn::io {

enum class Dtype { float32, float64, int64 };

/// NumPy's descr for the dtype: "<f4", "<f8" or "<i8" (little-endian).
constexpr std::string_view numpy_descr(Dtype t) {
    return t == Dtype::float32 ? "<f4" : t == Dtype::float64 ? "<f8" : "<i8";
}
constexpr std::string_view dtype_name(Dtype t) {
    return t == Dtype::float32 ? "float32" : t == Dtype::float64 ? "float64" : "int64";
}
constexpr std::size_t item_size(Dtype t) {
    return t == Dtype::float32 ? 4 : 8;
}

}  // namespace attn::io
