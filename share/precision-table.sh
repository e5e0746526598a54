#!/bin/bash
# The man page's table of reduced precision: for the sinusoidal P (d 128, base 10,000) and
# Llama 3.1's RoPE cos and sin (d 128, theta 500,000, llama3 scaling: factor 8, low 1, high 4,
# original 8192), the worst |value - exact| over the 100 positions from p on and all d columns,
# p = 1e2 .. 1e6, in float32, bfloat16 and float16:
#   exact   the exact value rounded once to the dtype (the best table of that dtype);
#   dtype   the angle computed in the dtype (--angles D: fl(fl(p) fl(inv_freq)), sin/cos
#           rounded); sinusoidal float32 is the book's recipe (fl(p) / fl(10000^(2j/d))).
# Deterministic (no timing), so it lives beside the pictures, not with the benchmarks.
# Usage: bash share/precision-table.sh [path/to/attn]   (default: build/release/attn)
set -eu -o pipefail
ATTN=${1:-$(dirname "$0")/../build/release/attn}
llama=(--scheme rope --base 500000 --rope-scaling llama3 --factor 8 --low-freq-factor 1
       --high-freq-factor 4 --original-max-positions 8192)

# worst ARGS...: the largest |error| attn prints as csv (NaN when any value is NaN).
worst() {
    if [ "$1" = --scheme ]; then  # rope: cos and sin, one csv each
        { error "$@" --show cos,error; error "$@" --show sin,error; } | reduce
    else
        error "$@" --show error | reduce
    fi
}
error() {
    "$ATTN" encode -d 128 -n 100 -f csv --no-header --quiet "$@"
}
reduce() {
    awk -F, '
        { for (i = 2; i <= NF; ++i) { if ($i ~ /nan|inf/) bad = 1; v = $i < 0 ? -$i : $i;
          if (v > m) m = v } }
        END { if (bad) print "NaN"; else printf "%.1e\n", m }'
}

printf '%-10s %8s  %-9s %-9s  %-9s %-9s  %-9s %-9s\n' scheme position \
    f32-exact f32-dtype bf16-exact bf16-dtype f16-exact f16-dtype
for scheme in sinusoidal llama3.1; do
    for p in 100 1000 10000 100000 1000000; do
        if [ $scheme = sinusoidal ]; then args=(--layout interleaved); else args=("${llama[@]}"); fi
        row=()
        for t in float32 bfloat16 float16; do
            row+=("$(worst "${args[@]}" --start $p --dtype $t)")
            row+=("$(worst "${args[@]}" --start $p --angles $t)")
        done
        printf '%-10s %8s  %-9s %-9s  %-9s %-9s  %-9s %-9s\n' $scheme $p "${row[@]}"
    done
done
