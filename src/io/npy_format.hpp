// The pieces of the .npy format (npy.hpp) that its writer (npy.cpp) and its reader
// (npy_reader.cpp) share: constants of the preamble, little-endian loads and stores, shapes
// as Python tuples, and byte sizes that refuse to overflow.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace attn::io::npy_detail {

inline constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kPreambleV1 = 10;    // magic, version, uint16 header length
constexpr std::size_t kPreambleV2 = 12;    // magic, version, uint32 header length
constexpr std::size_t kAlign = 64;         // numpy.lib.format.ARRAY_ALIGN
constexpr std::size_t kGrowthDigits = 21;  // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS
// numpy refuses headers over 10000 bytes unless told to trust the file; attn allows more
// (a header must hold the shape) but bounds what a lying header length can make it read.
constexpr std::uint64_t kMaxHeaderSize = std::uint64_t{1} << 20;
constexpr std::size_t kChunkBytes = std::size_t{1} << 16;  // conversion and read pieces

// Little-endian stores and loads of IEEE floats, independent of the host's byte order.
template <class Float, class Bits>
void store_le(char* dst, Float v) {
    const auto bits = std::bit_cast<Bits>(v);
    for (std::size_t b = 0; b < sizeof(Bits); ++b)
        dst[b] = static_cast<char>((bits >> (8 * b)) & 0xFFu);
}

template <class Float, class Bits>
Float load_le(const char* src) {
    Bits bits = 0;
    for (std::size_t b = 0; b < sizeof(Bits); ++b)
        bits |= static_cast<Bits>(static_cast<unsigned char>(src[b])) << (8 * b);
    return std::bit_cast<Float>(bits);
}

// out = start * prod(dims); false when that overflows 64 bits (a zero dim makes it 0).
inline bool checked_product(const std::vector<std::size_t>& dims, std::uint64_t& out,
                            std::uint64_t start = 1) {
    if (std::find(dims.begin(), dims.end(), std::size_t{0}) != dims.end()) {
        out = 0;
        return true;
    }
    out = start;
    for (const std::size_t d : dims) {
        if (out > std::numeric_limits<std::uint64_t>::max() / d) return false;
        out *= d;
    }
    return true;
}

}  // namespace attn::io::npy_detail
