#!/usr/bin/env bash
# Benchmark (not a test): the logit lens of a GPT-2-small-shaped checkpoint (12 layers, 768
# wide, 12 heads, vocabulary 50257, random float32 weights written here as model.safetensors)
# at n tokens (default 1024), every layer and every position, beside `--show next`, in one run
# and with the same threads, against the machine's float32 FMA peak measured here (the
# program of tests/bench/model_forward.sh: independent FMA chains per thread, AVX2 or AVX-512):
#   next   `attn attend --model DIR --ids ... --show next`: the forward and the last position's
#          head;
#   lens   `... --show lens` (top 5 at every position of every layer, written as npz): the
#          forward and each layer's unembedding, n x d x V multiply-adds a layer (about five
#          times the forward's own for GPT-2), streamed in blocks of 4096 vocabulary rows with
#          the top K kept as each block is made (no layers x n x V logits);
# whole processes (start, mapping, writing), median of RUNS, per wall and per CPU second
# (user + system over every thread; other processes sharing the cores stretch the wall time).
# Flops: per block 2 n d (3d + d + 8d) + 2 n (n + 1) d (q k^T and w v under the causal mask),
# the head 2 d V (next) or 2 n d V per layer (lens). Peak RSS from /usr/bin/time.
# Usage: tests/bench/lens.sh [path/to/attn]   Environment: N=1024 THREADS=2 RUNS=3
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ATTN=${1:-$HERE/../../build/release/attn}
N=${N:-1024}
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$PY" - "$WORK" "$HERE/../data/models" <<'PY'
import json, sys
import numpy as np
folder = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import safetensors_numpy  # the tests' writer of safetensors files
d, L, H, V, P = 768, 12, 12, 50257, 1024
json.dump({"model_type": "gpt2", "n_embd": d, "n_layer": L, "n_head": H, "vocab_size": V,
           "n_positions": P, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5},
          open(f"{folder}/config.json", "w"))
shapes = {"wte.weight": (V, d), "wpe.weight": (P, d)}
for i in range(L):
    p = f"h.{i}."
    shapes.update({p + "ln_1.weight": (d,), p + "ln_1.bias": (d,),
                   p + "attn.c_attn.weight": (d, 3 * d), p + "attn.c_attn.bias": (3 * d,),
                   p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
                   p + "ln_2.weight": (d,), p + "ln_2.bias": (d,),
                   p + "mlp.c_fc.weight": (d, 4 * d), p + "mlp.c_fc.bias": (4 * d,),
                   p + "mlp.c_proj.weight": (4 * d, d), p + "mlp.c_proj.bias": (d,)})
shapes.update({"ln_f.weight": (d,), "ln_f.bias": (d,)})
rng = np.random.default_rng(0)
tensors = {name: np.ones(shape, np.float32)
           if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight"))
           else (0.02 * rng.standard_normal(shape)).astype(np.float32)
           for name, shape in shapes.items()}
safetensors_numpy.write(f"{folder}/model.safetensors", tensors)
PY
IDS=$("$PY" -c "import numpy as np; print(','.join(map(str, np.random.default_rng(1).integers(0, 50257, $N))))")

cat >"$WORK/fma.cpp" <<'CPP'
#include <immintrin.h>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
constexpr long kIters = 200000000L / 10;
// 10 independent chains of 8-wide (AVX2) or 16-wide (AVX-512) FMAs per thread.
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
// Prints GFLOP per wall second and per CPU second of the faster instruction set.
int main(int argc, char** argv) {
    const int threads = std::atoi(argv[1]);
    double best_wall = 0, best_cpu = 0;
    for (int wide : {8, 16}) {
        if (wide == 16 && !__builtin_cpu_supports("avx512f")) continue;
        std::vector<float> sinks(threads);
        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) pool.emplace_back(wide == 8 ? work256 : work512, &sinks[t]);
        for (auto& t : pool) t.join();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        const double flop = threads * kIters * 10.0 * 2.0 * wide;
        if (flop / cpu > best_cpu) best_wall = flop / s / 1e9, best_cpu = flop / cpu / 1e9;
    }
    std::printf("%.1f %.1f\n", best_wall, best_cpu);  // per wall, per CPU second
}
CPP
g++ -O2 -pthread "$WORK/fma.cpp" -o "$WORK/fma"
CEILING=$("$WORK/fma" "$THREADS")

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# time SHOW: "wall_s cpu_s rss_kb" medians (rss the largest) of RUNS runs
timed() {
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M %U %S" -o "$WORK/t" "$ATTN" attend --model "$WORK" --ids "$IDS" \
            --show "$1" --threads "$THREADS" -o "$WORK/out.npz"
        awk '{print $1, $2, $3 + $4}' "$WORK/t"
    done >"$WORK/times"
    echo "$(cut -d' ' -f1 "$WORK/times" | median) $(cut -d' ' -f3 "$WORK/times" | median)" \
        "$(cut -d' ' -f2 "$WORK/times" | sort -g | tail -1)"
}
NEXT=$(timed next)
LENS=$(timed lens)
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
"$PY" - "$N" "$THREADS" "$LOAD" $NEXT $LENS $CEILING <<'PY'
import sys
n, threads, load = int(sys.argv[1]), sys.argv[2], sys.argv[3]
next_s, next_cpu, next_rss, lens_s, lens_cpu, lens_rss, ceil_wall, ceil_cpu = map(float, sys.argv[4:12])
d, L, V = 768, 12, 50257
forward = L * (2 * n * d * 12 * d + 2 * n * (n + 1) * d)
runs = (("next", forward + 2 * d * V, next_s, next_cpu, next_rss),
        ("lens (every layer, position)", forward + L * 2 * n * d * V, lens_s, lens_cpu, lens_rss))
print(f"GPT-2-small shape, n = {n}, {threads} threads, load average {load}")
print(f"FMA ceiling {ceil_wall:.1f} GFLOP/s, {ceil_cpu:.1f} GFLOP per CPU second")
print(f"{'':30s} {'GFLOP':>7s} {'wall s':>7s} {'GFLOP/s':>8s} {'ceiling':>8s} {'CPU s':>7s} "
      f"{'GFLOP/CPU s':>12s} {'ceiling':>8s} {'RSS MiB':>8s}")
for name, flops, s, c, rss in runs:
    g, gc = flops / s / 1e9, flops / c / 1e9
    print(f"{name:30s} {flops / 1e9:7.1f} {s:7.3f} {g:8.1f} {100 * g / ceil_wall:7.1f}% {c:7.3f} "
          f"{gc:12.1f} {100 * gc / ceil_cpu:7.1f}% {rss / 1024:8.0f}")
PY
