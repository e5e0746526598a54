// T5's relative-position buckets (Raffel et al. 2020), as Hugging Face's
// T5Attention._relative_position_bucket computes them, bucket ids identical to its torch code.
// For r = j - i (key minus query), B = num_buckets, D = max_distance:
//   bidirectional: B' = B / 2, offset B' when r > 0, distance |r|
//   causal:        B' = B,     offset 0,            distance max(-r, 0) (future keys: 0)
//   E = B' / 2 (the exact range): distance < E -> its own bucket, distance;
//   else min(E + trunc(fl32(fl32(ln fl32(distance / E)) / fl32(ln(D / E))) * (B' - E)), B' - 1)
// where fl32 rounds to float32 as torch does (its float32 log is correctly rounded on these
// arguments, checked against torch for B <= 256, D <= 4096, |r| <= 5000).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn::positions {

struct T5Buckets {
    std::int64_t num_buckets = 32;
    std::int64_t max_distance = 128;
    bool bidirectional = true;
};

/// Throws ParameterError (parameter_error.hpp) naming "num_buckets" (B >= 4 bidirectional, >= 2
/// causal) or "max_distance" (D greater than the exact range E: B/4 bidirectional, B/2 causal).
void validate(const T5Buckets& t);

/// The bucket id of relative position r = j - i, in [0, B).
std::int64_t t5_bucket(std::int64_t relative, const T5Buckets& t);

/// Rows first .. first+count-1 of the n x n bucket matrix, buckets[i, j] = t5_bucket(j - i),
/// into out (count x n, row-major). Validates t.
void t5_bucket_rows(const T5Buckets& t, std::size_t n, std::size_t first, std::size_t count,
                    std::int64_t* out);

}  // namespace attn::positions
