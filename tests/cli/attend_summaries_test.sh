#!/usr/bin/env bash
# The random model's summaries (--show head_stats, offsets, mean_weights, rollout) equal
# numpy's computation from the full weights of the same run, within 1e-6 (float64 run),
# without and with the causal mask; head_stats is a csv table with layer 0.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
S="Life is short, eat dessert first"
for mask in "" --causal; do
    expect_status 0 "$ATTN" attend "$S" --heads 4 $mask --dtype float64 \
        --show weights,head_stats,offsets,mean_weights,rollout -o "$WORK/s.npz"
    checks=$((checks + 1))
    "$PYTHON" - "$WORK/s.npz" <<'PY' || fail "summaries ${mask:-without a mask} differ from numpy's"
import sys
import numpy as np
z = np.load(sys.argv[1])
w = z["weights"]  # (H, n, n)
H, n, _ = w.shape
i = np.arange(n)
with np.errstate(divide="ignore", invalid="ignore"):
    ent = -np.where(w > 0, w * np.log(w), 0).sum(-1).mean(-1)
dist = (w * np.abs(i[:, None] - i[None, :])).sum(-1).mean(-1)
stats = np.stack([np.zeros(H), np.arange(H), ent, dist, w[:, :, 0].mean(-1),
                  w[:, i[1:], i[1:] - 1].mean(-1), w[:, i, i].mean(-1)], 1)
assert np.abs(z["head_stats"] - stats).max() < 1e-6, (z["head_stats"], stats)
offsets = np.array([[np.diagonal(w[h], o).mean() for o in range(-(n - 1), n)] for h in range(H)])
assert z["offsets"].shape == (H, 2 * n - 1) and np.abs(z["offsets"] - offsets).max() < 1e-6
mean = w.mean(0)
assert np.abs(z["mean_weights"] - mean).max() < 1e-6
a = 0.5 * mean + 0.5 * np.eye(n)
a /= a.sum(-1, keepdims=True)
assert np.abs(z["rollout"] - a).max() < 1e-6 and np.abs(z["rollout"].sum(-1) - 1).max() < 1e-12
PY
done
expect_status 0 "$ATTN" attend "$S" --heads 2 --show head_stats -f csv
expect_grep '^layer,head,entropy,distance,first,previous,self$' "$OUT"
expect_grep '^0,1,' "$OUT"
# The summaries' n x n sums and the rollout's product are counted before anything is made: at
# n = 4096 the attention fits in 64 MiB, its rollout (about 1 GiB) is refused, nothing written.
"$PYTHON" -c "import numpy as np; np.save('$WORK/x.npy', np.ones((4096, 8), np.float32))"
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --show context --max-memory 64M -o "$WORK/c.npy"
expect_usage_error max-memory "$ATTN" attend --input "$WORK/x.npy" --show rollout \
    --max-memory 64M -o "$WORK/r.npy"
checks=$((checks + 1))
[ ! -e "$WORK/r.npy" ] || fail "a refused rollout left $WORK/r.npy"
finish
