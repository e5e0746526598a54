#!/usr/bin/env bash
# attn compare as a user runs it:
# - js, top1 and max_abs equal numpy's from `attend --show weights` of both runs (within 1e-6,
#   top1 exactly), for gpt2, llama and qwen3 against --against-dtype bfloat16 and float64, and
#   for gpt2 and llama against a GGUF of the checkpoint quantized to Q4_0 by ggml itself
#   (ggml_lib.sh, compare_check.py); --show hidden from `attend --show hidden`, --show next from
#   the lens of every id at the last layer (`attend --show lens --top V`: KL within 1e-5
#   relative) and next's top id;
# - a model against itself: js 0, top1 1, max_abs 0; --prompts: the mean of the single runs;
# - a NaN in a checkpoint (gpt2's h.1.attn.c_attn.weight): js, max_abs, hidden and kl nan as
#   numpy's from the NaN rows, top1 numpy's argmax (the first NaN); exit 0 and one warning line
#   per run that met it, naming its option (--model, --against, --against-dtype D);
# - every text format's columns; the svg grid passes xmllint;
# - refusals (exit 2, one line naming the option, nothing written): a bad dtype, both or neither
#   of --against and --against-dtype, a shape, a vocabulary or a tokenizer that differs.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
M=$ATTN_TEST_DATA/models
CHECK=$(dirname "$0")/compare_check.py
IDS=47,34,48,83,54,50,67,51,86,69,83,44

# check_pair NAME A B (extra attend options of A, then of B, as strings) COMPARE-OPTIONS...:
# attend's weights, hidden and lens of both runs, compare's npz, and numpy's figures from them
check_pair() {
    local name=$1 model_a=$2 model_b=$3 extra_b=$4
    shift 4
    # shellcheck disable=SC2086
    for side in a b; do
        local model=$model_a extra=""
        [ $side = b ] && model=$model_b extra=$extra_b
        "$ATTN" attend --model "$model" --ids $IDS --show weights,hidden $extra \
            -o "$WORK/$side.npz" 2>"$ERR" || fail "$name: attend $side: $(cat "$ERR")"
        "$ATTN" attend --model "$model" --ids $IDS --show next,lens --layer -1 --position -1 \
            --top 96 $extra -o "$WORK/${side}_lens.npz" 2>"$ERR" ||
            fail "$name: attend lens $side: $(cat "$ERR")"
    done
    expect_status 0 "$ATTN" compare --ids $IDS --show weights,hidden,next "$@" \
        -o "$WORK/c.npz"
    for what in weights hidden; do
        checks=$((checks + 1))
        "$PYTHON" -B "$CHECK" $what "$WORK/a.npz" "$WORK/b.npz" "$WORK/c.npz" \
            >"$WORK/check.log" 2>&1 || fail "$name: $(tail -3 "$WORK/check.log")"
    done
    checks=$((checks + 1))
    "$PYTHON" -B "$CHECK" next "$WORK/a_lens.npz" "$WORK/b_lens.npz" "$WORK/c.npz" \
        >"$WORK/check.log" 2>&1 || fail "$name next: $(tail -3 "$WORK/check.log")"
}

for family in gpt2 llama qwen3; do
    for dtype in bfloat16 float64; do
        check_pair "$family $dtype" "$M/$family" "$M/$family" "--dtype $dtype" \
            --model "$M/$family" --against-dtype $dtype
    done
done

# against GGUF files of the checkpoints, quantized to Q4_0 by ggml's own quantizer
source "$(dirname "$0")/ggml_lib.sh"
for family in gpt2 llama; do
    "$PYTHON" -B "$CHECK" gguf "$GGML_LIBDIR" "$M" "$WORK" $family Q4_0 "$WORK/$family-Q4_0.gguf" \
        >"$WORK/gguf.log" 2>&1 || fail "$family: converting: $(tail -3 "$WORK/gguf.log")"
    check_pair "$family Q4_0" "$M/$family" "$WORK/$family-Q4_0.gguf" "" \
        --model "$M/$family" --against "$WORK/$family-Q4_0.gguf"
    # a 4-bit file does change the weights: some head's js is above 0
    "$PYTHON" -c "import numpy as n, sys; sys.exit(not n.load(sys.argv[1])['js'].max() > 0)" \
        "$WORK/c.npz" || fail "$family Q4_0: js is 0 everywhere"
