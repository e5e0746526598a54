#include "runtime/parallel.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attn/attention/reference.hpp"

TEST_CASE("parallel_for: every index once, whatever the limit and grain") {
    for (std::size_t limit : {1u, 2u, 3u, 8u})
        for (std::size_t n : {0u, 1u, 5u, 1000u, 1001u})
            for (std::size_t grain : {0u, 1u, 10u, 5000u}) {
                attn::set_thread_limit(limit);
                std::vector<std::atomic<int>> seen(n);
                std::atomic<std::size_t> calls{0};
                attn::parallel_for(n, grain, [&](std::size_t lo, std::size_t hi) {
                    ++calls;
                    for (std::size_t i = lo; i < hi; ++i) ++seen[i];
                });
                for (std::size_t i = 0; i < n; ++i) CHECK(seen[i] == 1);
                CHECK(calls <= limit);
            }
    attn::set_thread_limit(0);
    CHECK(attn::thread_limit() >= 1);
}

TEST_CASE("parallel_for: ranges are contiguous, disjoint and cover 0 .. n-1 in order") {
    attn::set_thread_limit(4);
    const std::size_t n = 1003;
    std::vector<std::size_t> lo_of(4, n + 1), hi_of(4, 0);
    std::atomic<std::size_t> calls{0};
    attn::parallel_for(n, 1, [&](std::size_t lo, std::size_t hi) {
        const std::size_t t = lo / 251;  // ceil(1003 / 4) = 251 items a thread
        lo_of[t] = lo, hi_of[t] = hi;
        ++calls;
    });
    attn::set_thread_limit(0);
    CHECK(calls == 4);
    CHECK(lo_of == std::vector<std::size_t>{0, 251, 502, 753});
    CHECK(hi_of == std::vector<std::size_t>{251, 502, 753, 1003});
}

TEST_CASE("parallel_for: an exception in any range reaches the caller after all have run") {
    attn::set_thread_limit(4);
    for (std::size_t bad : {0u, 2u}) {  // the caller's range, another thread's range
        std::atomic<int> ran{0};
        try {
            attn::parallel_for(400, 1, [&](std::size_t lo, std::size_t) {
                ++ran;
                if (lo / 100 == bad) throw std::runtime_error("range " + std::to_string(bad));
            });
            FAIL("nothing was thrown");
        } catch (const std::runtime_error& e) {
            CHECK(std::string(e.what()) == "range " + std::to_string(bad));
        }
        CHECK(ran == 4);
    }
    attn::set_thread_limit(0);
}

TEST_CASE("overlap: both tasks run, on two threads when allowed, in order on one") {
    for (std::size_t limit : {1u, 2u}) {
        attn::set_thread_limit(limit);
        std::vector<int> order;
        std::mutex m;
        std::thread::id first_id, second_id;
        attn::runtime::overlap(
            [&] {
                first_id = std::this_thread::get_id();
                const std::lock_guard lock(m);
                order.push_back(1);
            },
            [&] {
                second_id = std::this_thread::get_id();
                const std::lock_guard lock(m);
                order.push_back(2);
            });
        REQUIRE(order.size() == 2);
        CHECK(first_id == std::this_thread::get_id());
        if (limit == 1) {
            CHECK(order == std::vector<int>{1, 2});
            CHECK(second_id == std::this_thread::get_id());
        } else {
            CHECK(second_id != std::this_thread::get_id());
        }
    }
    attn::set_thread_limit(0);
}

TEST_CASE("parallel_for: attention is bit-identical on one thread and on several") {
    // n rows of softmax split into at least 4 ranges: the rows of each thread differ.
    const std::size_t n = 1024, d = 16;
    REQUIRE(n / attn::softmax_rows_per_thread(n) >= 4);
    auto make = [&](double phase) {
        auto m = xt::xtensor<float, 2>::from_shape({n, d});
        for (std::size_t k = 0; k < m.size(); ++k)
            m.data()[k] = float(std::sin(phase * double(k + 1)));
        return m;
    };
    const auto Q = make(0.37), K = make(1.3), V = make(2.1);
    attn::MaskOptions causal;
    causal.causal = true;
    attn::set_thread_limit(1);
    const auto one = attn::scaled_dot_product_attention(Q, K, V, causal);
    attn::set_thread_limit(4);
    const auto four = attn::scaled_dot_product_attention(Q, K, V, causal);
    attn::set_thread_limit(0);
    CHECK(std::memcmp(one.weights.data(), four.weights.data(), n * n * sizeof(float)) == 0);
    CHECK(std::memcmp(one.context.data(), four.context.data(), n * d * sizeof(float)) == 0);
    // Every row was written: it sums to 1 and query i gives key i + 1 nothing.
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(xt::sum(xt::row(four.weights, i))() == doctest::Approx(1.0).epsilon(1e-5));
        if (i + 1 < n) CHECK(four.weights(i, i + 1) == 0.0f);
    }
}
