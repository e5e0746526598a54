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
//            Grouped K/V: per query tile of bq rows, each packed key tile (d, bk) and its
//            value rows (bk, d) are read from memory once and then by every query head of the
//            group in turn while in L1/L2 (Kernel::query_tile_group: key tiles outer, heads
//            inner); K is packed once per group, not per head.
//   bias     one head with the score bias of a position scheme, built as attn::forward builds
//            it (positions::PositionScheme::bias): alibi (-m |i - j|, m = 1/16, computed in the
//            kernel from i and j) or t5 (relative[j - i], a table of 2n - 1 offsets from 32
//            buckets); "vs none" = its time over the same shape's without a bias, minus 1
//            ("cpu vs": of the least CPU times), the biases of a shape timed in turn, repetition
//            after repetition, so that a change of load falls on all of them. (RoPE rotates q and k
//            before the kernel: the kernel sees no difference; kernel.sh times it in the whole
//            process.)
// Each figure is the best of at least --runs runs and of as many more as fit in half a second
// (a single cold run of a few milliseconds may find the second core asleep). The ceiling is
// the best of 5 repetitions, measured before and after the kernel rows; the higher is used,
// so a slow ceiling run never flatters the kernel. Times on a loaded machine are only
// indicative: the load average is printed beside them.
//
// Usage: kernel_bench [--short] [--runs R] [--n N,...] [--d D,...] [--threads T,...]
//                     [--heads 1|32] [--causal no|yes] [--bias none,alibi,t5] [--ceiling]
//   --short: n = 4096 only, d = 64 and 128, every other setting (about a minute on 2 cores).
//   --bias: the biases timed for one head (default all three; 32/8 heads: none only).
//   32/8 heads are timed up to n = 16,384 unless --heads 32 is given (n = 65,536 takes about
//   half an hour).
//   --ceiling: only the ceiling table.
// Output: the kernel rows as they are measured on stderr; on stdout, the ceiling table, then
// every row against the higher ceiling.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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
#include "attn/positions/scheme.hpp"
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
    const std::size_t iters = 400'000'000 / (avx512 ? 16 : 12);
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

enum class Bias { none, alibi, t5 };
const char* const bias_names[] = {"none", "alibi", "t5"};

struct Config {
    std::size_t n, d, heads, kv_heads, threads;
    bool causal;
    Bias bias;
};

struct Timing {
    double wall, cpu;  // seconds; cpu: user + system of all threads (std::clock)
};

// The scheme whose bias(0) is the kernel's bias, made as attn::forward's caller makes it:
// ALiBi's slopes of 8 heads (head 3's, 1/16, is timed: near the middle of the usual slopes),
// or T5's table of 32 bidirectional buckets up to distance 128, drawn.
attn::positions::PositionScheme<float> scheme(Bias bias, std::size_t n) {
    attn::positions::SchemeConfig c;
    if (bias == Bias::none) return {};
    if (bias == Bias::alibi) {
        c.scheme = attn::positions::Scheme::alibi;
        c.n_heads = 8;
    } else {
        c.scheme = attn::positions::Scheme::t5;
        c.t5_table = xt::xtensor<double, 2>::from_shape({32, 1});
        std::vector<float> t(32);
        fill(t, 7);
        std::copy(t.begin(), t.end(), c.t5_table.begin());
    }
    return attn::positions::PositionScheme<float>(c, n);
}

