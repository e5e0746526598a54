# A NaN in a checkpoint's weights, as a researcher meets one: attn propagates it as PyTorch does
# (a row of NaN weights, NaN next-token probabilities; never a clean-looking number), writes the
# output as usual, exits 0, and says on one line of stderr where it first appeared: the layer,
# head and position, and the tensor holding it as the file spells it. On both attention paths
# (weights kept: direct; --show next alone: the fused kernel), in float32 and float64.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

M=$ATTN_TEST_DATA/models
"$PYTHON" - "$WORK" "$M/gpt2" "$M/llama" <<'PY' || fail "making the checkpoints"
import os, shutil, sys
import numpy as np
work, gpt2, llama = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(gpt2))
import safetensors_numpy as st

def broken(src, name, edit):
    out = os.path.join(work, name)
    os.makedirs(out)
    shutil.copy(os.path.join(src, "config.json"), out)
    t, dtypes = st.read(os.path.join(src, "model.safetensors"))
    edit(t)
    st.write(os.path.join(out, "model.safetensors"), t, dtypes)

# gpt2: Conv1D c_attn (in 32, out 96 = [q k v]); head 2's query columns are 16..23.
def q_head2(t):
    t["h.1.attn.c_attn.weight"][0, 17] = np.nan
broken(gpt2, "gpt2-nan", q_head2)
# the same under GPT2LMHeadModel's spelling: the warning names the tensor as the file does
def prefixed(t):
    for name in list(t):
        t["transformer." + name] = t.pop(name)
    t["transformer.h.1.attn.c_attn.weight"][0, 17] = np.nan
broken(gpt2, "gpt2-prefixed-nan", prefixed)
# llama: v_proj (out 2 K/V heads x 16, in 64); an inf in K/V head 1's value rows.
def v_inf(t):
    t["model.layers.0.self_attn.v_proj.weight"][20, 3] = np.inf
broken(llama, "llama-inf", v_inf)
PY

IDS=46,68,50,65,81,17,68
for dtype in float32 float64; do
    expect_status 0 "$ATTN" attend --model "$WORK/gpt2-nan" --ids $IDS --show weights,next \
        --dtype $dtype -o "$WORK/w-$dtype.npz"
    expect_grep '^attn: warning: .*layer 1, head 2, position 0 \(h\.1\.attn\.c_attn\.weight holds a non-finite value\)$' "$ERR"
    [ "$(wc -l <"$ERR")" -eq 1 ] || fail "$dtype: want one line on stderr: $(cat "$ERR")"
    "$PYTHON" - "$WORK/w-$dtype.npz" "$M/gpt2/expected_n7_$dtype.npz" <<'PY' || fail "$dtype: NaN rows"
import sys, numpy as np
z, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
w = z["weights"]  # (3, 4, 7, 7)
# layer 0 untouched; layer 1 head 2 NaN in every row (its q is NaN); the others of layer 1
# as before; layer 2 reads NaN from the residual stream: NaN everywhere
assert np.abs(w[0] - ref["weights"][0]).max() < 1e-5
assert np.isnan(w[1, 2]).all(), w[1, 2]
for h in (0, 1, 3):
    assert np.abs(w[1, h] - ref["weights"][1, h]).max() < 1e-5
assert np.isnan(w[2]).all()
assert np.isnan(z["next"][:, 2]).all(), z["next"][:5]  # rank, id, probability
PY
    checks=$((checks + 1))
done

# The fused kernel (no n x n array kept): next is NaN and the same line is said.
expect_status 0 "$ATTN" attend --model "$WORK/gpt2-nan" --ids $IDS --show next -f csv
expect_grep 'layer 1, head 2, position 0 \(h\.1\.attn\.c_attn\.weight' "$ERR"
expect_grep '^1,.*,nan$' "$OUT"
grep -qE ',0\.[0-9]+$' "$OUT" && fail "next: a probability that is a number: $(head -3 "$OUT")"

# The checkpoint's own spelling of the tensor, not the first the family accepts.
expect_status 0 "$ATTN" attend --model "$WORK/gpt2-prefixed-nan" --ids $IDS --show next -f csv
expect_grep '^attn: warning: .*layer 1, head 2, position 0 \(transformer\.h\.1\.attn\.c_attn\.weight holds' "$ERR"

# An inf in V: every query of the heads sharing that K/V head is not finite, on the direct path
# and the fused kernel alike.
expect_status 0 "$ATTN" attend --model "$WORK/llama-inf" --ids 1,5,9,3 --show context -o "$WORK/c.npz"
expect_grep 'layer 0, head 2, position 0 \(model\.layers\.0\.self_attn\.v_proj\.weight holds' "$ERR"
"$PYTHON" - "$WORK/c.npz" <<'PY' || fail "inf in V"
import sys, numpy as np
c = np.load(sys.argv[1])["context"]  # (2, 4, 4, 16): heads 2, 3 read K/V head 1
assert np.isfinite(c[0, :2]).all(), c[0, :2]
assert not np.isfinite(c[0, 2:, :, 4]).any(), c[0, 2:, :, 4]
PY
checks=$((checks + 1))
expect_status 0 "$ATTN" attend --model "$WORK/llama-inf" --ids 1,5,9,3 --show next -f csv
expect_grep 'layer 0, head 2, position 0' "$ERR"

finish
