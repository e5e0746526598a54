#!/usr/bin/env bash
# attend --model --prompts FILE: each prompt its own sequence, only aggregates written.
# head_stats and offsets over a file of prompts of different lengths (texts through a byte-level
# vocabulary beside the tiny GPT-2, and .jsonl ids on the tiny Llama) equal the means numpy
# computes over every (prompt, query) pair from each prompt's own `attend --model` weights;
# standard input gives the same; every per-prompt array is refused naming it.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
M=$ATTN_TEST_DATA/models
B=$WORK/byte
mkdir -p "$B"
ln -s "$M/gpt2/config.json" "$M/gpt2/model.safetensors" "$B/"
"$PYTHON" - "$B" <<'PY'
import json, sys
vocab = {chr(c): c - 33 for c in range(33, 127)}
vocab.update({"\u0120": 94, "<|endoftext|>": 95})
json.dump(vocab, open(sys.argv[1] + "/vocab.json", "w"))
open(sys.argv[1] + "/merges.txt", "w").write("#version: 0.2\n")
PY
printf 'Life is short\n\neat dessert first, then more\nok\n' >"$WORK/p.txt"

# check_pooled AGG.npz[:LAYERS:HEADS] W1.npz W2.npz ...: head_stats and offsets of AGG (its layers
# and heads, default all) against the weights of each prompt.
check_pooled() {
    "$PYTHON" - "$@" <<'PY'
import sys, numpy as np
agg = np.load(sys.argv[1].split(":")[0])
ws = [np.load(f)["weights"].astype(np.float64) for f in sys.argv[2:]]
L, H = ws[0].shape[:2]
N = max(w.shape[2] for w in ws)
ent = np.zeros((L, H)); dist = np.zeros((L, H)); first = np.zeros((L, H)); prev = np.zeros((L, H))
self_ = np.zeros((L, H)); q = 0; qp = 0
osum = np.zeros((L, H, 2 * N - 1)); ocount = np.zeros(2 * N - 1)
for w in ws:
    n = w.shape[2]
    i, j = np.indices((n, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        ent += np.where(w > 0, -w * np.log(w), 0).sum(axis=(2, 3))
    dist += (w * np.abs(i - j)).sum(axis=(2, 3))
    first += w[..., :, 0].sum(axis=2)
    self_ += np.trace(w, axis1=2, axis2=3)
    prev += sum(w[..., k, k - 1] for k in range(1, n)) if n > 1 else 0
    q += n; qp += n - 1
    for o in range(-(n - 1), n):
        osum[..., o + N - 1] += np.diagonal(w, offset=o, axis1=2, axis2=3).sum(axis=2)
        ocount[o + N - 1] += n - abs(o)
hs = agg["head_stats"]
assert hs.shape == (L * H, 7), hs.shape
want = np.stack([ent / q, dist / q, first / q, prev / qp, self_ / q], axis=2).reshape(L * H, 5)
layers, heads = (np.array(eval(v)) for v in sys.argv[1].split(":")[1:]) if ":" in sys.argv[1] else (np.arange(L), np.arange(H))
assert np.array_equal(hs[:, 0], np.repeat(layers, H)) and np.array_equal(hs[:, 1], np.tile(heads, L))
assert np.abs(hs[:, 2:] - want).max() < 1e-5, np.abs(hs[:, 2:] - want).max()
off = agg["offsets"]
assert off.shape == (L, H, 2 * N - 1), off.shape
assert np.abs(off - osum / ocount).max() < 1e-6, np.abs(off - osum / ocount).max()
PY
}

expect_status 0 "$ATTN" attend --model "$B" --prompts "$WORK/p.txt" --show head_stats,offsets \
    -o "$WORK/agg.npz"
k=0
while IFS= read -r line; do
    [ -n "$line" ] || continue
    k=$((k + 1))
    "$ATTN" attend --model "$B" "$line" --show weights -o "$WORK/w$k.npz" || fail "prompt $k"
done <"$WORK/p.txt"
check_pooled "$WORK/agg.npz" "$WORK"/w1.npz "$WORK"/w2.npz "$WORK"/w3.npz ||
    fail "pooled head_stats and offsets of p.txt differ from numpy's"
checks=$((checks + 1))
# Standard input: the same numbers.
"$ATTN" attend --model "$B" --prompts - --show head_stats,offsets -o "$WORK/stdin.npz" \
    <"$WORK/p.txt" || fail "--prompts -"
"$PYTHON" -c 'import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); assert all(np.array_equal(a[k], b[k]) for k in ("head_stats", "offsets"))' \
    "$WORK/agg.npz" "$WORK/stdin.npz" || fail "--prompts - differs from the file"
checks=$((checks + 1))
# The default is head_stats, as a table.
expect_status 0 "$ATTN" attend --model "$B" --prompts "$WORK/p.txt" -f csv
expect_grep '^layer,head,entropy,distance,first,previous,self$' "$OUT"
[ "$(wc -l <"$OUT")" -eq 13 ] || fail "head_stats of 3 layers x 4 heads: want 12 rows"

# .jsonl ids on the tiny Llama, a layer and heads selected.
printf '{"ids": [1, 5, 9, 3, 7, 22, 40]}\n{"ids": [4, 2]}\n{"ids": [8, 8, 8, 8, 60]}\n' \
    >"$WORK/p.jsonl"
expect_status 0 "$ATTN" attend --model "$M/llama" --prompts "$WORK/p.jsonl" --layer -1 \
    --head 0,2 --show offsets,head_stats -o "$WORK/llama.npz"
for ids in 1,5,9,3,7,22,40 4,2 8,8,8,8,60; do
    "$ATTN" attend --model "$M/llama" --ids $ids --layer -1 --head 0,2 -o "$WORK/l$ids.npz" ||
        fail "--ids $ids"
done
check_pooled "$WORK/llama.npz:[1]:[0,2]" "$WORK/l1,5,9,3,7,22,40.npz" "$WORK/l4,2.npz" \
    "$WORK/l8,8,8,8,60.npz" || fail "pooled summaries of p.jsonl differ from numpy's"
checks=$((checks + 1))

# Refusals: exit 2, one line naming the array or the option, nothing written.
for array in weights tokens ids scores context hidden positions next mean_weights rollout; do
    expect_usage_error "'$array'" "$ATTN" attend --model "$B" --prompts "$WORK/p.txt" --show "$array"
    grep -q 'run one prompt' "$ERR" || fail "--show $array: the message does not say to run one prompt"
done
expect_usage_error --prompts "$ATTN" attend --model "$B" --prompts "$WORK/p.txt" "a text"
expect_usage_error --prompts "$ATTN" attend --model "$B" --prompts "$WORK/p.txt" --ids 1,2
expect_usage_error --query "$ATTN" attend --model "$B" --prompts "$WORK/p.txt" --query 1
expect_usage_error --prompts "$ATTN" attend --prompts "$WORK/p.txt"
printf '\n\n' >"$WORK/empty.txt"
expect_usage_error "holds no prompt" "$ATTN" attend --model "$B" --prompts "$WORK/empty.txt"
printf '{"ids": [1, 200]}\n' >"$WORK/bad.jsonl"
expect_usage_error "line 1" "$ATTN" attend --model "$B" --prompts "$WORK/bad.jsonl"
printf '{"ids": [1]}\n{"text": "\\ud800"}\n' >"$WORK/surrogate.jsonl"
expect_usage_error "surrogate.jsonl, line 2: not valid JSON" "$ATTN" attend --model "$B" \
    --prompts "$WORK/surrogate.jsonl"
expect_status 1 "$ATTN" attend --model "$B" --prompts "$WORK/none.txt"
# a page draws one prompt; a line ending in \r (CRLF) is warned of once, and kept
expect_usage_error html "$ATTN" attend --model "$B" --prompts "$WORK/p.txt" -f html
printf 'a b\r\nc d\r\n' >"$WORK/crlf.txt"
expect_status 0 "$ATTN" attend --model "$B" --prompts "$WORK/crlf.txt" -f csv
expect_grep "^attn: warning: --prompts: .*crlf.txt, line 1 ends in a carriage return \(CRLF\)" "$ERR"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "CRLF: more than one warning: $(cat "$ERR")"
finish
