#!/usr/bin/env bash
# Benchmark (not a test): long inputs through a model. The 2-layer Llama-shaped checkpoint of
# tests/data/models/long_llama.py (width 512, 8 query heads and 2 key/value heads of 64,
# SwiGLU 1536, float32) at n = 8,192, 32,768 and 65,536 tokens (ids 0..9, so that 65,536 of
# them fit one command-line argument of 128 KiB), each n run twice in the same conditions:
#   next        `attend --model DIR --ids ... --show next` (the fused kernel, no n x n array)
#   summaries   `--show head_stats,offsets` (the fused forward, then each head's weights made
#               again a row block at a time and reduced as they are made)
# with their wall seconds, CPU seconds and peak resident memory (/usr/bin/time), and the
# attention's share of the machine's float32 FMA peak: the causal attention's flops, per head
# 2 n (n + 1) hd (q k^T and w v over the keys each query sees), over the whole run's seconds
# (a lower bound: the seconds include the projections, the MLP and the start), against the
# ceiling measured in the same run as tests/bench/model_forward.sh does (independent FMA chains
# per thread, AVX2 and, where the CPU has it, AVX-512, the faster).
# Usage: tests/bench/long_inputs.sh [path/to/attn]   Environment: NS="8192 32768 65536"
# THREADS=2
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ATTN=${1:-$HERE/../../build/release/attn}
NS=${NS:-8192 32768 65536}
THREADS=${THREADS:-2}
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PY" "$HERE/../data/models/long_llama.py" "$WORK/model"

cat >"$WORK/fma.cpp" <<'CPP'
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
constexpr long kIters = 100000000L / 10;
__attribute__((target("avx2,fma"))) void work256(float* sink) {
    __m256 a[10], b = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(1e-3f);
    for (int k = 0; k < 10; ++k) a[k] = _mm256_set1_ps(float(k));
    for (long i = 0; i < kIters; ++i) {
#pragma GCC unroll 10
        for (int k = 0; k < 10; ++k) a[k] = _mm256_fmadd_ps(a[k], b, c);
    }
    __m256 s = a[0];
    for (int k = 1; k < 10; ++k) s = _mm256_add_ps(s, a[k]);
    *sink = _mm256_cvtss_f32(s);
}
__attribute__((target("avx512f"))) void work512(float* sink) {
    __m512 a[10], b = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
    for (int k = 0; k < 10; ++k) a[k] = _mm512_set1_ps(float(k));
    for (long i = 0; i < kIters; ++i) {
#pragma GCC unroll 10
        for (int k = 0; k < 10; ++k) a[k] = _mm512_fmadd_ps(a[k], b, c);
    }
    __m512 s = a[0];
    for (int k = 1; k < 10; ++k) s = _mm512_add_ps(s, a[k]);
    *sink = _mm512_reduce_add_ps(s);
}
// GFLOP per wall second of the faster instruction set, all threads at once
int main(int argc, char** argv) {
    const int threads = std::atoi(argv[1]);
    double best = 0;
    for (int wide : {8, 16}) {
        if (wide == 16 && !__builtin_cpu_supports("avx512f")) continue;
        std::vector<float> sinks(threads);
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) pool.emplace_back(wide == 8 ? work256 : work512, &sinks[t]);
        for (auto& t : pool) t.join();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double g = threads * kIters * 10.0 * 2.0 * wide / s / 1e9;
        if (g > best) best = g;
    }
    std::printf("%.1f\n", best);
}
CPP
g++ -O2 -pthread "$WORK/fma.cpp" -o "$WORK/fma"
CEILING=$("$WORK/fma" "$THREADS")
echo "Llama shape (2 layers, d 512, 8 heads / 2 K/V heads of 64), $THREADS threads," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg); FMA ceiling $CEILING GFLOP/s"
printf '%7s %-18s %8s %8s %9s %9s %8s\n' n show "wall s" "CPU s" "peak MiB" "attn GF/s" "of peak"
for n in $NS; do
    IDS=$("$PY" -c "import numpy as np; print(','.join(map(str, np.random.default_rng(1).integers(0, 10, $n))))")
    for show in next head_stats,offsets; do
        /usr/bin/time -f "%e %U %S %M" -o "$WORK/t" "$ATTN" attend --model "$WORK/model" \
            --ids "$IDS" --show "$show" --threads "$THREADS" -o "$WORK/out.npz"
        "$PY" - "$n" "$show" "$CEILING" $(cat "$WORK/t") <<'PY'
import sys
n, show, ceiling = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
wall, user, system, rss_kb = map(float, sys.argv[4:8])
L, H, hd = 2, 8, 64
flops = L * H * 2 * n * (n + 1) * hd  # causal q k^T and w v
g = flops / wall / 1e9
print(f"{n:7d} {show:18s} {wall:8.1f} {user + system:8.1f} {rss_kb / 1024:9.0f} {g:9.1f} "
      f"{100 * g / ceiling:7.1f}%")
PY
    done
done
