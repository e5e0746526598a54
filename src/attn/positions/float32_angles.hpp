// The chapter's own P: the book's PyTorch recipe, every float32 step correctly rounded.
//   e_j  = fl32(2j / d)                          (torch.arange(0, d, 2) / d in float32)
//   p_j  = fl32(fl32(base) ^ e_j)                (torch.pow in float32)
//   a_ij = fl32(fl32(i) / p_j)                   (float32 position over float32 power)
//   P[i, 2j] = fl32(sin a_ij),  P[i, 2j+1] = fl32(cos a_ij)
// fl32 = rounding to the nearest float32; sin/cos are those of the float32 angle, exactly,
// then rounded once. The exact closed form (positional_encoding) differs from this by up to
// 6.2e-5 at 1000 x 128; this matches the book's matrices to numpy's allclose wherever
// torch's pow is correctly rounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/positions/layout.hpp"

namespace attn::positions {

class Float32AngleEncoder {
  public:
    /// d >= 1, base > 1 and finite (rounded to float32 first, as torch does); throws
    /// std::invalid_argument naming "d" or "base" otherwise.
    explicit Float32AngleEncoder(std::size_t d, double base = 10000.0,
                                 Layout columns = Layout::interleaved);

    std::size_t dim() const { return d_; }
    /// p_j = fl32(base ^ fl32(2j/d)), j < ceil(d/2).
    float power(std::size_t j) const { return power_[j]; }
    /// a_ij = fl32(fl32(i) / p_j).
    float angle(std::int64_t i, std::size_t j) const;

    /// Rows for positions first .. first+count-1 into out, count x d row-major; each value is
    /// a float32 (held in a double).
    void fill(std::int64_t first, std::size_t count, double* out) const;

  private:
    std::size_t d_, pairs_;
    Layout columns_;  // interleaved [s0 c0 s1 c1 ...] (the book) or split; odd d: a last sine
    std::vector<float> power_;  // p_j, (pairs,)
};

/// sin and cos of a float32 angle, each correctly rounded to float32 (a fast double evaluation
/// when it decides the rounding, the exact double-double one otherwise).
void sincos_float(float a, float& sine, float& cosine);

}  // namespace attn::positions
