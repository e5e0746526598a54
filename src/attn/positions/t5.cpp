#include "attn/positions/t5.hpp"

#include "attn/positions/parameter_error.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <quadmath.h>

namespace attn::positions {

namespace {

__extension__ typedef __float128 Quad;

}  // namespace

void validate(const T5Buckets& t) {
    const std::int64_t least = t.bidirectional ? 4 : 2;
    if (t.num_buckets < least)
        throw ParameterError("num_buckets",
                             std::to_string(t.num_buckets) + " is below " + std::to_string(least) +
                                 " (" + (t.bidirectional ? "bidirectional" : "causal") + ")");
    const std::int64_t exact = t.bidirectional ? t.num_buckets / 4 : t.num_buckets / 2;
    if (t.max_distance <= exact)
        throw ParameterError("max_distance", std::to_string(t.max_distance) +
                                                 " is not greater than the exact range " +
                                                 std::to_string(exact) + " of " +
                                                 std::to_string(t.num_buckets) + " buckets");
}

std::int64_t t5_bucket(std::int64_t relative, const T5Buckets& t) {
    std::int64_t buckets = t.num_buckets, id = 0, distance;
    if (t.bidirectional) {
        buckets /= 2;
        if (relative > 0) id = buckets;
        distance = relative < 0 ? -relative : relative;
    } else {
        distance = relative < 0 ? -relative : 0;
    }
    const std::int64_t exact = buckets / 2;
    if (distance < exact) return id + distance;
    // torch: log of a float32 quotient (correctly rounded here), divided by the float32
    // rounding of the double log(D / E), times B' - E in float32, truncated toward zero.
    const float ratio = static_cast<float>(distance) / static_cast<float>(exact);
    const float log_ratio = static_cast<float>(logq(static_cast<Quad>(ratio)));
    const float scale = static_cast<float>(
        std::log(static_cast<double>(t.max_distance) / static_cast<double>(exact)));
    const float steps = (log_ratio / scale) * static_cast<float>(buckets - exact);
    const std::int64_t large = exact + static_cast<std::int64_t>(steps);
    return id + std::min(large, buckets - 1);
}

void t5_bucket_rows(const T5Buckets& t, std::size_t n, std::size_t first, std::size_t count,
                    std::int64_t* out) {
    validate(t);
    for (std::size_t k = 0; k < count; ++k) {
        const auto i = static_cast<std::int64_t>(first + k);
        for (std::size_t j = 0; j < n; ++j)
            out[k * n + j] = t5_bucket(static_cast<std::int64_t>(j) - i, t);
    }
}

}  // namespace attn::positions
