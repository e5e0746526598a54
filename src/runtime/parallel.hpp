// The one place attn starts threads: a parallel loop over independent ranges, bounded by a
// process-wide limit. configure_threads sets that limit and OpenBLAS's pool together.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
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
/// Ranges are disjoint: body may write to per-item outputs without locks. The calling thread
/// runs the first range. An exception thrown by any range is rethrown here, after every
/// thread has finished (the first one caught when several throw).
template <class Body>
void parallel_for(std::size_t n, std::size_t grain, Body body) {
    const std::size_t by_size = grain > 0 ? n / grain : n;
    const std::size_t threads = std::clamp<std::size_t>(by_size, 1, thread_limit());
    if (threads == 1) {
        if (n > 0) body(std::size_t{0}, n);
        return;
    }
    const std::size_t per = (n + threads - 1) / threads;
    std::exception_ptr error;
    std::mutex error_mutex;
    const auto range = [&](std::size_t t) {
        try {
            body(std::min(n, t * per), std::min(n, (t + 1) * per));
        } catch (...) {
            const std::lock_guard lock(error_mutex);
            if (!error) error = std::current_exception();
        }
    };
    {
        std::vector<std::jthread> pool;
        for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(range, t);
        range(0);
    }  // joined
    if (error) std::rethrow_exception(error);
}

namespace runtime {
/// first() and second() at once when the thread limit allows two threads (second on a new
/// thread), else first() then second(): e.g. writing one block while the next is computed.
template <class First, class Second>
void overlap(First first, Second second) {
    parallel_for(2, 1, [&](std::size_t begin, std::size_t end) {
        for (std::size_t task = begin; task < end; ++task) {
            if (task == 0)
                first();
            else
                second();
        }
    });
}
}  // namespace runtime

}  // namespace attn
