#!/usr/bin/env bash
# Benchmark (not a test): self-attention's context for n rows of d = 64, float32, side by side
# in one run, for each n and 1 and 2 threads:
#   attend   `attn attend --input X.npy --show context` (the command line: above 2048 rows it
#            takes the tiled path, src/cli/attend_streamed.cpp), whole process: start, reading
#            X, the projections, the attention, writing the context;
#   direct   the same with --attention direct (n x n materialized; refused where it does not
#            fit), only with DIRECT=1;
#   tiled    the fused kernel of src/attn/attention/tiled.hpp through a small driver
#            (tests/bench/tiled_attention_bench.cpp, compiled here against the build's
#            libattn_core.a), whole process and the kernel alone, only with DRIVER=1;
#   PyTorch  softmax(Q K^T / sqrt d) V, n x n materialized, timed on the computation alone
#            (only where 2 n^2 floats fit in the available memory).
# Each time is the median of RUNS runs (default 3); "cpu" is user + system time of all
# threads (of the computation alone for PyTorch), less sensitive than wall time to a loaded
# machine. GFLOP/s counts 4 n^2 d flops (Q K^T and
# weights V) and is set against the machine's peak measured here: the best of 3 float32
# 4096^3 matrix products in PyTorch with the same thread count. Peak RSS from /usr/bin/time.
# Then `attn encode -n 1000000 -d 128` (to an .npy file and to /dev/null) beside the book's
# PyTorch code for P (d2l's PositionalEncoding), time and peak RSS.
# Usage: tests/bench/attend.sh [path/to/attn] [n ...]     (default n: 4096 16384 65536)
# Environment: RUNS=3, THREADS="1 2", D=64, CXX=g++, DIRECT=0, DRIVER=0
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ATTN=${1:-$HERE/../../build/release/attn}
shift || true
NS=${*:-4096 16384 65536}
D=${D:-64}
RUNS=${RUNS:-3}
THREADS=${THREADS:-1 2}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[ -x /usr/bin/time ] || { echo "attend.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 1; }

# The kernel driver, against the library the build made next to the attn binary.
LIB=$(dirname "$ATTN")/libattn_core.a
BENCH=""
if [ "${DRIVER:-0}" = 1 ] && [ -f "$LIB" ] && ${CXX:-g++} -O2 -std=c++20 -I"$HERE/../../src" \
    "$HERE/tiled_attention_bench.cpp" "$LIB" -lfmt -ldl -pthread -o "$WORK/tiled" 2>"$WORK/cc.txt"
then
    BENCH=$WORK/tiled
elif [ "${DRIVER:-0}" = 1 ]; then
    echo "(tiled driver not built: $(head -c 300 "$WORK/cc.txt" 2>/dev/null))"
fi
HAVE_TORCH=0
/usr/bin/python3 -c 'import torch' 2>/dev/null && HAVE_TORCH=1

cat >"$WORK/torch_attention.py" <<'PY'
import sys, time, numpy as np, torch
n, d, threads = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)
x = torch.from_numpy(np.load(sys.argv[1]))
torch.manual_seed(123)
wq, wk, wv = torch.rand(d, d), torch.rand(d, d), torch.rand(d, d)
t, c = time.perf_counter(), time.process_time()
q, k, v = x @ wq, x @ wk, x @ wv
z = torch.softmax(q @ k.T / d ** 0.5, dim=-1) @ v
print(f"{time.perf_counter() - t:.6f} {time.process_time() - c:.6f}")
PY
cat >"$WORK/peak.py" <<'PY'
import sys, time, torch
torch.set_num_threads(int(sys.argv[1]))
a, b = torch.rand(4096, 4096), torch.rand(4096, 4096)
a @ b
runs = [(lambda t, c: (a @ b, time.perf_counter() - t, time.process_time() - c)[1:])(
    time.perf_counter(), time.process_time()) for _ in range(3)]
print(f"{2 * 4096 ** 3 / min(r[0] for r in runs) / 1e9:.1f} "
      f"{2 * 4096 ** 3 / min(r[1] for r in runs) / 1e9:.1f}")
PY

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# runs a command RUNS times under /usr/bin/time; prints "median-wall median-rss-KiB
# median-cpu" (cpu = user + system seconds, all threads; stdout of the last run in
# $WORK/out.txt); fails if the command fails.
timed() {
    : >"$WORK/walls"; : >"$WORK/rss"; : >"$WORK/cpus"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M %U %S" -o "$WORK/t.txt" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" ||
            return 1
        read -r w r u s <"$WORK/t.txt"
        echo "$w" >>"$WORK/walls"; echo "$r" >>"$WORK/rss"; echo "$u $s" | awk '{print $1 + $2}' >>"$WORK/cpus"
    done
    echo "$(median <"$WORK/walls") $(median <"$WORK/rss") $(median <"$WORK/cpus")"
}
line() {  # label n wall-seconds rss-KiB cpu-seconds peak [note]
    awk -v l="$1" -v n="$2" -v s="$3" -v r="$4" -v c="$5" -v p="$6" -v d="$D" -v note="${7:-}" 'BEGIN {
        g = 4 * n * n * d / s / 1e9
        printf "  %-37s %8.3f s %7.1f GFLOP/s %5.1f%% of peak  cpu %7.3f s (%5.1f GFLOP/cpu-s) %8s %s\n",
               l, s, g, 100 * g / p, c, 4 * n * n * d / c / 1e9,
               (r == "" ? "-" : sprintf("%.0f MiB", r / 1024)), note }'
}

