#!/usr/bin/env bash
# Benchmark (not a ctest): runs each layer for real over n = 256..4096 at d = 64 and prints
# the measured seconds and the fitted exponent of n beside the theoretical one.
#   tests/bench/complexity.sh [path/to/attn] [extra options, e.g. --threads 1 --repeat 9]
# Timings depend on the machine, its load and BLAS threads: they belong in notes, not tests.
set -eu
ATTN=${1:-${ATTN:-build/release/attn}}
[ $# -gt 0 ] && shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $("$ATTN" --version), $(nproc) cores, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}"
echo "# $ATTN complexity --sweep n=256:4096:x2 -d 64 --measure $*"
"$ATTN" complexity --sweep n=256:4096:x2 -d 64 --measure -o "$dir/" "$@"
# layer, n, multiply_adds, seconds, gflops
cut -d, -f1,5,9,13,14 "$dir/complexity.csv" | column -t -s,
echo
column -t -s, "$dir/exponents.csv"
