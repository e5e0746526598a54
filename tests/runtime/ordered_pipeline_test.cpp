#include "runtime/ordered_pipeline.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/parallel.hpp"

namespace {

/// take() over 0 .. count - 1.
struct Counter {
    std::size_t next = 0, count;
    std::optional<std::size_t> operator()() {
        return next < count ? std::optional<std::size_t>(next++) : std::nullopt;
    }
};

}  // namespace

TEST_CASE("ordered_pipeline: results used in take's order, each once, whatever the workers") {
    for (std::size_t workers : {0u, 1u, 2u, 3u, 8u})
        for (std::size_t count : {0u, 1u, 2u, 17u, 200u}) {
            std::vector<std::size_t> used;
            attn::runtime::ordered_pipeline(
                workers, Counter{0, count},
                [](std::size_t i) {
                    // later tasks finish first: the order comes from the pipeline
                    std::this_thread::sleep_for(std::chrono::microseconds((i * 37) % 5 * 100));
                    return i * i;
                },
                [&](std::size_t&& r) { used.push_back(r); });
            REQUIRE(used.size() == count);
            for (std::size_t i = 0; i < count; ++i) CHECK(used[i] == i * i);
        }
}

TEST_CASE("ordered_pipeline: a task computes alone, at most 2 workers results wait") {
    attn::set_thread_limit(4);
    std::atomic<std::size_t> made{0}, limits{0};
    std::size_t used = 0, most_ahead = 0;
    attn::runtime::ordered_pipeline(
        3, Counter{0, 100},
        [&](std::size_t i) {
            limits += attn::thread_limit();
            ++made;
            return i;
        },
        [&](std::size_t&& i) {
            CHECK(i == used);
            ++used;
            most_ahead = std::max(most_ahead, made.load() - used);
            std::this_thread::sleep_for(std::chrono::microseconds(200));  // a slow consumer
        });
    CHECK(used == 100);
    CHECK(limits == 100);  // thread_limit() 1 in every task
    CHECK(most_ahead <= 2 * 3);
    CHECK(attn::thread_limit() == 4);  // the calling thread's limit unchanged
    attn::set_thread_limit(0);
}

TEST_CASE("ordered_pipeline: the earliest task's exception, after the tasks before it are used") {
    for (std::size_t workers : {1u, 2u, 4u}) {
        std::vector<std::size_t> used;
        // task 5 fails slowly, task 9 at once: the serial loop's error is task 5's
        const auto make = [](std::size_t i) {
            if (i == 5) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                throw std::runtime_error("task 5");
            }
            if (i == 9) throw std::runtime_error("task 9");
            return i;
        };
        try {
            attn::runtime::ordered_pipeline(workers, Counter{0, 50}, make,
                                            [&](std::size_t&& i) { used.push_back(i); });
            FAIL("no exception");
        } catch (const std::runtime_error& e) {
            CHECK(std::string(e.what()) == "task 5");
        }
        CHECK(used == std::vector<std::size_t>{0, 1, 2, 3, 4});
    }
    // take's own exception, in its place
    std::size_t calls = 0;
    std::vector<std::size_t> used;
    const auto take = [&]() -> std::optional<std::size_t> {
        if (calls == 3) throw std::invalid_argument("line 4");
        return calls++;
    };
    CHECK_THROWS_WITH_AS(
        attn::runtime::ordered_pipeline(
            2, take, [](std::size_t i) { return i; }, [&](std::size_t&& i) { used.push_back(i); }),
        "line 4", std::invalid_argument);
    CHECK(used == std::vector<std::size_t>{0, 1, 2});
}
