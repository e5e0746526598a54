// Benchmark driver (not a test; compiled by tests/bench/attend.sh on request) for the fused
// kernel of src/attn/attention/tiled.hpp: Q, K, V (n, d) filled from a cheap generator, the
// context computed once, its time and 4 n^2 d / time printed.
// Usage: tiled_attention_bench N D THREADS [causal] [float|double]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attn/attention/tiled.hpp"
#include "runtime/parallel.hpp"

template <class T>
int run(std::size_t n, std::size_t d, bool causal) {
    std::vector<T> q(n * d), k(n * d), v(n * d), out(n * d);
    std::uint64_t s = 88172645463325252ull;
    for (auto* m : {&q, &k, &v})
        for (T& x : *m) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            x = static_cast<T>(double(s >> 11) * 0x1p-53 * 2.0 - 1.0);
        }
    attn::TiledOptions o;
    o.causal = causal;
    const auto t0 = std::chrono::steady_clock::now();
    attn::tiled_attention<T>({q.data(), n, d, d}, {k.data(), n, d, d}, {v.data(), n, d, d},
                             out.data(), d, o);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double check = 0;
    for (T x : out) check += x;
    std::printf("kernel %s  n=%zu d=%zu threads=%zu%s: %.3f s  %.2f GFLOP/s  (checksum %.6g)\n",
                attn::tiled_kernel().c_str(), n, d, attn::thread_limit(), causal ? " causal" : "",
                secs, 4.0 * double(n) * double(n) * double(d) / secs / 1e9, check);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s N D THREADS [causal] [float|double]\n", argv[0]);
        return 2;
    }
    const std::size_t n = std::strtoull(argv[1], nullptr, 10),
                      d = std::strtoull(argv[2], nullptr, 10);
    attn::set_thread_limit(std::strtoull(argv[3], nullptr, 10));
    const bool causal = argc > 4 && std::string(argv[4]) == "causal";
    if (argc > 5 && std::string(argv[5]) == "double") return run<double>(n, d, causal);
    return run<float>(n, d, causal);
}
