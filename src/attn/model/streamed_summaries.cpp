#include "attn/model/streamed_summaries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "runtime/memory_budget.hpp"
#include "runtime/parallel.hpp"

namespace attn::model {

namespace {

// Sums over queries of head_stats' five terms, and the offsets' sums (2n - 1, or empty).
struct Partial {
    double entropy = 0, distance = 0, first = 0, previous = 0, self = 0;
    std::vector<double> offsets;
};

// Four doubles, one AVX2 register (two SSE2 ones in the default clone).
using Double4 = double __attribute__((vector_size(32)));

template <class T>
[[gnu::always_inline]] inline void widen4(const T* x, Double4& out) {
    out = Double4{static_cast<double>(x[0]), static_cast<double>(x[1]), static_cast<double>(x[2]),
                  static_cast<double>(x[3])};
}
// Row i (n keys) of masked scores s and weights w into p: two passes over the row, the first
// for w* (the largest weight, at its first index j*) and the keys past which every weight is 0
// (a causal row's j > i), the second summing in four double lanes.
template <class T>
[[gnu::always_inline]] inline void reduce_row_body(std::size_t i, std::size_t n, const T* s,
                                                   const T* w, Partial& p) {
    std::size_t end = n;
    if (i + 1 < n) {
        unsigned nonzero = 0;
        for (std::size_t j = i + 1; j < n; ++j) nonzero |= w[j] != T(0);
        if (nonzero == 0) end = i + 1;
    }
    T top_w = w[0];
    for (std::size_t j = 1; j < end; ++j) top_w = w[j] > top_w ? w[j] : top_w;
    std::size_t top = 0;
    while (top < end && !(w[top] == top_w)) ++top;
    if (top == end) top = 0;  // a NaN row
    const bool positive = top_w > T(0);
    const double s_top = positive ? static_cast<double>(s[top]) : 0.0;
    const std::size_t full = end / 4 * 4;
    Double4 sum{}, distance{}, entropy{};
    const Double4 at_i = {double(i), double(i), double(i), double(i)}, zero{};
    const Double4 s_top4 = {s_top, s_top, s_top, s_top};
    Double4 keys = {0.0, 1.0, 2.0, 3.0};
    const Double4 step = {4.0, 4.0, 4.0, 4.0};
    for (std::size_t j = 0; j < full; j += 4, keys += step) {
        Double4 v, scores;
        widen4(w + j, v);
        sum += v;
        const Double4 d = at_i - keys;
        distance += v * (d > zero ? d : -d);
        if (positive) {
            widen4(s + j, scores);
            entropy += v > zero ? v * (s_top4 - scores) : zero;
        }
    }
    double row_sum = sum[0] + sum[1] + sum[2] + sum[3];
    double row_distance = distance[0] + distance[1] + distance[2] + distance[3];
    double row_entropy = entropy[0] + entropy[1] + entropy[2] + entropy[3];
    for (std::size_t j = full; j < end; ++j) {
        const double v = w[j];
        row_sum += v;
        row_distance += v * static_cast<double>(i > j ? i - j : j - i);
        if (positive && w[j] > T(0)) row_entropy += v * (s_top - static_cast<double>(s[j]));
    }
    if (positive)
        row_entropy -= std::log(static_cast<double>(top_w)) * row_sum;
    else if (std::isnan(static_cast<double>(top_w)) || std::isnan(row_sum))
        row_entropy = std::numeric_limits<double>::quiet_NaN();  // a NaN row stays NaN
    else
        row_entropy = 0;
    p.entropy += row_entropy;
    p.distance += row_distance;
    p.first += w[0];
    p.self += w[i];
    if (i >= 1) p.previous += w[i - 1];
    if (!p.offsets.empty()) {
        double* out = p.offsets.data() + (n - 1 - i);  // o = j - i at j - i + n - 1
        for (std::size_t j = 0; j < end; ++j) out[j] += static_cast<double>(w[j]);
    }
}

// One clone per instruction set, chosen when the program starts.
[[gnu::target_clones("avx2", "default")]] void reduce_row(std::size_t i, std::size_t n,
                                                          const float* s, const float* w,
                                                          Partial& p) {
    reduce_row_body(i, n, s, w, p);
}
[[gnu::target_clones("avx2", "default")]] void reduce_row(std::size_t i, std::size_t n,
                                                          const double* s, const double* w,
                                                          Partial& p) {
    reduce_row_body(i, n, s, w, p);
}

}  // namespace

template <class T>
HeadSummary stream_head_summary(const LayerRows<T>& rows, std::size_t layer, std::size_t head,
                                std::size_t n, bool offsets) {
    const std::size_t block = std::min(kStreamRows, n);
    std::vector<T> s(block * n), w(block * n);  // (block, n) each
    Partial total;
    if (offsets) total.offsets.assign(2 * n - 1, 0.0);
    std::mutex mutex;
    for (std::size_t r0 = 0; r0 < n; r0 += block) {
        const std::size_t count = std::min(block, n - r0);
        ScoreRows<T> out;
        out.masked = s.data();
        out.weights = w.data();
        out.stride = n;
        rows.rows(head, r0, count, out);
        // rows split among threads, each summing its own Partial, added under the lock
        parallel_for(count, 8, [&](std::size_t b, std::size_t e) {
            Partial p;
            if (offsets) p.offsets.assign(2 * n - 1, 0.0);
            for (std::size_t r = b; r < e; ++r)
                reduce_row(r0 + r, n, s.data() + r * n, w.data() + r * n, p);
            const std::lock_guard<std::mutex> lock(mutex);
            total.entropy += p.entropy;
            total.distance += p.distance;
            total.first += p.first;
            total.previous += p.previous;
            total.self += p.self;
            for (std::size_t k = 0; k < p.offsets.size(); ++k) total.offsets[k] += p.offsets[k];
        });
    }
    HeadSummary out;
    const double queries = static_cast<double>(n);
    out.stats = HeadStats{layer,
                          head,
                          total.entropy / queries,
                          total.distance / queries,
                          total.first / queries,
                          n > 1 ? total.previous / static_cast<double>(n - 1) : 0.0,
                          total.self / queries};
    out.offsets = std::move(total.offsets);
    for (std::size_t k = 0; k < out.offsets.size(); ++k) {
        const std::size_t distance = k >= n - 1 ? k - (n - 1) : (n - 1) - k;
        out.offsets[k] /= static_cast<double>(n - distance);
    }
    return out;
}

template HeadSummary stream_head_summary(const LayerRows<float>&, std::size_t, std::size_t,
                                         std::size_t, bool);
template HeadSummary stream_head_summary(const LayerRows<double>&, std::size_t, std::size_t,
                                         std::size_t, bool);

}  // namespace attn::model
