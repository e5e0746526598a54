#!/usr/bin/env bash
# Benchmark (not a test): attn attend --input over n = 4096 rows of d = 64, float32, context
# only. Prints wall time, GFLOP/s (4 n^2 d flops: Q K^T and weights V) and peak RSS; and the
# same computation in PyTorch when python3 can import torch.
# Usage: tests/bench/attend.sh [path/to/attn] [n] [d]
set -eu
ATTN=${1:-$(dirname "$0")/../../build/release/attn}
N=${2:-4096}
D=${3:-64}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# X = P (n x d), the positional encoding, as a float32 .npy.
"$ATTN" encode -n "$N" -d "$D" -o "$WORK/x.npy"

flops=$((4 * N * N * D))
/usr/bin/time -v "$ATTN" attend --input "$WORK/x.npy" --dq "$D" --dv "$D" --show context \
    -f npy -o "$WORK/context.npy" 2>"$WORK/time.txt"
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt")
cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$WORK/time.txt")
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
secs=$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
echo "attn attend --input (n=$N, d=$D, float32, context only, threads=${OPENBLAS_NUM_THREADS:-all})"
awk -v s="$secs" -v c="$cpu" -v f="$flops" -v r="$rss" 'BEGIN {
    printf "  wall %.3f s   %.2f GFLOP/s   peak RSS %.1f MiB   (cpu user+sys %.3f s)\n",
           s, f / s / 1e9, r / 1024, c }'
echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg) (wall time includes waiting for a core)"

if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    cat >"$WORK/torch_attention.py" <<'PY'
import sys, time, numpy as np, torch, resource
x = torch.from_numpy(np.load(sys.argv[1])); n, d = int(sys.argv[2]), int(sys.argv[3])
torch.manual_seed(123)
wq, wk, wv = torch.rand(d, d), torch.rand(d, d), torch.rand(d, d)
t = time.perf_counter()
q, k, v = x @ wq, x @ wk, x @ wv
z = torch.softmax(q @ k.T / d ** 0.5, dim=-1) @ v
s = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"PyTorch {torch.__version__}: compute {s:.3f} s   {4 * n * n * d / s / 1e9:.2f} GFLOP/s   "
      f"peak RSS {rss:.1f} MiB (interpreter included)")
PY
    /usr/bin/time -f "%e %M" -o "$WORK/torch_time.txt" /usr/bin/python3 "$WORK/torch_attention.py" \
        "$WORK/x.npy" "$N" "$D"
    read -r twall trss <"$WORK/torch_time.txt"
    echo "  PyTorch whole process (python3, import torch, load, compute): wall $twall s," \
        "peak RSS $((trss / 1024)) MiB; attn whole process: wall $secs s"
else
    echo "  (PyTorch not importable by /usr/bin/python3: no comparison)"
fi
