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

// Row i (n keys) of masked scores s and weights w into p.
template <class T>
void reduce_row(std::size_t i, std::size_t n, const T* s, const T* w, Partial& p) {
    std::size_t end = n;  // keys past the last nonzero weight (a causal row's) add nothing
    while (end > 1 && w[end - 1] == T(0)) --end;
    std::size_t top = 0;  // j* of the largest weight
    double sum = 0, distance = 0;
    for (std::size_t j = 0; j < end; ++j) {
        const double v = w[j];
        sum += v;
        distance += v * static_cast<double>(i > j ? i - j : j - i);
        if (w[j] > w[top]) top = j;
    }
    double entropy = 0;
    if (w[top] > 0) {
        const double s_top = s[top];
        for (std::size_t j = 0; j < end; ++j)
            if (w[j] > 0)
                entropy += static_cast<double>(w[j]) * (s_top - static_cast<double>(s[j]));
        entropy -= std::log(static_cast<double>(w[top])) * sum;
    } else if (std::isnan(static_cast<double>(w[top])) || std::isnan(sum)) {
        entropy = std::numeric_limits<double>::quiet_NaN();  // a NaN row stays NaN
    }
    p.entropy += entropy;
    p.distance += distance;
    p.first += w[0];
    p.self += w[i];
    if (i >= 1) p.previous += w[i - 1];
    if (!p.offsets.empty()) {
        double* out = p.offsets.data() + (n - 1 - i);  // o = j - i at j - i + n - 1
        for (std::size_t j = 0; j < end; ++j) out[j] += w[j];
    }
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

std::uint64_t streamed_summary_bytes(std::size_t n, std::size_t value_bytes) {
    const char* what = "the streamed summaries";
    const std::uint64_t block = std::min(kStreamRows, n);
    return runtime::checked_add(
        runtime::checked_product({2, block, n, value_bytes}, what),
        runtime::checked_product({thread_limit() + 1, 2 * n, sizeof(double)}, what), what);
}

template HeadSummary stream_head_summary(const LayerRows<float>&, std::size_t, std::size_t,
                                         std::size_t, bool);
template HeadSummary stream_head_summary(const LayerRows<double>&, std::size_t, std::size_t,
                                         std::size_t, bool);

}  // namespace attn::model
