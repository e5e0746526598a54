// CRC-32 as zip, gzip and PNG use it (CRC-32/ISO-HDLC): reflected polynomial 0xEDB88320,
// initial value and final xor 0xFFFFFFFF. Check value: crc32("123456789") = 0xCBF43926.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace attn::io {

/// A running CRC-32 over bytes fed in any number of pieces.
class Crc32 {
  public:
    void update(const void* data, std::size_t size);
    std::uint32_t value() const { return ~state_; }

  private:
    std::uint32_t state_ = 0xFFFFFFFFu;  // pre-inverted, as the algorithm runs
};

/// CRC-32 of one whole byte string.
std::uint32_t crc32(std::string_view bytes);

}  // namespace attn::io
