#!/usr/bin/env bash
# The trained two-layer model (tests/data/models/induction, made by train_induction.py) run as a
# user runs it. It continues a string typed twice: on held-out strings, attn's `next` after
# <|endoftext|> s s[:k] puts more than 0.9 on s[k]. Its summaries, from attn's own output:
# head_stats has one row per head, the head of layer 0 with the largest `previous` has its
# offsets peak at j - i = 0 or -1 (it looks at most one token back), the copy is read from the
# first copy (layer 1's farthest-looking head puts most of its second-copy weight on keys of
# the first copy), and the rollout's rows sum to 1.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
M=$ATTN_TEST_DATA/models/induction
for s in kdqzmwhbnvxr pqowieurytla; do
    expect_status 0 "$ATTN" attend --model "$M" "<|endoftext|>$s${s:0:7}" --show next -f csv
    expect_grep "^1,[0-9]+,[^,]+,0\.9" "$OUT"
    want=$(($(printf '%d' "'${s:7:1}") - 97))
    checks=$((checks + 1))
    [ "$(sed -n 2p "$OUT" | cut -d, -f2)" = "$want" ] || fail "next after $s${s:0:7}: $(sed -n 2p "$OUT")"
done
S=kdqzmwhbnvxr
expect_status 0 "$ATTN" attend --model "$M" "<|endoftext|>$S$S" \
    --show tokens,head_stats,offsets,weights,rollout -o "$WORK/out.npz"
checks=$((checks + 1))
"$PYTHON" - "$WORK/out.npz" "$S" <<'PY' || fail "the trained model's summaries"
import sys
import numpy as np
z = np.load(sys.argv[1])
s = sys.argv[2]
L, n = len(s), 2 * len(s) + 1
assert len(z["tokens"]) == n, z["tokens"]
stats = z["head_stats"]  # rows layer, head, entropy, distance, first, previous, self
assert stats.shape == (8, 7), stats.shape
offsets = z["offsets"]  # (layers, heads, 2n - 1): offset j - i at index j - i + n - 1
layer0 = stats[stats[:, 0] == 0]
p = int(layer0[:, 5].argmax())
assert offsets[0, p].argmax() - (n - 1) in (0, -1), offsets[0, p]
w = z["weights"]
layer1 = stats[stats[:, 0] == 1]
far = int(layer1[:, 3].argmax())
second = np.arange(L + 1, n)
on_first = w[1, far][second][:, 1:L + 1].sum(-1).mean()
print(f"layer 0 head {p}: previous {layer0[p, 5]:.3f}; layer 1 head {far}: distance "
      f"{layer1[far, 3]:.3f}, weight of the second copy on the first {on_first:.3f}")
assert on_first > 0.5, on_first
rollout = z["rollout"]
assert rollout.shape == (n, n) and np.abs(rollout.sum(-1) - 1).max() <= 1e-5, rollout.sum(-1)
PY
finish