done

# a model against itself: js 0, top1 1, max_abs 0, whether as a dtype or as a folder
for against in "--against-dtype float32" "--against $M/gpt2"; do
    # shellcheck disable=SC2086
    expect_status 0 "$ATTN" compare --model "$M/gpt2" $against --ids $IDS -f csv --no-header
    [ "$(cut -d, -f3- "$OUT" | sort -u)" = "0,1,0" ] || fail "$against: itself: $(cat "$OUT")"
done

# A NaN in A's weights: gpt2's Conv1D c_attn (in 32, out 96 = [q k v]), head 2's query column
# 17 of layer 1. Layer 1 head 2 and all of layer 2 are NaN rows in both runs; never a number.
"$PYTHON" - "$WORK" "$M/gpt2" <<'PY' || fail "making the NaN checkpoint"
import os, shutil, sys
work, gpt2 = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(gpt2))
import numpy as np
import safetensors_numpy as st
os.makedirs(os.path.join(work, "gpt2-nan"))
shutil.copy(os.path.join(gpt2, "config.json"), os.path.join(work, "gpt2-nan"))
t, dtypes = st.read(os.path.join(gpt2, "model.safetensors"))
t["h.1.attn.c_attn.weight"][0, 17] = np.nan
st.write(os.path.join(work, "gpt2-nan", "model.safetensors"), t, dtypes)
PY
NAN=$WORK/gpt2-nan
check_pair "gpt2 NaN float64" "$NAN" "$NAN" "--dtype float64" --model "$NAN" --against-dtype float64
expect_status 0 "$ATTN" compare --model "$NAN" --against-dtype float64 --ids 1,2,3 \
    --show weights,hidden,next -f table
WHERE='layer 1, head 2, position 0 \(h\.1\.attn\.c_attn\.weight holds a non-finite value\)$'
expect_grep "^attn: warning: --model: a NaN or inf first appears at $WHERE" "$ERR"
expect_grep "^attn: warning: --against-dtype float64: a NaN or inf first appears at $WHERE" "$ERR"
[ "$(wc -l <"$ERR")" -eq 2 ] || fail "NaN: want two lines on stderr: $(cat "$ERR")"
checks=$((checks + 1))
"$PYTHON" - "$OUT" <<'PY' || fail "NaN: $(cat "$OUT")"
import sys
# the tables weights, hidden and next, each a title, a header and rows: {column: values}
tables = [t.split("\n")[1:] for t in open(sys.argv[1]).read().strip().split("\n\n")]
weights, hidden, nxt = [dict(zip(t[0].split(), zip(*[r.split() for r in t[1:]]))) for t in tables]
js, top1, max_abs = weights["js"], weights["top1"], weights["max_abs"]
# layer 0, layer 1's heads 0, 1, 3: numbers; layer 1 head 2 and layer 2: nan (js, max_abs),
# top1 1 (both runs' argmax is the first NaN, index 0)
nan = [k for k in range(12) if k == 6 or k >= 8]
assert all(js[k] == "nan" and max_abs[k] == "nan" and top1[k] == "1" for k in nan), weights
assert all(js[k] != "nan" and max_abs[k] != "nan" for k in range(12) if k not in nan), weights
assert hidden["hidden"][0] != "nan" and hidden["hidden"][1:] == ("nan", "nan"), hidden
assert nxt["kl"] == ("nan",) and nxt["top1"] == ("1",), nxt
PY
# B a NaN checkpoint, A clean: one line, naming --against (and the prompt, of several)
printf '{"ids": [47, 34, 48]}\n{"ids": [8, 8, 2]}\n' >"$WORK/nan.jsonl"
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against "$NAN" --prompts "$WORK/nan.jsonl" \
    -f csv
