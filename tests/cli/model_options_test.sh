# attend --model with the options a researcher reaches for: --query (the rows of one query,
# as for the random model), and the refusals worded for what is really wrong: a text longer
# than the model's context names the text (--model) and the context, a cache snapshot whose
# blob is gone names the blob.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

M=$ATTN_TEST_DATA/models
IDS=47,34,48,83,54,50,67,51,86,69,83,44,76,80,7,65

# --query I: scores, weights and context hold query I's row of every layer and head, the
# full run's row; the other arrays are untouched.
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids $IDS --show scores,weights,context,hidden \
    --query 3 -o "$WORK/q.npz"
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids $IDS --show scores,weights,context,hidden \
    -o "$WORK/all.npz"
"$PYTHON" - "$WORK" <<'PY' || fail "--query with --model"
import sys, numpy as np
w = sys.argv[1]
q, a = np.load(w + "/q.npz"), np.load(w + "/all.npz")
for name in ("scores", "weights", "context"):
    assert q[name].shape == a[name].shape[:2] + (1,) + a[name].shape[3:], (name, q[name].shape)
    assert (q[name] == a[name][:, :, 3:4]).all(), name
assert (q["hidden"] == a["hidden"]).all()
PY
checks=$((checks + 1))
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids $IDS --layer 1 --head 0:2 --query 15 -f csv
expect_grep '^layer,head,query,47,34,48,' "$OUT"
expect_grep '^1,1,15,' "$OUT"
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 3 ] || fail "--query 15, 2 heads: want a header and 2 rows: $(cat "$OUT")"
expect_usage_error "--query: 16 is not a query position" \
    "$ATTN" attend --model "$M/gpt2" --ids $IDS --query 16
expect_usage_error "--query" "$ATTN" attend --model "$M/gpt2" --ids $IDS --query 1 -f html

# A text longer than the context (32 positions): named as the text's fault, with the context.
mkdir -p "$WORK/spelled"
ln -s "$M/gpt2/config.json" "$M/gpt2/model.safetensors" "$WORK/spelled/"
"$PYTHON" - "$WORK/spelled" <<'PY'
import json, sys
vocab = {chr(c): c - 33 for c in range(33, 127)}
vocab.update({"\u0120": 94, "<|endoftext|>": 95})
json.dump(vocab, open(sys.argv[1] + "/vocab.json", "w"))
open(sys.argv[1] + "/merges.txt", "w").write("#version: 0.2\n")
PY
expect_usage_error "--model: gpt2 has 32 positions" \
    "$ATTN" attend --model "$WORK/spelled" "abcdefghijklmnopqrstuvwxyzabcdefghi"
expect_grep 'the text has 35 tokens' "$ERR"
checks=$((checks + 1))
! grep -q -- '--ids' "$ERR" || fail "a long text is reported under --ids: $(cat "$ERR")"
expect_usage_error "--ids: gpt2 has 32 positions" \
    "$ATTN" attend --model "$M/gpt2" --ids "$(seq -s, 0 32)"

# A Hugging Face cache snapshot whose model.safetensors links to a blob that is gone: exit 1,
# naming the file and the blob, not "no model.safetensors".
HUB=$WORK/hub/models--tiny--gpt2
mkdir -p "$HUB/refs" "$HUB/blobs" "$HUB/snapshots/0123abcd"
printf '0123abcd' >"$HUB/refs/main"
cp "$M/gpt2/config.json" "$HUB/blobs/c0nf1g"
ln -s ../../blobs/c0nf1g "$HUB/snapshots/0123abcd/config.json"
ln -s ../../blobs/5afe7e45 "$HUB/snapshots/0123abcd/model.safetensors"
HF_HUB_CACHE=$WORK/hub expect_status 1 "$ATTN" attend --model tiny/gpt2 --ids 1,2
expect_grep 'model\.safetensors: its blob .*/blobs/5afe7e45 is missing' "$ERR"
checks=$((checks + 1))
[ "$(wc -l <"$ERR")" -eq 1 ] && [ ! -s "$OUT" ] || fail "missing blob: one line, no output"
# and config.json's blob
rm "$HUB/blobs/c0nf1g"
HF_HUB_CACHE=$WORK/hub expect_status 1 "$ATTN" attend --model tiny/gpt2 --ids 1,2
expect_grep 'config\.json: its blob .*/blobs/c0nf1g is missing' "$ERR"
finish
