#include "attn/parallel.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "attn/attention.hpp"

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

TEST_CASE("parallel_for: attention is bit-identical on one thread and on several") {
    const std::size_t n = 300, d = 16;
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
}
