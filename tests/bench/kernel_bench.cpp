// Benchmark (not a test): the fused attention kernel of src/attn/attention/tiled.hpp against
// the FMA ceiling of the machine it runs on, in one run.
//
//   ceiling  independent FMA chains (no loads, no dependencies between chains) on AVX-512
//            (16 chains of 16 floats) and AVX2 (12 chains of 8 floats), 1 and 2 threads:
//            flops = 2 x lanes x chains x iterations. AVX-512 at twice AVX2 means full-width
//            512-bit units; at about AVX2's figure, 256-bit units taking each 512-bit FMA twice.
//   kernel   attn::tiled_attention on float32 Q (n, d) per query head, K and V (n, d) per
//            key/value head, query head h reading key/value head h / (H / G) (the heads of a
//            group through attn::tiled_attention_group); compute only (no files, no
//            projections). flops = 4 n^2 d per query head, half for causal.
// Each figure is the best of --runs runs. Times on a loaded machine are only indicative: the
// load average is printed beside them.
//
// Usage: kernel_bench [--short] [--runs R] [--n N,...] [--d D,...] [--threads T,...]
//                     [--heads 1|32] [--causal no|yes]
//   --short: n = 4096 only, d = 64 and 128, every other setting (about a minute on 2 cores).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attn/attention/tiled.hpp"
#include "runtime/parallel.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// 16 chains x 16 lanes x 2 flops per iteration.
__attribute__((target("avx512f,fma"))) float fma_chains_avx512(std::size_t iters) {
    __m512 acc[16];
    for (int c = 0; c < 16; ++c) acc[c] = _mm512_set1_ps(float(c) * 1e-3f);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (std::size_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
        for (int c = 0; c < 16; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    float out[16], sum = 0;
    for (int c = 0; c < 16; ++c) {
        _mm512_storeu_ps(out, acc[c]);
        for (float x : out) sum += x;
    }
    return sum;
}

// 12 chains x 8 lanes x 2 flops per iteration (12 of AVX2's 16 registers).
__attribute__((target("avx2,fma"))) float fma_chains_avx2(std::size_t iters) {
    __m256 acc[12];
    for (int c = 0; c < 12; ++c) acc[c] = _mm256_set1_ps(float(c) * 1e-3f);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (std::size_t i = 0; i < iters; ++i)
#pragma GCC unroll 12
        for (int c = 0; c < 12; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    float out[8];
    __m256 s = acc[0];
    for (int c = 1; c < 12; ++c) s = _mm256_add_ps(s, acc[c]);
    _mm256_storeu_ps(out, s);
    return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

// GFLOP/s of `threads` threads each running the chains, per wall second and per CPU second
// (user + system of all threads: what a core gives while it runs, less sensitive to other
// work on the machine); the best of `runs`.
struct Rate {
    double wall, cpu;
};

Rate ceiling(bool avx512, std::size_t threads, int runs) {
    const std::size_t iters = 200'000'000 / (avx512 ? 16 : 12);
    const double flops = double(threads) * double(iters) * (avx512 ? 16 * 16 * 2 : 12 * 8 * 2);
    Rate best{0, 0};
    for (int r = 0; r < runs; ++r) {
        std::vector<float> sink(threads);
        const std::clock_t c0 = std::clock();
        const auto t0 = Clock::now();
        std::vector<std::thread> pool;
        for (std::size_t t = 0; t < threads; ++t)
            pool.emplace_back(
                [&, t] { sink[t] = avx512 ? fma_chains_avx512(iters) : fma_chains_avx2(iters); });
        for (auto& th : pool) th.join();
        const double s = seconds_since(t0), cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        if (sink[0] == 12345.f) std::printf(" ");  // keeps the chains' results alive
        best.wall = std::max(best.wall, flops / s / 1e9);
        best.cpu = std::max(best.cpu, flops / cpu / 1e9);
    }
    return best;
}

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return a.empty() ? "unknown" : a + " " + b + " " + c;
}

void fill(std::vector<float>& x, std::uint64_t seed) {
    std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 88172645463325252ull;
    for (float& v : x) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        v = static_cast<float>(double(s >> 11) * 0x1p-53 * 2.0 - 1.0);
    }
}

struct Config {
    std::size_t n, d, heads, kv_heads, threads;
    bool causal;
};

struct Timing {
    double wall, cpu;  // seconds; cpu: user + system of all threads (std::clock)
};

// The kernel for every query head of `c`: the run of least wall time.
Timing time_kernel(const Config& c, int runs) {
    // One Q and one context buffer serve every query head (the work does not depend on the
    // values); K and V are distinct per key/value head.
    const std::size_t group = c.heads / c.kv_heads;
    std::vector<float> q(c.n * c.d), out(group * c.n * c.d);
    std::vector<std::vector<float>> k(c.kv_heads), v(c.kv_heads);
    fill(q, 1);
    for (std::size_t g = 0; g < c.kv_heads; ++g) {
        k[g].resize(c.n * c.d), v[g].resize(c.n * c.d);
        fill(k[g], 2 + 2 * g), fill(v[g], 3 + 2 * g);
    }
    attn::TiledOptions o;
    o.causal = c.causal;
    attn::set_thread_limit(c.threads);
    // A group's query heads go through tiled_attention_group: its key tiles packed once and
    // read by every query head of the group while in cache.
    const std::vector<attn::MatrixRef<float>> qs(group, {q.data(), c.n, c.d, c.d});
    std::vector<float*> outs(group);
    for (std::size_t h = 0; h < group; ++h) outs[h] = out.data() + h * c.n * c.d;
    Timing best{1e300, 0};
    for (int r = 0; r < runs; ++r) {
        const std::clock_t c0 = std::clock();
        const auto t0 = Clock::now();
        for (std::size_t g = 0; g < c.kv_heads; ++g) {
            const attn::MatrixRef<float> kg{k[g].data(), c.n, c.d, c.d};
            const attn::MatrixRef<float> vg{v[g].data(), c.n, c.d, c.d};
            if (group == 1)
                attn::tiled_attention<float>(qs[0], kg, vg, out.data(), c.d, o);
            else
                attn::tiled_attention_group<float>(qs, kg, vg, outs, c.d, o);
        }
        const double wall = seconds_since(t0);
        if (wall < best.wall) best = {wall, double(std::clock() - c0) / CLOCKS_PER_SEC};
    }
    return best;
}

std::vector<std::size_t> parse_list(const char* s) {
    std::vector<std::size_t> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(std::strtoull(item.c_str(), nullptr, 10));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> ns = {4096, 16384, 65536}, ds = {64, 128}, threads = {1, 2};
    int runs = 1;
    bool shortlist = false;
    std::vector<std::pair<std::size_t, std::size_t>> groups = {{1, 1}, {32, 8}};
    std::vector<bool> causals = {false, true};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool more = i + 1 < argc;
        if (a == "--short")
            shortlist = true;
        else if (a == "--runs" && more)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--n" && more)
            ns = parse_list(argv[++i]);
        else if (a == "--d" && more)
            ds = parse_list(argv[++i]);
        else if (a == "--threads" && more)
            threads = parse_list(argv[++i]);
        else if (a == "--heads" && more &&
                 (argv[i + 1] == std::string("1") || argv[i + 1] == std::string("32")))
            groups = {argv[++i] == std::string("1") ? std::pair<std::size_t, std::size_t>{1, 1}
                                                    : std::pair<std::size_t, std::size_t>{32, 8}};
        else if (a == "--causal" && more &&
                 (argv[i + 1] == std::string("no") || argv[i + 1] == std::string("yes")))
            causals = {argv[++i] == std::string("yes")};
        else {
            std::fprintf(stderr,
                         "usage: %s [--short] [--runs R] [--n N,...] [--d D,...] "
                         "[--threads T,...] [--heads 1|32] [--causal no|yes]\n",
                         argv[0]);
            return 2;
        }
    }
    if (shortlist) ns = {4096};

    std::printf("load average before: %s  (other work on the machine lowers every figure)\n",
                load_average().c_str());
    std::printf("kernel instruction set: %s\n\n", attn::tiled_kernel().c_str());
    const bool avx512 = __builtin_cpu_supports("avx512f");
    // By thread count: the ceiling of the kernel's instruction set, per wall and CPU second.
    std::vector<Rate> peak(3, Rate{0, 0});
    std::printf("%-28s %8s %10s %12s\n", "FMA ceiling", "threads", "GFLOP/s", "GFLOP/cpu-s");
    for (std::size_t t : {std::size_t(1), std::size_t(2)}) {
        const Rate c2 = ceiling(false, t, std::max(runs, 2));
        std::printf("%-28s %8zu %10.1f %12.1f\n", "AVX2 (12 chains x 8)", t, c2.wall, c2.cpu);
        Rate c5{0, 0};
        if (avx512) {
            c5 = ceiling(true, t, std::max(runs, 2));
            std::printf("%-28s %8zu %10.1f %12.1f\n", "AVX-512 (16 chains x 16)", t, c5.wall,
                        c5.cpu);
        }
        peak[t] = attn::tiled_kernel() == "avx512" ? c5 : c2;
    }
    if (avx512)
        std::printf("(AVX-512 / AVX2 near 2: full-width 512-bit FMA units; near 1: half)\n");

    std::printf(
        "\n(cpu: user + system seconds of all threads; on a loaded machine the wall time "
        "also waits for a core)\n");
    std::printf("%-7s %4s %6s %7s %7s %9s %9s %9s %8s %12s %8s\n", "n", "d", "heads", "causal",
                "threads", "seconds", "cpu", "GFLOP/s", "ceiling", "GFLOP/cpu-s", "ceiling");
    for (std::size_t n : ns)
        for (std::size_t d : ds)
            for (auto [heads, kv] : groups)
                for (bool causal : causals)
                    for (std::size_t t : threads) {
                        // 32 heads at the largest n take minutes each: only in a full run.
                        if (heads > 1 && n > 16384 && shortlist) continue;
                        const Config c{n, d, heads, kv, t, causal};
                        const Timing tm = time_kernel(c, runs);
                        const double s = tm.wall;
                        const double flops = 4.0 * double(n) * double(n) * double(d) *
                                             double(heads) * (causal ? 0.5 : 1.0);
                        const double g = flops / s / 1e9;
                        const Rate p = t < peak.size() ? peak[t] : Rate{0, 0};
                        const double gc = flops / std::max(tm.cpu, 1e-9) / 1e9;
                        std::printf(
                            "%-7zu %4zu %3zu/%-2zu %7s %7zu %9.3f %9.3f %9.1f %7.0f%% %12.1f "
                            "%7.0f%%\n",
                            n, d, heads, kv, causal ? "yes" : "no", t, s, tm.cpu, g,
                            p.wall > 0 ? 100 * g / p.wall : 0.0, gc,
                            p.cpu > 0 ? 100 * gc / p.cpu : 0.0);
                        std::fflush(stdout);
                    }
    std::printf("\nload average after: %s\n", load_average().c_str());
    return 0;
}
