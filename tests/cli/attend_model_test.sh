# attn attend --model on the tiny checkpoints of tests/data/models, read back with numpy: every
# family's scores, weights, context, hidden, positions and next against the stored PyTorch
# references (attend_model_compare.py); --layer and --head; csv blocks; refusals.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

M=$ATTN_TEST_DATA/models
"$PYTHON" -B "$(dirname "$0")/attend_model_compare.py" "$ATTN" "$M" "$WORK" ||
    fail "attend --model differs from the references"
checks=$((checks + 1))

# --layer and --head select; the arrays stay 4-D; the values are the full run's.
IDS=47,34,48,83,54,50,67,51,86,69,83,44,76,80,7,65
"$ATTN" attend --model "$M/gpt2" --ids $IDS --show weights,context,hidden --layer 1:3 \
    --head -1,0 -o "$WORK/sel.npz" || fail "--layer 1:3 --head -1,0"
"$ATTN" attend --model "$M/gpt2" --ids $IDS --show scores,weights --layer -1 --head 2 \
    -o "$WORK/one.npz" || fail "--layer -1 --head 2"
"$PYTHON" - "$WORK" "$M/gpt2/expected_n16_float32.npz" <<'PY' || fail "selection checks"
import sys, numpy as np
work, ref = sys.argv[1], np.load(sys.argv[2])
z = np.load(f"{work}/sel.npz")
assert z["weights"].shape == (2, 2, 16, 16), z["weights"].shape
assert np.abs(z["weights"] - ref["weights"][1:3][:, [0, 3]]).max() < 1e-5
assert np.abs(z["context"] - ref["context"][1:3][:, [0, 3]]).max() < 1e-4
# hidden: before layer 1, after 1, after 2
assert z["hidden"].shape == (3, 16, 32)
assert np.abs(z["hidden"] - ref["hidden"][1:4]).max() < 1e-4 * max(1, np.abs(ref["hidden"]).max())
o = np.load(f"{work}/one.npz")
assert o["weights"].shape == (1, 1, 16, 16) and o["scores"].shape == (1, 1, 16, 16)
# scores: within 1e-5 relative to max(1, max |reference|), as the contract bounds them
assert np.abs(o["scores"][0, 0] - ref["scores"][2, 2]).max() < 1e-5 * max(1, np.abs(ref["scores"][2, 2]).max())
PY
checks=$((checks + 1))

# Summaries reduced while the weights stream, against numpy on the weights themselves.
"$ATTN" attend --model "$M/llama" --ids 1,5,9,3,7,22,40 --layer 0:2 --head 1:3 \
    --show weights,head_stats,offsets,mean_weights,rollout -o "$WORK/sum.npz" || fail "summaries"
"$PYTHON" - "$WORK/sum.npz" <<'PY' || fail "summary checks"
import sys, numpy as np
z = np.load(sys.argv[1]); w = z["weights"].astype(np.float64); L, H, n, _ = w.shape
i = np.arange(n)
stats = []
for l in range(L):
    for h in range(H):
        a = w[l, h]
        ent = -np.where(a > 0, a * np.log(np.where(a > 0, a, 1)), 0).sum(1).mean()
        dist = (a * np.abs(i[:, None] - i[None, :])).sum(1).mean()
        stats.append([l, h + 1, ent, dist, a[:, 0].mean(), a[i[1:], i[1:] - 1].mean(), np.diag(a).mean()])
assert np.abs(np.array(stats) - z["head_stats"]).max() < 1e-6
mean = w.mean(1)
assert np.abs(mean - z["mean_weights"]).max() < 1e-6
R = np.eye(n)
for l in range(L):
    A = 0.5 * mean[l] + 0.5 * np.eye(n); A /= A.sum(1, keepdims=True); R = A @ R
assert np.abs(R - z["rollout"]).max() < 1e-6
off = np.zeros((L, H, 2 * n - 1))
for o in range(-(n - 1), n):
    off[:, :, o + n - 1] = np.mean([w[:, :, k, k + o] for k in range(n) if 0 <= k + o < n], axis=0)
assert np.abs(off - z["offsets"]).max() < 1e-6
PY
checks=$((checks + 1))

# The key labels are the tokens (with --ids, the ids), so the html page shows them.
expect_status 0 "$ATTN" attend --model "$M/bert" --ids 2,10,11,3 --layer 0 -o "$WORK/bert.html"
grep -q '"tokens": \["2", "10", "11", "3"\]' "$WORK/bert.html" ||
    fail "the html page of --model does not show its tokens"
checks=$((checks + 1))

# csv: one block per layer and head, layer and head columns first.
expect_status 0 "$ATTN" attend --model "$M/bert" --ids 2,10,11,3 --layer 1 --head 2:4 -f csv
expect_grep '^layer,head,query,2,10,11,3$' "$OUT"
expect_grep '^1,3,3,' "$OUT"
[ "$(wc -l <"$OUT")" -eq 9 ] || fail "bert csv: want 1 header + 2 heads x 4 rows"
expect_status 0 "$ATTN" attend --model "$M/llama" --ids 1,5,9 --show next -f csv
expect_grep '^rank,id,token,probability$' "$OUT"
[ "$(wc -l <"$OUT")" -eq 11 ] || fail "next: want 10 rows"

