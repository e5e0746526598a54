#!/bin/bash
# Benchmark (not a test): attn rotate -n 100000 -d 512 --offset 1:10, wall time and peak RSS
# from /usr/bin/time -v, in float32 (the default) and float64.
# Usage: tests/bench/rotate.sh [path/to/attn]   (default: build/release/attn)
set -eu
ATTN=${1:-$(dirname "$0")/../../build/release/attn}
[ -x /usr/bin/time ] || { echo "rotate.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for dtype in float32 float64; do
    status=0
    OPENBLAS_NUM_THREADS=1 /usr/bin/time -v "$ATTN" rotate -n 100000 -d 512 --offset 1:10 \
        --dtype "$dtype" --show summary -f csv >/dev/null 2>"$log" || status=$?
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    echo "rotate -n 100000 -d 512 --offset 1:10 --dtype $dtype: wall $wall, peak RSS $rss KiB, exit $status"
done