// The kernel for every query head of one configuration, its inputs made once.
class Bench {
  public:
    explicit Bench(const Config& c)
        : c_(c),
          group_(c.heads / c.kv_heads),
          q_(c.n * c.d),
          out_(group_ * c.n * c.d),
          k_(c.kv_heads),
          v_(c.kv_heads),
          pos_(scheme(c.bias, c.n)),
          bias_(pos_.bias(c.bias == Bias::alibi ? 3 : 0)) {
        // One Q and one context buffer serve every query head (the work does not depend on
        // the values); K and V are distinct per key/value head.
        fill(q_, 1);
        for (std::size_t g = 0; g < c.kv_heads; ++g) {
            k_[g].resize(c.n * c.d), v_[g].resize(c.n * c.d);
            fill(k_[g], 2 + 2 * g), fill(v_[g], 3 + 2 * g);
        }
        o_.causal = c.causal;
    }
    const Config& config() const { return c_; }
    Timing run() {
        attn::set_thread_limit(c_.threads);
        // A group's query heads go through tiled_attention_group: its key tiles packed once
        // and read by every query head of the group while in cache.
        const std::vector<attn::MatrixRef<float>> qs(group_, {q_.data(), c_.n, c_.d, c_.d});
        std::vector<float*> outs(group_);
        for (std::size_t h = 0; h < group_; ++h) outs[h] = out_.data() + h * c_.n * c_.d;
        const std::clock_t c0 = std::clock();
        const auto t0 = Clock::now();
        for (std::size_t g = 0; g < c_.kv_heads; ++g) {
            const attn::MatrixRef<float> kg{k_[g].data(), c_.n, c_.d, c_.d};
            const attn::MatrixRef<float> vg{v_[g].data(), c_.n, c_.d, c_.d};
            if (group_ == 1)
                attn::tiled_attention<float>(qs[0], kg, vg, out_.data(), c_.d, o_, bias_);
            else
                attn::tiled_attention_group<float>(qs, kg, vg, outs, c_.d, o_, bias_);
        }
        const double wall = seconds_since(t0);
        return {wall, double(std::clock() - c0) / CLOCKS_PER_SEC};
    }

  private:
    Config c_;
    std::size_t group_;
    std::vector<float> q_, out_;
    std::vector<std::vector<float>> k_, v_;
    attn::positions::PositionScheme<float> pos_;
    attn::AttentionBias<float> bias_;
    attn::TiledOptions o_;
};

// The configurations of one shape (its biases) timed in turn, repetition after repetition,
// so that a change of load falls on all of them: each one's run of least wall time (and,
// apart, of least CPU time) of at least `runs` and of as many as fit in half a second.
std::vector<std::pair<Timing, double>> time_shape(std::vector<Bench>& benches, int runs) {
    std::vector<Timing> best(benches.size(), Timing{1e300, 0});
    std::vector<double> best_cpu(benches.size(), 1e300);
    const auto start = Clock::now();
    for (int r = 0; r < runs || (seconds_since(start) < 0.5 && r < 200); ++r)
        for (std::size_t b = 0; b < benches.size(); ++b) {
            const Timing t = benches[b].run();
            if (t.wall < best[b].wall) best[b] = t;
            best_cpu[b] = std::min(best_cpu[b], t.cpu);
        }
    std::vector<std::pair<Timing, double>> out;
    for (std::size_t b = 0; b < benches.size(); ++b) out.push_back({best[b], best_cpu[b]});
    return out;
}

std::vector<std::string> split(const char* s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(item);
    return out;
}

std::vector<std::size_t> parse_list(const char* s) {
    std::vector<std::size_t> out;
    for (const std::string& item : split(s))
        out.push_back(std::strtoull(item.c_str(), nullptr, 10));
    return out;
}

bool parse_biases(const char* s, std::vector<Bias>& out) {
    out.clear();
    for (const std::string& item : split(s)) {
        int b = 0;
        while (b < 3 && item != bias_names[b]) ++b;
        if (b == 3) return false;
        out.push_back(Bias(b));
    }
    return !out.empty();
}

// The ceilings of both instruction sets by thread count (index 1 and 2), best of 5 each.
struct Ceilings {
    Rate avx2[3], avx512[3];
};

Ceilings measure_ceilings(bool avx512) {
    Ceilings c{};
    for (std::size_t t : {std::size_t(1), std::size_t(2)}) {
        c.avx2[t] = ceiling(false, t, 5);
        if (avx512) c.avx512[t] = ceiling(true, t, 5);
    }
    return c;
}