echo "attention context, d = $D, float32; median of $RUNS runs; $(nproc) cores;" \
     "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in $THREADS; do
    peak=1 cpeak=1
    [ "$HAVE_TORCH" = 1 ] && read -r peak cpeak < <(/usr/bin/python3 "$WORK/peak.py" "$t")
    echo
    echo "threads = $t: measured peak ${peak} GFLOP/s wall, ${cpeak} GFLOP/cpu-s" \
         "(PyTorch float32 4096^3 product, best of 3)"
    for n in $NS; do
        echo " n = $n   (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        "$ATTN" encode -n "$n" -d "$D" -o "$WORK/x.npy"
        if r=$(timed "$ATTN" attend --input "$WORK/x.npy" --threads "$t" --quiet \
                   --dq "$D" --dv "$D" --show context -f npy -o "$WORK/context.npy"); then
            line "attn attend (whole process)" "$n" $r "$peak"
        else
            echo "  attn attend: $(head -n 1 "$WORK/err.txt")"
        fi
        if [ "${DIRECT:-0}" = 1 ]; then
            if r=$(timed "$ATTN" attend --input "$WORK/x.npy" --threads "$t" --attention direct \
                       --dq "$D" --dv "$D" --show context -f npy -o "$WORK/context.npy"); then
                line "attn attend --attention direct" "$n" $r "$peak"
            else
                echo "  attn attend --attention direct: $(head -n 1 "$WORK/err.txt")"
            fi
        fi
        if [ -n "$BENCH" ] && r=$(timed "$BENCH" "$n" "$D" "$t"); then
            ksec=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "s") { print $i; exit } }' \
                       "$WORK/out.txt")
            line "tiled kernel driver (whole process)" "$n" $r "$peak" \
                 "(kernel alone, last run: $ksec s, $(awk '{print $1, $2}' "$WORK/out.txt"))"
        fi
        avail=$(awk '/MemAvailable/ {print $2 * 1024}' /proc/meminfo)
        if [ "$HAVE_TORCH" = 1 ] && awk -v n="$n" -v a="$avail" 'BEGIN { exit !(2.2 * n * n * 4 < a) }'; then
            : >"$WORK/tw"
            for _ in $(seq "$RUNS"); do
                /usr/bin/time -f "%e %M" -o "$WORK/t.txt" /usr/bin/python3 "$WORK/torch_attention.py" \
                    "$WORK/x.npy" "$n" "$D" "$t" >>"$WORK/tw"
            done
            read -r _ trss <"$WORK/t.txt"
            line "PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)') (compute alone)" \
                 "$n" "$(awk '{print $1}' "$WORK/tw" | median)" "$trss" \
                 "$(awk '{print $2}' "$WORK/tw" | median)" "$peak" "(RSS: whole interpreter)"
        elif [ "$HAVE_TORCH" = 1 ]; then
            echo "  PyTorch: skipped, 2 n^2 float32 = $((8 * n * n / 1048576)) MiB exceed the available memory"
        fi
    done
done

cat >"$WORK/torch_encoding.py" <<'PY'
import sys, time, torch
n, d = int(sys.argv[1]), int(sys.argv[2])
t, c = time.perf_counter(), time.process_time()
# d2l's PositionalEncoding.__init__ (the book's code)
P = torch.zeros((1, n, d))
X = torch.arange(n, dtype=torch.float32).reshape(-1, 1) / torch.pow(
    10000, torch.arange(0, d, 2, dtype=torch.float32) / d)
P[:, :, 0::2] = torch.sin(X)
P[:, :, 1::2] = torch.cos(X)
print(f"{time.perf_counter() - t:.6f} {time.process_time() - c:.6f}")
PY
echo
echo "positional encoding P, n = 1,000,000, d = 128, float32; median of $RUNS runs" \
     "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
enc() {  # label wall rss cpu
    awk -v l="$1" -v s="$2" -v r="$3" -v c="$4" 'BEGIN {
        printf "  %-44s %8.3f s  cpu %7.3f s  peak RSS %7.1f MiB\n", l, s, c, r / 1024 }'
}
for t in $THREADS; do
    r=$(timed "$ATTN" encode -n 1000000 -d 128 --threads "$t" -o "$WORK/P.npy") &&
        enc "attn encode -o P.npy --threads $t" $r
    r=$(timed sh -c "'$ATTN' encode -n 1000000 -d 128 --threads $t -f npy >/dev/null") &&
        enc "attn encode -f npy >/dev/null --threads $t" $r
    rm -f "$WORK/P.npy"
done
if [ "$HAVE_TORCH" = 1 ]; then
    : >"$WORK/tw"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$WORK/t.txt" /usr/bin/python3 "$WORK/torch_encoding.py" \
            1000000 128 >>"$WORK/tw"
    done
    read -r _ trss <"$WORK/t.txt"
    enc "PyTorch, the book's code (compute alone)" "$(awk '{print $1}' "$WORK/tw" | median)" \
        "$trss" "$(awk '{print $2}' "$WORK/tw" | median)"
    echo "  (PyTorch's RSS: the whole interpreter)"
fi
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (wall times include waiting for a core)"
