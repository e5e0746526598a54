#!/usr/bin/env bash
# attn heads on a checkpoint holding a NaN (design.md, Non-finite values: "never turned into a
# number ... one line on standard error names where it first appeared"): gpt2 with one NaN in
# layer 1's query weights of head 2. Head (1, 2) reads NaN queries and layer 2 a NaN residual
# stream, so their rows are NaN: every score of those heads is nan (entropy included), the
# other heads score as on the clean checkpoint, and stderr holds attend's one warning line.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

M=$ATTN_TEST_DATA/models
"$PYTHON" - "$WORK" "$M/gpt2" <<'PY' || fail "making the checkpoint"
import os, shutil, sys
import numpy as np
work, gpt2 = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(gpt2))
import safetensors_numpy as st
out = os.path.join(work, "gpt2-nan")
os.makedirs(out)
shutil.copy(os.path.join(gpt2, "config.json"), out)
t, dtypes = st.read(os.path.join(gpt2, "model.safetensors"))
t["h.1.attn.c_attn.weight"][0, 17] = np.nan  # Conv1D (in 32, out 96): head 2's query columns
st.write(os.path.join(out, "model.safetensors"), t, dtypes)
PY
NAN=$WORK/gpt2-nan
WARNING='attn: warning: a NaN or inf first appears at layer 1, head 2, position 0 (h.1.attn.c_attn.weight holds a non-finite value)'

for dtype in float32 float64; do
    expect_status 0 "$ATTN" heads --model "$M/gpt2" --ids 1,2,3,1,2 --dtype $dtype -f csv
    cp "$OUT" "$WORK/clean.csv"
    expect_status 0 "$ATTN" heads --model "$NAN" --ids 1,2,3,1,2 --dtype $dtype -f csv
    checks=$((checks + 1))
    [ "$(cat "$ERR")" = "$WARNING" ] || fail "$dtype: stderr is not the one warning: $(cat "$ERR")"
    "$PYTHON" - "$OUT" "$WORK/clean.csv" <<'PY' || fail "$dtype: the scores"
import csv, math, sys
got, clean = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(got) == len(clean) == 12, len(got)
scores = ["previous", "duplicate", "induction", "sink", "self", "entropy"]
for g, c in zip(got, clean):
    broken = (g["layer"], g["head"]) == ("1", "2") or g["layer"] == "2"
    if broken:
        assert all(g[k] == "nan" for k in scores), g
        assert g["type"] == "" and g["offset"] == "-1", g  # argmax: the first NaN, key 0
    else:
        assert g == c, (g, c)
        assert all(not math.isnan(float(g[k])) for k in scores), g
print("ok")
PY
    checks=$((checks + 1))
done

# attend says the same line; heads before the broken layer says nothing
expect_status 0 "$ATTN" attend --model "$NAN" --ids 1,2,3,1,2 --show head_stats -f csv
checks=$((checks + 1))
[ "$(cat "$ERR")" = "$WARNING" ] || fail "attend's warning differs: $(cat "$ERR")"
expect_status 0 "$ATTN" heads --model "$NAN" --ids 1,2,3,1,2 --layer 0 -f csv
checks=$((checks + 1))
[ ! -s "$ERR" ] || fail "--layer 0 reads no NaN, yet: $(cat "$ERR")"
expect_grep '^0,3,' "$OUT"

# many prompts: one line, naming the first prompt's file and line
printf '{"ids": [1, 2, 3]}\n\n{"ids": [4, 5, 4, 5]}\n' >"$WORK/p.jsonl"
expect_status 0 "$ATTN" heads --model "$NAN" --prompts "$WORK/p.jsonl" --threads 2 -f csv
checks=$((checks + 1))
[ "$(cat "$ERR")" = "attn: warning: --prompts: $WORK/p.jsonl, line 1: ${WARNING#attn: warning: }" ] ||
    fail "--prompts: stderr: $(cat "$ERR")"
expect_grep '^1,2,nan,nan,nan,nan,nan,nan,-1,' "$OUT"
finish
