#!/usr/bin/env bash
# The trained two-layer model (tests/data/models/induction, made by train_induction.py) run as a
# user runs it, on texts typed here as it was trained: capitals (ABAB), a segment s of distinct
# lower-case letters, capitals, s again. Its two heads are found from attn's own output:
# - the previous-token head: the layer-0 row of head_stats with the largest `previous` has it
#   above 0.5, and that head's offsets profile peaks at j - i = -1;
# - the induction head: on two texts whose copies lie 9 and 14 tokens apart, one layer-1 head
#   puts more than 0.5 of the second copy's weight on the token after the current token's
#   earlier occurrence (query i, key i - distance + 1), at both distances (no position can do
#   that);
# - the continuation: `next` after s and the start of its copy is the segment's next letter;
# - the rollout's rows sum to 1.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
M=$ATTN_TEST_DATA/models/induction
S=qmwhzrt
NEAR="<|endoftext|>XKXK${S}DL${S}"
FAR="<|endoftext|>XK${S}DLDLPQP${S}"
expect_status 0 "$ATTN" attend --model "$M" "<|endoftext|>XKXK${S}DL${S:0:3}" --show next -f csv
checks=$((checks + 1))
[ "$(sed -n 2p "$OUT" | cut -d, -f3)" = "${S:3:1}" ] ||
    fail "next after the start of the copy: $(sed -n 2,3p "$OUT")"
expect_status 0 "$ATTN" attend --model "$M" "$NEAR" --show head_stats -o "$WORK/stats.csv"
expect_status 0 "$ATTN" attend --model "$M" "$NEAR" --show tokens,offsets,weights,rollout \
    -o "$WORK/near.npz"
expect_status 0 "$ATTN" attend --model "$M" "$FAR" --show tokens,weights -o "$WORK/far.npz"
checks=$((checks + 1))
"$PYTHON" - "$WORK/stats.csv" "$WORK/near.npz" "$WORK/far.npz" "$S" <<'PY' || fail "the trained model's heads"
import csv, sys
import numpy as np
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["layer"] == "0"]
p = max(range(len(rows)), key=lambda h: float(rows[h]["previous"]))
previous = float(rows[p]["previous"])
near, far, s = np.load(sys.argv[2]), np.load(sys.argv[3]), sys.argv[4]
n = len(near["tokens"])
offsets = near["offsets"]  # (layers, heads, 2n - 1): offset j - i at index j - i + n - 1
peak = int(offsets[0, p].argmax()) - (n - 1)
print(f"previous-token head: layer 0 head {p}, previous {previous:.3f}, offsets peak at {peak}")
assert previous > 0.5 and peak == -1, (rows, offsets[0, p])


def induction(z):
    """Per layer-1 head: mean over the second copy's queries but its last of w[i, i - d + 1],
    d the distance between the copies. Returns the scores and d."""
    text = "".join(z["tokens"][1:])  # after <|endoftext|>
    first, second = 1 + text.index(s), 1 + text.rindex(s)
    q = np.arange(second, second + len(s) - 1)
    return z["weights"][1][:, q, q - (second - first) + 1].mean(-1), second - first


near_scores, d_near = induction(near)
far_scores, d_far = induction(far)
h = int(near_scores.argmax())
print(f"induction head: layer 1 head {h}: {near_scores[h]:.3f} at distance {d_near}, "
      f"{far_scores[h]:.3f} at {d_far}")
assert d_near != d_far and near_scores[h] > 0.5 and far_scores[h] > 0.5, (near_scores, far_scores)
rollout = near["rollout"]
assert rollout.shape == (n, n) and np.abs(rollout.sum(-1) - 1).max() <= 1e-5, rollout.sum(-1)
PY
finish