void print_ceilings(const Ceilings& before, const Ceilings* after, bool avx512) {
    std::printf("%-28s %8s %10s %10s %10s %12s\n", "FMA ceiling (best of 5)", "threads", "before",
                "after", "GFLOP/s", "GFLOP/cpu-s");
    auto row = [&](const char* label, const Rate* b, const Rate* a, std::size_t t) {
        const Rate hi{std::max(b[t].wall, a ? a[t].wall : 0), std::max(b[t].cpu, a ? a[t].cpu : 0)};
        std::printf("%-28s %8zu %10.1f %10.1f %10.1f %12.1f\n", label, t, b[t].wall,
                    a ? a[t].wall : 0.0, hi.wall, hi.cpu);
    };
    for (std::size_t t : {std::size_t(1), std::size_t(2)}) {
        row("AVX2 (12 chains x 8)", before.avx2, after ? after->avx2 : nullptr, t);
        if (avx512)
            row("AVX-512 (16 chains x 16)", before.avx512, after ? after->avx512 : nullptr, t);
    }
    if (avx512)
        std::printf("(AVX-512 / AVX2 near 2: full-width 512-bit FMA units; near 1: half)\n");
}

struct Row {
    Config c;
    Timing tm;
    double vs_none;      // wall time over the same shape's without a bias, minus 1; NaN for none
    double vs_none_cpu;  // the same of the least CPU times
};

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> ns = {4096, 16384, 65536}, ds = {64, 128}, threads = {1, 2};
    int runs = 1;
    bool shortlist = false, ceiling_only = false, heads_given = false;
    std::vector<std::pair<std::size_t, std::size_t>> groups = {{1, 1}, {32, 8}};
    std::vector<bool> causals = {false, true};
    std::vector<Bias> biases = {Bias::none, Bias::alibi, Bias::t5};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool more = i + 1 < argc;
        if (a == "--short")
            shortlist = true;
        else if (a == "--ceiling")
            ceiling_only = true;
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
            heads_given = true,
            groups = {argv[++i] == std::string("1") ? std::pair<std::size_t, std::size_t>{1, 1}
                                                    : std::pair<std::size_t, std::size_t>{32, 8}};
        else if (a == "--causal" && more &&
                 (argv[i + 1] == std::string("no") || argv[i + 1] == std::string("yes")))
            causals = {argv[++i] == std::string("yes")};
        else if (a == "--bias" && more && parse_biases(argv[i + 1], biases))
            ++i;
        else {
            std::fprintf(stderr,
                         "usage: %s [--short] [--runs R] [--n N,...] [--d D,...] "
                         "[--threads T,...] [--heads 1|32] [--causal no|yes] "
                         "[--bias none,alibi,t5] [--ceiling]\n",
                         argv[0]);
            return 2;
        }
    }
    if (shortlist) ns = {4096};

    std::printf("load average before: %s  (other work on the machine lowers every figure)\n",
                load_average().c_str());
    std::printf("kernel instruction set: %s\n\n", attn::tiled_kernel().c_str());
    const bool avx512 = __builtin_cpu_supports("avx512f");
    const Ceilings before = measure_ceilings(avx512);
    if (ceiling_only) {
        print_ceilings(before, nullptr, avx512);
        return 0;
    }

    std::vector<Row> table;
    std::fprintf(stderr, "%-7s %4s %6s %7s %7s %9s %9s\n", "n", "d", "heads", "causal", "bias",
                 "threads", "seconds");
    for (std::size_t n : ns)
        for (std::size_t d : ds)
            for (auto [heads, kv] : groups)
                for (bool causal : causals)
                    for (std::size_t t : threads) {
                        // 32 heads above n = 16,384 take minutes each: only when asked for.
                        if (heads > 1 && n > 16384 && !heads_given) continue;
                        // A per-head bias (ALiBi's slopes) takes tiled_attention per head:
                        // timed for one head only.
                        std::vector<Bench> benches;
                        for (Bias b : biases)
                            if (heads == 1 || b == Bias::none)
                                benches.emplace_back(Config{n, d, heads, kv, t, causal, b});
                        const auto times = time_shape(benches, runs);
                        // The overheads against none of the same shape, by wall and CPU time.
                        double none = 0, none_cpu = 0;
                        for (std::size_t x = 0; x < benches.size(); ++x) {
                            const Config& c = benches[x].config();
                            const auto [tm, cpu] = times[x];
                            if (c.bias == Bias::none) none = tm.wall, none_cpu = cpu;
                        }
                        for (std::size_t x = 0; x < benches.size(); ++x) {
                            const Config& c = benches[x].config();
                            const auto [tm, cpu] = times[x];
                            const bool vs = c.bias != Bias::none && none > 0;
                            table.push_back({c, tm, vs ? tm.wall / none - 1 : std::nan(""),
                                             vs ? cpu / none_cpu - 1 : std::nan("")});
                            std::fprintf(stderr, "%-7zu %4zu %3zu/%-2zu %7s %7s %9zu %9.3f\n", n, d,
                                         heads, kv, causal ? "yes" : "no", bias_names[int(c.bias)],
                                         t, tm.wall);
                        }
                    }
    const Ceilings after = measure_ceilings(avx512);
    print_ceilings(before, &after, avx512);
    // By thread count: the higher ceiling of the kernel's instruction set.
    std::vector<Rate> peak(3, Rate{0, 0});
    for (std::size_t t : {std::size_t(1), std::size_t(2)}) {
        const bool k512 = attn::tiled_kernel() == "avx512";
        const Rate b = k512 ? before.avx512[t] : before.avx2[t];
        const Rate a = k512 ? after.avx512[t] : after.avx2[t];
        peak[t] = {std::max(b.wall, a.wall), std::max(b.cpu, a.cpu)};
    }

    std::printf(
        "\n(cpu: user + system seconds of all threads; on a loaded machine the wall time "
        "also waits for a core)\n");
    std::printf("%-7s %4s %6s %7s %5s %7s %9s %9s %9s %8s %12s %8s %8s %8s\n", "n", "d", "heads",
                "causal", "bias", "threads", "seconds", "cpu", "GFLOP/s", "ceiling", "GFLOP/cpu-s",
                "ceiling", "vs none", "cpu vs");
    for (const Row& row : table) {
        const Config& c = row.c;
        const double flops = 4.0 * double(c.n) * double(c.n) * double(c.d) * double(c.heads) *
                             (c.causal ? 0.5 : 1.0);
        const double g = flops / row.tm.wall / 1e9;
        const Rate p = c.threads < peak.size() ? peak[c.threads] : Rate{0, 0};
        const double gc = flops / std::max(row.tm.cpu, 1e-9) / 1e9;
        char vs[16] = "-", vs_cpu[16] = "-";
        if (!std::isnan(row.vs_none)) std::snprintf(vs, sizeof vs, "%+.1f%%", 100 * row.vs_none);
        if (!std::isnan(row.vs_none_cpu))
            std::snprintf(vs_cpu, sizeof vs_cpu, "%+.1f%%", 100 * row.vs_none_cpu);
        std::printf(
            "%-7zu %4zu %3zu/%-2zu %7s %5s %7zu %9.3f %9.3f %9.1f %7.0f%% %12.1f %7.0f%% %8s %8s\n",
            c.n, c.d, c.heads, c.kv_heads, c.causal ? "yes" : "no", bias_names[int(c.bias)],
            c.threads, row.tm.wall, row.tm.cpu, g, p.wall > 0 ? 100 * g / p.wall : 0.0, gc,
            p.cpu > 0 ? 100 * gc / p.cpu : 0.0, vs, vs_cpu);
    }
    std::printf("\nload average after: %s\n", load_average().c_str());
    return 0;
}