expect_grep "^attn: warning: --against: --prompts: prompt 1: a NaN or inf first appears at $WHERE" "$ERR"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "--against NaN: want one line on stderr: $(cat "$ERR")"
expect_grep '^1,2,nan,[01.0-9]+,nan$' "$OUT"
expect_grep '^2,3,nan,[01.0-9]+,nan$' "$OUT"
expect_grep '^1,3,[0-9.e-]+,1,[0-9.e-]+$' "$OUT"

# --prompts: js and top1 the means of the single runs, max_abs their maximum
printf '{"ids": [47, 34, 48, 83, 54]}\n{"ids": [8, 8, 2, 8, 2, 61, 8, 90]}\n' >"$WORK/p.jsonl"
expect_status 0 "$ATTN" compare --model "$M/llama" --against-dtype bfloat16 \
    --prompts "$WORK/p.jsonl" -o "$WORK/all.npz"
expect_status 0 "$ATTN" compare --model "$M/llama" --against-dtype bfloat16 \
    --ids 47,34,48,83,54 -o "$WORK/one.npz"
expect_status 0 "$ATTN" compare --model "$M/llama" --against-dtype bfloat16 \
    --ids 8,8,2,8,2,61,8,90 -o "$WORK/two.npz"
checks=$((checks + 1))
"$PYTHON" -B "$CHECK" mean "$WORK/all.npz" "$WORK/one.npz" "$WORK/two.npz" \
    >"$WORK/check.log" 2>&1 || fail "--prompts: $(tail -3 "$WORK/check.log")"

# the text formats: the same columns in each
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS -f csv
[ "$(head -1 "$OUT")" = "layer,head,js,top1,max_abs" ] || fail "csv header: $(head -1 "$OUT")"
[ "$(wc -l <"$OUT")" -eq 13 ] || fail "csv: $(wc -l <"$OUT") lines, want 1 + 3 layers x 4 heads"
expect_grep '^2,3,' "$OUT"
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS -f tsv
[ "$(head -1 "$OUT")" = "$(printf 'layer\thead\tjs\ttop1\tmax_abs')" ] || fail "tsv header"
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS -f md
expect_grep '^\| *layer *\| *head *\| *js *\| *top1 *\| *max_abs *\|' "$OUT"
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS -f table
expect_grep 'layer +head +js +top1 +max_abs' "$OUT"
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS -f json
checks=$((checks + 1))
"$PYTHON" - "$OUT" <<'PY' || fail "json: $(head -c 300 "$OUT")"
import json, sys
j = json.load(open(sys.argv[1]))
j = j["weights"]
assert j["columns"] == ["layer", "head", "js", "top1", "max_abs"], j["columns"]
assert len(j["data"]) == 12
PY
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS \
    --show hidden -f csv
[ "$(head -1 "$OUT")" = "layer,hidden" ] || fail "hidden's csv header: $(head -1 "$OUT")"
[ "$(wc -l <"$OUT")" -eq 4 ] || fail "hidden's csv: $(wc -l <"$OUT") lines, want 1 + 3 layers"
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS \
    --show next -f csv
[ "$(head -1 "$OUT")" = "kl,top1" ] || fail "next's csv header: $(head -1 "$OUT")"

# the layers x heads grid of js
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS \
    -o "$WORK/js.svg"
checks=$((checks + 1))
xmllint --noout "$WORK/js.svg" 2>"$ERR" || fail "js.svg: $(head -3 "$ERR")"
expect_grep 'Jensen-Shannon' "$WORK/js.svg"
expect_status 0 "$ATTN" compare --model "$M/gpt2" --against-dtype bfloat16 --ids $IDS \
    -o "$WORK/js.png"
