// The one place attn starts threads: a parallel loop over independent ranges, bounded by a
// process-wide limit. configure_threads sets that limit and OpenBLAS's pool together.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace attn {

/// Threads a parallel_for may use; 0 = every core. Set once, before computing.
void set_thread_limit(std::size_t threads);
std::size_t thread_limit();

namespace runtime {
/// The process's thread count, set once before computing: parallel_for's limit and OpenBLAS's
/// pool both become `threads` (0 = every core). Returns the count now in force (>= 1).
std::size_t configure_threads(std::size_t threads);
}  // namespace runtime

/// Calls body(begin, end) over [0, n) split into contiguous ranges, one per thread, using
/// at most thread_limit() threads and only as many as give each at least `grain` items.
/// Ranges are disjoint: body may write to per-item outputs without locks.
template <class Body>
void parallel_for(std::size_t n, std::size_t grain, Body body) {
    const std::size_t by_size = grain > 0 ? n / grain : n;
    const std::size_t threads = std::clamp<std::size_t>(by_size, 1, thread_limit());
    if (threads == 1) {
        if (n > 0) body(std::size_t{0}, n);
        return;
    }
    const std::size_t per = (n + threads - 1) / threads;
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(
            [&body, t, per, n] { body(std::min(n, t * per), std::min(n, (t + 1) * per)); });
    body(std::size_t{0}, std::min(n, per));
}

}  // namespace attn
