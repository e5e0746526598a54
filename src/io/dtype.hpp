// The element type of an output array: what text formats round to and what npy stores.
// int64 holds integers (bucket ids, token ids, exact counts): values still arrive as double,
// exact below 2^53 in magnitude, and writers convert them (npy "<i8", text without a point).
// bfloat16 has no numpy type: npy stores it as "<f4", each value a bfloat16 value exactly.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>

#include "runtime/reduced_float.hpp"

namespace attn::io {

enum class Dtype { float32, float64, int64, bfloat16, float16 };

/// NumPy's descr for the dtype: "<f4", "<f8", "<i8", "<f2" (little-endian); bfloat16 "<f4".
constexpr std::string_view numpy_descr(Dtype t) {
    switch (t) {
        case Dtype::float32:
        case Dtype::bfloat16:
            return "<f4";
        case Dtype::float64:
            return "<f8";
        case Dtype::float16:
            return "<f2";
        case Dtype::int64:
            break;
    }
    return "<i8";
}
constexpr std::string_view dtype_name(Dtype t) {
    switch (t) {
        case Dtype::float32:
            return "float32";
        case Dtype::float64:
            return "float64";
        case Dtype::bfloat16:
            return "bfloat16";
        case Dtype::float16:
            return "float16";
        case Dtype::int64:
            break;
    }
    return "int64";
}
constexpr std::size_t item_size(Dtype t) {
    return t == Dtype::float16 ? 2 : t == Dtype::float32 || t == Dtype::bfloat16 ? 4 : 8;
}
/// bfloat16 and float16 as the rounding's format; nullopt for the others.
constexpr std::optional<runtime::Reduced> reduced_format(Dtype t) {
    if (t == Dtype::bfloat16) return runtime::Reduced::bfloat16;
    if (t == Dtype::float16) return runtime::Reduced::float16;
    return std::nullopt;
}
/// The largest finite value of the float the dtype computes in: float32's, bfloat16's or
/// float16's; nullopt for float64 (a double's own) and int64.
inline std::optional<double> largest_finite(Dtype t) {
    if (const auto f = reduced_format(t)) return runtime::largest(*f);
    if (t == Dtype::float32) return double(std::numeric_limits<float>::max());
    return std::nullopt;
}
/// v rounded once to the dtype (float32, bfloat16, float16; float64 and int64 unchanged).
inline double round_to_dtype(Dtype t, double v) {
    if (t == Dtype::float32) return static_cast<float>(v);
    if (const auto f = reduced_format(t)) return runtime::round_to(*f, v);
    return v;
}

}  // namespace attn::io
