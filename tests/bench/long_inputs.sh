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

source "$HERE/lib.sh"
CEILING=$(fma_ceiling "$THREADS" | cut -d" " -f1)  # per wall second
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
