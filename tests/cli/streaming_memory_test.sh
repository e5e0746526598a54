#!/usr/bin/env bash
# The text writers stream: attn's peak memory (GNU time's %M, maximum resident set size)
# writing 1e6 rows is that of writing 1e5 rows, for every text format.
. "$(dirname "$0")/lib.sh"

gnu_time_or_skip
if [ "${ATTN_SANITIZED:-OFF}" = ON ]; then
    echo "skipped: AddressSanitizer's quarantine grows with the memory freed" >&2
    exit 77
fi

# peak_kb FORMAT N: peak resident KB of encode -n N -d 2 -f FORMAT into a file.
peak_kb() {
    /usr/bin/time -f %M -o "$WORK/rss" "$ATTN" encode -n "$2" -d 2 -f "$1" -o "$WORK/out.$1" ||
        fail "encode -n $2 -f $1 failed"
    tail -1 "$WORK/rss"
}

# 4 MB: far below what holding 9e5 more rows costs (labels alone: 6 MB for json).
for format in json table md csv tsv; do
    small=$(peak_kb "$format" 100000)
    large=$(peak_kb "$format" 1000000)
    checks=$((checks + 1))
    [ "$((large - small))" -lt 4096 ] ||
        fail "-f $format: peak ${small} KB at 1e5 rows, ${large} KB at 1e6 rows"
done
rm -f "$WORK"/out.*

# attend keeps --max-memory: the tiled path streams alibi's H x n x n bias (--show positions,
# 512 MiB of float32) in row blocks, and RoPE attention at n = 16,384 holds no n x n matrix
# (the direct path would need 4.6 GiB).
"$ATTN" encode -n 4096 -d 8 --dtype float32 -o "$WORK/x4096.npy" || fail "encode failed"
"$ATTN" encode -n 16384 -d 8 --dtype float32 -o "$WORK/x16384.npy" || fail "encode failed"
/usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend --input "$WORK/x4096.npy" --heads 8 \
    --scheme alibi --attention tiled --show positions --max-memory 64M -f npy -o /dev/null ||
    fail "alibi --show positions --max-memory 64M failed"
checks=$((checks + 1))
[ "$(tail -1 "$WORK/rss")" -lt 65536 ] || fail "alibi positions: peak $(tail -1 "$WORK/rss") KB"
/usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend --input "$WORK/x16384.npy" --dq 8 --dv 8 \
    --scheme rope --attention tiled -o "$WORK/ctx.npy" || fail "rope n = 16384 failed"
checks=$((checks + 1))
[ "$(tail -1 "$WORK/rss")" -lt 102400 ] || fail "rope n = 16384: peak $(tail -1 "$WORK/rss") KB"
rm -f "$WORK"/x4096.npy "$WORK"/x16384.npy "$WORK"/ctx.npy

# plan_within NAME LIMIT WHAT BIG SMALL: the plan that --max-memory LIMIT's refusal of attend
# with the arguments in array BIG gives for WHAT ("tiled attention over 65536 rows: needs ...")
# is BIG's measured peak less SMALL's (the same code holding little) within 8 MiB. Sets $peak.
plan_within() {
    local name=$1 limit=$2 what=$3 base plan used
    local -n big_args=$4 small_args=$5
    /usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend "${big_args[@]}" -o "$WORK/ctx.npy" ||
        fail "$name failed"
    peak=$(tail -1 "$WORK/rss")
    /usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend "${small_args[@]}" -o "$WORK/ctx.npy" ||
        fail "$name: the small run failed"
    base=$(tail -1 "$WORK/rss")
    plan=$("$ATTN" attend "${big_args[@]}" -o "$WORK/ctx.npy" --max-memory "$limit" 2>&1 |
        sed -n "s/.*$what: needs \([0-9.]*\) MiB.*/\1/p")
    checks=$((checks + 1))
    [ -n "$plan" ] || fail "$name: no plan figure in --max-memory's refusal"
    used=$(((peak - base) / 1024))
    checks=$((checks + 1))
    awk -v p="$plan" -v u="$used" 'BEGIN { d = p - u; exit !(d < 8 && d > -8) }' ||
        fail "$name: plan $plan MiB, measured $used MiB above a small run"
}

# RoPE attention at n = 65,536, d = 64 in flat memory (no n x n matrix, no n-wide row block for
# --show context, q and k rotated in place): under 200 MiB, and --max-memory's plan is the
# measured peak less what a 64-row run of the same command holds (code, libraries, threads),
# within 8 MiB.
"$ATTN" encode -n 65536 -d 64 --dtype float32 -o "$WORK/x65536.npy" || fail "encode failed"
"$ATTN" encode -n 64 -d 64 --dtype float32 -o "$WORK/x64.npy" || fail "encode failed"
rope=(--dq 64 --dv 64 --threads 2 --scheme rope --show context)
big=(--input "$WORK/x65536.npy" "${rope[@]}")
small=(--input "$WORK/x64.npy" "${rope[@]}")
plan_within "rope n = 65536" 40M "tiled attention over 65536 rows" big small
checks=$((checks + 1))
[ "$peak" -lt 204800 ] || fail "rope n = 65536: peak $peak KB, want under 200 MiB"

# The plan counts the weights, held once for the run: 2 heads of W_q, W_k, W_v (2048 -> 1024,
# 48 MiB in float32) beside 2 x 1024 x 1024 scores, and a limit below it refuses the run (the
# weights left out, it said 100 MiB).
"$ATTN" encode -n 1024 -d 2048 --dtype float32 -o "$WORK/x1024.npy" || fail "encode failed"
big=(--input "$WORK/x1024.npy" --heads 2 --dq 1024 --dv 1024 --attention direct --show context)
small=(--input "$WORK/x64.npy" --dq 64 --dv 64 --attention direct --show context)
plan_within "2 heads of 2048 -> 1024" 100M "2 x 1024 x 1024 attention scores" big small
rm -f "$WORK"/x65536.npy "$WORK"/x64.npy "$WORK"/x1024.npy "$WORK"/ctx.npy

# The table without a height (not a terminal, LINES unset) prints every row.
env -u LINES "$ATTN" encode -n 1000 -d 2 -f table -o "$WORK/t.txt"
checks=$((checks + 1))
[ "$(wc -l <"$WORK/t.txt")" -eq 1002 ] || fail "table: $(wc -l <"$WORK/t.txt") lines, want 1002"

finish
