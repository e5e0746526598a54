// Independent tasks (one prompt's forward each) spread over the threads, their results used in
// the order the tasks were taken: sums reduced in that order are the serial loop's, bit for bit,
// whatever the thread count, as long as each task's own result does not depend on it.
//
//   ordered_pipeline(workers, take, make, use):
//     take()       -> std::optional<Item>, called under a lock, in order; nullopt: no more
//     make(item&)  -> Result, on a worker thread, which computes alone: thread_limit() is 1 in
//                     it
//     use(Result&&)   on the calling thread, in take's order
// OpenBLAS's pool is 1 thread while the pipeline runs, also with one worker: how many threads
// OpenBLAS splits a product over changes its last bits (Debian's 0.3.21, e.g. (40 x 256) x
// (256 x 1024) on 1 and 2 threads), and a task's numbers must not depend on the workers.
// At most 2 workers results are computed ahead of use: memory is `workers` tasks' working sets
// and 2 workers results, whatever the number of items. An exception from take, make or use
// stops the pipeline and is rethrown after every worker has finished: the earliest task's, so
// the error is the serial loop's. workers <= 1: the serial loop on the calling thread (its
// thread_limit() as it is: attn's own loops give the same numbers on any thread count).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace attn::runtime {

/// While alive, thread_limit() is 1 on the thread that made it.
class SerialThread {
  public:
    SerialThread();
    ~SerialThread();
    SerialThread(const SerialThread&) = delete;
    SerialThread& operator=(const SerialThread&) = delete;

  private:
    bool was_;
};

/// While alive, OpenBLAS's pool runs products on the calling thread (1 thread); the count of
/// configure_threads comes back after.
class SerialBlas {
  public:
    SerialBlas();
    ~SerialBlas();
    SerialBlas(const SerialBlas&) = delete;
    SerialBlas& operator=(const SerialBlas&) = delete;
};

template <class Take, class Make, class Use>
void ordered_pipeline(std::size_t workers, Take take, Make make, Use use) {
    using Item = typename std::invoke_result_t<Take&>::value_type;
    using Result = std::invoke_result_t<Make&, Item&>;
    const SerialBlas blas;
    if (workers <= 1) {
        while (auto item = take()) use(make(*item));
        return;
    }
    struct Slot {
        std::optional<Result> value;
        std::exception_ptr error;
    };
    const std::size_t window = 2 * workers;
    std::mutex mutex;
    std::condition_variable changed;
    std::map<std::size_t, Slot> done;  // finished tasks not yet used, by index
    std::size_t taken = 0, used = 0;
    std::optional<std::size_t> total;  // the tasks, once take has ended
    bool stop = false;
    const auto work = [&] {
        const SerialThread serial;
        for (;;) {
            std::optional<Item> item;
            std::size_t index = 0;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stop || total || taken < used + window; });
                if (stop || total) return;
                index = taken++;
                try {
                    item = take();
                } catch (...) {
                    done[index].error = std::current_exception();
                }
                if (!item) {
                    total = done.count(index) ? index + 1 : index;
                    changed.notify_all();
                    return;
                }
            }
            Slot slot;
            try {
                slot.value.emplace(make(*item));
            } catch (...) {
                slot.error = std::current_exception();
            }
            {
                const std::lock_guard lock(mutex);
                done[index] = std::move(slot);
            }
            changed.notify_all();
        }
    };
    std::exception_ptr error;
    {
        std::vector<std::jthread> pool;
        for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);
        for (;;) {
            Slot slot;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return done.count(used) || (total && used == *total); });
                const auto it = done.find(used);
                if (it == done.end()) break;  // every task used
                slot = std::move(it->second);
                done.erase(it);
                ++used;
            }
            changed.notify_all();
            try {
                if (slot.error) std::rethrow_exception(slot.error);
                use(std::move(*slot.value));
            } catch (...) {
                error = std::current_exception();
                const std::lock_guard lock(mutex);
                stop = true;
                break;
            }
        }
        changed.notify_all();
    }  // joined
    if (error) std::rethrow_exception(error);
}

}  // namespace attn::runtime
