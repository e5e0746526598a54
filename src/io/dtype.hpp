// The element type of an output array: what text formats round to and what npy stores.
#pragma once

#include <cstddef>
#include <string_view>

namespace attn::io {

enum class Dtype { float32, float64 };

/// NumPy's descr for the dtype: "<f4" or "<f8" (little-endian).
constexpr std::string_view numpy_descr(Dtype t) {
    return t == Dtype::float32 ? "<f4" : "<f8";
}
constexpr std::string_view dtype_name(Dtype t) {
    return t == Dtype::float32 ? "float32" : "float64";
}
constexpr std::size_t item_size(Dtype t) {
    return t == Dtype::float32 ? 4 : 8;
}

}  // namespace attn::io