[ "$(head -c 4 "$WORK/js.png" | tail -c 3)" = "PNG" ] || fail "js.png is no PNG"

# refusals: exit 2, one line naming the option, nothing written
refuse() {
    local option=$1
    shift
    rm -f "$WORK/no.csv"
    expect_usage_error "$option" "$ATTN" compare "$@" -o "$WORK/no.csv"
    [ ! -e "$WORK/no.csv" ] || fail "'$*': wrote $WORK/no.csv"
}
refuse --against-dtype --model "$M/gpt2" --against-dtype int8 --ids $IDS
refuse --against --model "$M/gpt2" --ids $IDS
refuse --against --model "$M/gpt2" --against "$M/gpt2" --against-dtype float64 --ids $IDS
refuse --against --model "$M/gpt2" --against "$M/llama" --ids $IDS
expect_grep '2 layers x 4 heads, --model 3 layers x 4 heads' "$ERR"
# a prompt, once: none, a text and --prompts, a text and --ids
printf '1,2\n' >"$WORK/one.txt"
refuse --model --model "$M/gpt2" --against-dtype float64
refuse --prompts --model "$M/gpt2" --against-dtype float64 --prompts "$WORK/one.txt" "a text"
refuse --prompts --model "$M/gpt2" --against-dtype float64 --prompts "$WORK/one.txt" --ids $IDS
refuse --ids --model "$M/gpt2" --against-dtype float64 --ids $IDS "a text"
expect_status 1 "$ATTN" compare --model "$M/gpt2" --against "$WORK/nothing" --ids $IDS
expect_grep '^attn: --against: model .* not found' "$ERR"
# a vocabulary of another size (its config), and a tokenizer that spells an id otherwise
mkdir -p "$WORK/vocab" "$WORK/tokens"
sed 's/"vocab_size": 96/"vocab_size": 97/' "$M/llama/config.json" >"$WORK/vocab/config.json"
ln -s "$M/llama/model.safetensors" "$WORK/vocab/model.safetensors"
refuse --against --model "$M/llama" --against "$WORK/vocab" --ids $IDS
expect_grep 'vocabulary has 97 ids, --model.s 96' "$ERR"
I=$M/induction
cp "$I/config.json" "$I/merges.txt" "$WORK/tokens/"
ln -s "$I/model.safetensors" "$WORK/tokens/model.safetensors"
"$PYTHON" - "$I/vocab.json" "$WORK/tokens/vocab.json" <<'PY' || fail "writing vocab.json"
import json, sys
v = json.load(open(sys.argv[1]))
a, b = [t for t, i in v.items() if t in ("a", "b")]
v[a], v[b] = v[b], v[a]  # the same tokens, two ids swapped
json.dump(v, open(sys.argv[2], "w"))
PY
refuse --against --model "$I" --against "$WORK/tokens" "abcabc"
expect_status 0 "$ATTN" compare --model "$I" --against "$I" "abcabc" -f csv
refuse --show --model "$M/gpt2" --against-dtype float64 --ids $IDS --show weights,lens
expect_usage_error --show "$ATTN" compare --model "$M/gpt2" --against-dtype float64 --ids $IDS \
    --show next,hidden -o "$WORK/no.svg"
[ ! -e "$WORK/no.svg" ] || fail "--show next,hidden -o no.svg: wrote it"
refuse --show --model "$M/bert" --against-dtype float64 --ids 1,2,3 --show next
# the formats a (layer, head) table cannot be, as for heads
expect_usage_error "compare writes csv, tsv, table, md, json, npz, svg or png, not heatmap" \
    "$ATTN" compare --model "$I" --against "$I" "abcabc" -f heatmap
mkdir "$WORK/pages"
expect_usage_error "-o: compare writes json to one file, not a directory" "$ATTN" compare \
    --model "$I" --against "$I" "abcabc" -f json -o "$WORK/pages/"
[ -z "$(ls -A "$WORK/pages")" ] || fail "-f json -o pages/: wrote into it"
finish
