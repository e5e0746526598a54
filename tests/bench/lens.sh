#!/usr/bin/env bash
# Benchmark (not a test): the logit lens of a GPT-2-small-shaped checkpoint (12 layers, 768
# wide, 12 heads, vocabulary 50257, random float32 weights written here as model.safetensors)
# at n tokens (default 1024), every layer and every position, beside `--show next`, in one run
# and with the same threads, against the machine's float32 FMA peak measured here (the
# program of tests/bench/fma_peak.cpp: independent FMA chains per thread, AVX2 or AVX-512):
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

source "$HERE/lib.sh"
write_gpt2_small "$WORK"
IDS=$("$PY" -c "import numpy as np; print(','.join(map(str, np.random.default_rng(1).integers(0, 50257, $N))))")

CEILING=$(fma_ceiling "$THREADS")

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
