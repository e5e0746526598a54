#!/usr/bin/env bash
# Benchmark (not a test) for attn encode, against what users run today:
#   - whole-process time of `attn encode -n 60 -d 32` (hyperfine when installed);
#   - 1e6 x 128 float32 P to an .npy file and to /dev/null: wall time and peak RSS;
#   - 1e5 x 64 as csv, beside numpy.savetxt of the same matrix (when numpy is there).
# Usage: tests/bench/encode.sh [path/to/attn]
set -eu
ATTN=${1:-$(dirname "$0")/../../build/release/attn}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

measure() {  # measure LABEL CMD...: wall time and peak RSS of one run (outputs start absent)
    local label=$1
    shift
    rm -f "$WORK"/P.npy "$WORK"/P.csv
    /usr/bin/time -f "%e %M" -o "$WORK/t" "$@" >/dev/null
    read -r wall rss <"$WORK/t"
    printf '  %-44s %7.3f s  peak RSS %6.1f MiB\n' "$label" "$wall" "$(echo "$rss / 1024" | bc -l)"
}

if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 20 --runs 300 "$ATTN encode -n 60 -d 32" 2>/dev/null | grep -E 'Time|Range'
else
    start=$(date +%s%N)
    for _ in $(seq 200); do "$ATTN" encode -n 60 -d 32 >/dev/null; done
    echo "  encode -n 60 -d 32: $(( ($(date +%s%N) - start) / 200000 )) us per run (mean of 200)"
fi
for threads in 1 2; do
    measure "encode -n 1e6 -d 128 -o P.npy --threads $threads" \
        "$ATTN" encode -n 1000000 -d 128 -o "$WORK/P.npy" --threads $threads
    measure "encode -n 1e6 -d 128 -f npy > /dev/null --threads $threads" \
        sh -c "'$ATTN' encode -n 1000000 -d 128 -f npy --threads $threads > /dev/null"
done
measure "encode -n 1e7 -d 128 -f npy > /dev/null" sh -c "'$ATTN' encode -n 10000000 -d 128 -f npy > /dev/null"
measure "encode -n 1e5 -d 64 -o P.csv" "$ATTN" encode -n 100000 -d 64 -o "$WORK/P.csv"
measure "encode -n 1e6 -d 128 -o P.csv" "$ATTN" encode -n 1000000 -d 128 -o "$WORK/P.csv"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    "$ATTN" encode -n 100000 -d 64 -o "$WORK/P64.npy"
    measure "numpy.savetxt of the same 1e5 x 64 (%.8g)" /usr/bin/python3 -c "
import numpy as np; np.savetxt('$WORK/np.csv', np.load('$WORK/P64.npy'), delimiter=',', fmt='%.8g')"
    measure "numpy.save of a 1e6 x 128 float32 array" /usr/bin/python3 -c "
import numpy as np; np.save('$WORK/np.npy', np.zeros((1000000, 128), np.float32) + 1)"
fi
