#include "runtime/parallel.hpp"

#include <atomic>

#include "runtime/blas.hpp"
#include "runtime/ordered_pipeline.hpp"

namespace attn {

namespace {
std::atomic<std::size_t> g_limit{0};
thread_local bool t_serial = false;  // a SerialThread is alive on this thread
}  // namespace

void set_thread_limit(std::size_t threads) {
    g_limit = threads;
}

std::size_t thread_limit() {
    if (t_serial) return 1;
    const std::size_t limit = g_limit;
    if (limit > 0) return limit;
    const unsigned cores = std::thread::hardware_concurrency();
    return cores > 0 ? cores : 1;
}

std::size_t runtime::configure_threads(std::size_t threads) {
    set_thread_limit(threads);
    const std::size_t count = thread_limit();
    blas::set_threads(static_cast<int>(count));
    return count;
}

runtime::SerialThread::SerialThread() : was_(t_serial) {
    t_serial = true;
}

runtime::SerialThread::~SerialThread() {
    t_serial = was_;
}

runtime::SerialBlas::SerialBlas() {
    blas::set_threads(1);
}

runtime::SerialBlas::~SerialBlas() {
    blas::set_threads(static_cast<int>(thread_limit()));
}

}  // namespace attn
