#!/usr/bin/env bash
# attn heads over a long input within --max-memory (design.md, Long inputs: heads "never holds
# an n x n matrix ... a model reads 32,768 tokens in memory about one layer's weights plus
# O(n d) activations"): the Llama checkpoint with its context raised, 3,072 tokens under a
# --max-memory of 48 MiB that the 2 H n^2 values of one layer's scores and weights (288 MiB,
# what attend --show weights keeps) exceed six times over. The run is refused by nothing, its
# peak resident memory stays under the limit, and its scores equal those of the same prompt
# run in float64 (no limit) within 1e-5.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
gnu_time_or_skip

LONG=$WORK/llama-long
mkdir "$LONG"
for f in "$ATTN_TEST_DATA"/models/llama/*; do ln -s "$f" "$LONG/"; done
rm "$LONG/config.json"
"$PYTHON" - "$ATTN_TEST_DATA/models/llama/config.json" "$LONG/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["max_position_embeddings"] = 40000
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
IDS=$(awk 'BEGIN { for (i = 0; i < 3072; i++) printf "%s%d", (i ? "," : ""), (i * 37 + i / 97) % 96 }')

# what keeps the n x n arrays is refused at this limit: the plan is not that one
expect_usage_error "--max-memory" "$ATTN" attend --model "$LONG" --ids "$IDS" --show weights \
    --max-memory 48M -o "$WORK/w.npz"
# heads runs, in less resident memory than the limit (mapped pages included)
run /usr/bin/time -f %M -o "$WORK/rss" "$ATTN" heads --model "$LONG" --ids "$IDS" \
    --max-memory 48M -f csv
checks=$((checks + 1))
[ "$STATUS" -eq 0 ] || fail "heads at --max-memory 48M exited $STATUS: $(cat "$ERR")"
kib=$(tail -1 "$WORK/rss")
echo "heads, 3072 tokens: peak resident $kib KiB"
# under AddressSanitizer the peak is its quarantine's, not attn's (the release build asserts it)
if [ "${ATTN_SANITIZED:-OFF}" != ON ]; then
    checks=$((checks + 1))
    [ "$kib" -lt $((48 * 1024)) ] || fail "heads over 3072 tokens peaked at $kib KiB, above 48 MiB"
fi
cp "$OUT" "$WORK/long.csv"
expect_status 0 "$ATTN" heads --model "$LONG" --ids "$IDS" --dtype float64 -f csv
checks=$((checks + 1))
"$PYTHON" - "$WORK/long.csv" "$OUT" <<'PY' || fail "float32 and float64 scores differ"
import csv, math, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(a) == len(b) == 8, len(a)
for x, y in zip(a, b):
    for k in ("previous", "duplicate", "induction", "sink", "self", "entropy", "positional"):
        u, v = float(x[k]), float(y[k])
        assert math.isfinite(u) and abs(u - v) <= 1e-5 * max(1.0, abs(v)), (k, x, y)
print("ok")
PY
# a limit below one layer's weights and the O(n d) activations is still refused, saying what fits
expect_usage_error "tokens fit" "$ATTN" heads --model "$LONG" --ids "$IDS" --max-memory 2M
finish