# Token text: the tiny GPT-2 beside a byte-level vocabulary of its 96 ids (the printable ASCII
# characters, Ġ for the space, <|endoftext|>). tokens is numpy's '<U' in npz and npy; next
# spells its ids as the vocabulary does in the npz member next_tokens.
mkdir -p "$WORK/spelled"
ln -s "$M/gpt2/config.json" "$M/gpt2/model.safetensors" "$WORK/spelled/"
"$PYTHON" - "$WORK/spelled" <<'PY'
import json, sys
vocab = {chr(c): c - 33 for c in range(33, 127)}
vocab.update({"\u0120": 94, "<|endoftext|>": 95})
json.dump(vocab, open(sys.argv[1] + "/vocab.json", "w"))
open(sys.argv[1] + "/merges.txt", "w").write("#version: 0.2\n")
PY
expect_status 0 "$ATTN" attend --model "$WORK/spelled" "Life is short" --show tokens,ids,next \
    -o "$WORK/spelled.npz"
expect_status 0 "$ATTN" attend --model "$WORK/spelled" "Life is short" --show tokens \
    -o "$WORK/tokens.npy"
expect_status 0 "$ATTN" attend --model "$WORK/spelled" "Life is short" --show next -f csv
cp "$OUT" "$WORK/next.csv"
"$PYTHON" - "$WORK" <<'PY' || fail "token text in npz, npy and csv"
import csv, json, sys, numpy as np
w = sys.argv[1]
vocab = {i: t for t, i in json.load(open(w + "/spelled/vocab.json")).items()}
z = np.load(w + "/spelled.npz")
want = ["L", "i", "f", "e", "\u0120", "i", "s", "\u0120", "s", "h", "o", "r", "t"]
assert z["tokens"].dtype == np.dtype("<U1") and list(z["tokens"]) == want, z["tokens"]
assert list(np.load(w + "/tokens.npy")) == want
assert [vocab[i] for i in z["ids"]] == want
ids = z["next"][:, 1].astype(int)
assert z["next_tokens"].dtype.kind == "U" and list(z["next_tokens"]) == [vocab[i] for i in ids]
rows = list(csv.DictReader(open(w + "/next.csv")))
# next's token column shows the text (a space as U+2423), next_tokens the spelling
label = lambda t: t.replace("\u0120", "\u2423")
assert [vocab[int(r["id"])] for r in rows] == list(z["next_tokens"])
assert [r["token"] for r in rows] == [label(vocab[int(r["id"])]) for r in rows]
PY
checks=$((checks + 1))

# Refusals: exit 2, one line naming the option, nothing written.
expect_usage_error --ids "$ATTN" attend --model "$M/gpt2" --ids 1,96
expect_usage_error --ids "$ATTN" attend --model "$M/gpt2" --ids 1,,2
expect_usage_error --ids "$ATTN" attend --model "$M/gpt2" "some text" --ids 1
# A text needs the model's tokenizer files (the tiny checkpoints have none).
expect_usage_error tokenizer "$ATTN" attend --model "$M/gpt2" "some text"
expect_usage_error --layer "$ATTN" attend --model "$M/gpt2" --ids 1 --layer 3
expect_usage_error --head "$ATTN" attend --model "$M/gpt2" --ids 1 --head -5
expect_usage_error --heads "$ATTN" attend --model "$M/gpt2" --ids 1 --heads 2
expect_usage_error --scheme "$ATTN" attend --model "$M/gpt2" --ids 1 --scheme rope
expect_usage_error --causal "$ATTN" attend --model "$M/gpt2" --ids 1 --causal
expect_usage_error "--show next" "$ATTN" attend --model "$M/t5" --ids 1,2 --show next
expect_usage_error --show "$ATTN" attend --model "$M/t5" --ids 1,2 --show queries
expect_usage_error --max-memory "$ATTN" attend --model "$M/llama" --ids 1,2 --max-memory 1K
expect_usage_error gpt2 "$ATTN" attend --model "$M/gpt2" --ids "$(seq -s, 0 32)"
# A model that is not there: exit 1, naming where it looked.
expect_status 1 "$ATTN" attend --model "$WORK/nothing" --ids 1
expect_grep 'nothing' "$ERR"
# A tensor missing from the checkpoint: exit 2 naming it.
mkdir -p "$WORK/broken"
cp "$M/gpt2/config.json" "$WORK/broken/"
"$PYTHON" - "$M" "$WORK/broken/model.safetensors" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import safetensors_numpy as st
tensors, dtypes = st.read(sys.argv[1] + "/gpt2/model.safetensors")
del tensors["h.1.mlp.c_fc.weight"]
st.write(sys.argv[2], tensors, dtypes)
PY
expect_usage_error 'h.1.mlp.c_fc.weight' "$ATTN" attend --model "$WORK/broken" --ids 1
finish
