#!/usr/bin/env bash
# attn heads and attn merge as a user runs them:
# - the trained model (tests/data/models/induction) on prompts of its own task (<|endoftext|>,
#   then distinct lower-case letters, repeated): layer 1 head 0 is `induction`, layer 0 head 0
#   `previous`;
# - every score equals numpy's computation (heads_check.py) from `attend --show weights` within
#   1e-5, on checkpoints of several families, for each measure and exclusion;
# - three shards merged equal one run within 1e-12 relative; different models or options are
#   refused naming the difference; doctored partials (numpy) are refused naming file and member;
# - the probe, the formats, the refusals.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
M=$ATTN_TEST_DATA/models
I=$M/induction
CHECK=$(dirname "$0")/heads_check.py

# prompts of the trained task: BOS, a segment of distinct lower-case letters, the segment again
cat >"$WORK/task.txt" <<'TXT'
<|endoftext|>qmwhzrtqmwhzrt
<|endoftext|>abcdefgabcdefg

<|endoftext|>xkvnpdxkvnpd
<|endoftext|>jlmsoqurjlmsoqur
<|endoftext|>zyxwvzyxwv
<|endoftext|>hgfedcbihgfedcbi
TXT
expect_status 0 "$ATTN" heads --model "$I" --prompts "$WORK/task.txt" -f csv
checks=$((checks + 1))
[ "$(head -1 "$OUT")" = "layer,head,previous,duplicate,induction,sink,self,entropy,offset,positional,type" ] ||
    fail "csv header: $(head -1 "$OUT")"
expect_grep '^1,0,.*,induction$' "$OUT"
expect_grep '^0,0,.*,previous$' "$OUT"
cp "$OUT" "$WORK/task.csv"

# the same prompts from standard input, as .jsonl ids, and as one run per prompt added up
expect_status 0 sh -c "'$ATTN' heads --model '$I' --prompts - -f csv <'$WORK/task.txt'"
checks=$((checks + 1))
cmp -s "$OUT" "$WORK/task.csv" || fail "--prompts - differs from --prompts FILE"

# numpy from attend's weights: several families, each measure and exclusion
IDS=3,17,5,9,3,17,5,9,40,3,17
printf '{"ids": [3, 17, 5, 9, 3, 17, 5, 9, 40, 3, 17]}\n{"ids": [8, 8, 2, 8, 2, 61, 8]}\n' >"$WORK/ids.jsonl"
for family in gpt2 bert llama mistral qwen2 bloom t5 gpt2-f16 llama-bf16; do
    causal=1
    case $family in bert | t5) causal=0 ;; esac
    "$ATTN" attend --model "$M/$family" --ids $IDS --show weights -o "$WORK/w1.npz" ||
        fail "$family: attend weights"
    "$ATTN" attend --model "$M/$family" --ids 8,8,2,8,2,61,8 --show weights -o "$WORK/w2.npz" ||
        fail "$family: attend weights"
    for measure in rows mul abs; do
        for flags in "" "--exclude-bos" "--exclude-self" "--exclude-bos --exclude-self"; do
            bos=0 self=0
            case $flags in *bos*) bos=1 ;; esac
            case $flags in *self*) self=1 ;; esac
            # shellcheck disable=SC2086
            expect_status 0 "$ATTN" heads --model "$M/$family" --prompts "$WORK/ids.jsonl" \
                --measure $measure $flags -f json
            checks=$((checks + 1))
            "$PYTHON" "$CHECK" "$OUT" $causal $measure $bos $self "$WORK/w1.npz" "$WORK/w2.npz" \
                >"$WORK/check.log" 2>&1 || fail "$family $measure $flags: $(tail -3 "$WORK/check.log")"
        done
    done
    # one prompt given as --ids is the first prompt alone
    expect_status 0 "$ATTN" heads --model "$M/$family" --ids $IDS -f json
    checks=$((checks + 1))
    "$PYTHON" "$CHECK" "$OUT" $causal rows 0 0 "$WORK/w1.npz" >"$WORK/check.log" 2>&1 ||
        fail "$family --ids: $(tail -3 "$WORK/check.log")"
done

# three shards merged = one run (1e-12 relative), whatever the split
sed -n 1,2p "$WORK/task.txt" >"$WORK/s1.txt"
sed -n 3,5p "$WORK/task.txt" >"$WORK/s2.txt"
sed -n 6,7p "$WORK/task.txt" >"$WORK/s3.txt"
for k in 1 2 3; do
    expect_status 0 "$ATTN" heads --model "$I" --prompts "$WORK/s$k.txt" --measure mul \
        --exclude-bos --partial -o "$WORK/part$k.npz"
done
expect_status 0 "$ATTN" heads --model "$I" --prompts "$WORK/task.txt" --measure mul \
    --exclude-bos -o "$WORK/one.json"
expect_status 0 "$ATTN" merge "$WORK/part1.npz" "$WORK/part2.npz" "$WORK/part3.npz" \
    -o "$WORK/merged.json"
checks=$((checks + 1))
"$PYTHON" - "$WORK/one.json" "$WORK/merged.json" <<'PY' || fail "merge of 3 shards differs from one run"
import json, sys
import numpy as np
one, merged = (json.load(open(p)) for p in sys.argv[1:])
assert one["columns"] == merged["columns"] and one["prompts"] == merged["prompts"]
for a, b in zip(one["data"], merged["data"]):
    for x, y in zip(a, b):
        if isinstance(x, float):
            assert abs(x - y) <= 1e-12 * abs(x), (a, b)
        else:
            assert x == y, (a, b)
assert one["sink_rate"] == merged["sink_rate"]
print("merged = one run;", len(one["prompts"]), "prompts")
PY
expect_status 0 "$ATTN" heads --model "$I" --prompts "$WORK/s1.txt" --partial -o "$WORK/rows.npz"
expect_usage_error "--measure" "$ATTN" merge "$WORK/part1.npz" "$WORK/rows.npz"
expect_status 0 "$ATTN" heads --model "$M/gpt2" --ids 1,2,3 --measure mul --exclude-bos --partial \
    -o "$WORK/gpt2.npz"
expect_usage_error "config.json" "$ATTN" merge "$WORK/part1.npz" "$WORK/gpt2.npz"
expect_usage_error "not a partial" "$ATTN" merge "$WORK/part1.npz" "$WORK/w1.npz"
expect_usage_error "--partial" "$ATTN" heads --model "$I" --prompts "$WORK/s1.txt" --partial -f csv

# a partial is untrusted input: a doctored member exits 2 with one line naming the file and the
# member and what was expected, and writes nothing (the good part2 read first)
"$PYTHON" - "$WORK/part1.npz" "$WORK/bad" <<'PY' || fail "doctoring the partials"
import os, sys
import numpy as np
z = dict(np.load(sys.argv[1]))
os.makedirs(sys.argv[2])
def save(name, **change):
    np.savez(os.path.join(sys.argv[2], name + ".npz"), **{**z, **change})
lengths, ids, model = z["prompt_lengths"].copy(), z["prompt_ids"].copy(), z["model"].copy()
assert list(z["layers"]) == [0, 1] and z["sums"].shape == (4, 23) and len(lengths) == 2
save("sums_negated", sums=-z["sums"])
save("sums_nan", sums=np.full_like(z["sums"], np.nan))
save("argmax_cut", argmax=z["argmax"][:, :5])
lengths[0] = 7.5
save("lengths_half", prompt_lengths=lengths)
ids[3] = 1e30
save("id_huge", prompt_ids=ids)
save("layers_past", layers=np.array([0.0, 7.0]))
save("prompts_none", prompt_lengths=np.zeros(0), prompt_ids=np.zeros(0))
save("layers_2d", layers=z["layers"].reshape(1, 2))
save("layers_int", layers=z["layers"].astype(np.int64))
save("layers_fewer", layers=np.array([1.0]))
argmax = z["argmax"].copy()
argmax[0, 0] += 1
save("argmax_more", argmax=argmax)
sums = z["sums"].copy()
sums[:, 22] += 1
save("queries_more", sums=sums)
model[0] = "config={"
save("model_broken", model=model)
save("extra", extra=np.zeros(1))
options = z["options"].copy()
options[1] = "--measure=max"
save("measure_bad", options=options)
save("ids_short", prompt_ids=z["prompt_ids"][:-1])
save("sums_f4", sums=z["sums"].astype(np.float32))
save("heads_twice", heads=np.array([0.0, 0.0]))
save("argmax_negated", argmax=-z["argmax"])
save("format_other", format=np.array(["attn heads partial 2"]))
PY
expect_bad_partial() {  # NAME MEMBER TEXT: merge part2 + bad/NAME.npz
    local bad=$WORK/bad/$1.npz
    for output in "-o $WORK/bad.csv" "--partial -o $WORK/bad.npz"; do
        # shellcheck disable=SC2086
        expect_usage_error "$bad: $2" "$ATTN" merge "$WORK/part2.npz" "$bad" $output
        checks=$((checks + 1))
        # the one line, then the usage errors' "Try 'attn merge --help'" line
        [ "$(wc -l <"$ERR")" -eq 2 ] && head -1 "$ERR" | grep -qF -- "$3" &&
            sed -n 2p "$ERR" | grep -q "^Try 'attn merge --help'" || fail "$1: $(cat "$ERR")"
        [ ! -e "$WORK/bad.csv" ] && [ ! -e "$WORK/bad.npz" ] || fail "$1: wrote $output"
    done
}
expect_bad_partial sums_negated sums ">= 0 expected"
expect_bad_partial sums_nan sums "nan at row 0, column 0 (rows_previous); a finite sum >= 0 expected"
expect_bad_partial argmax_cut argmax "shape (4, 5); (4, 29) expected"
expect_bad_partial lengths_half prompt_lengths "7.5 at index 0; a whole number of tokens >= 1 expected"
expect_bad_partial id_huge prompt_ids "1e+30 at index 3; a token id 0 .. 53 expected"
expect_bad_partial layers_past layers "7 at index 1; whole numbers 0 .. 1 increasing expected"
expect_bad_partial prompts_none sums "the 0 of prompt_lengths expected"
expect_bad_partial layers_2d layers "shape (1, 2); a list (K,)"
expect_bad_partial layers_int layers "dtype '<i8'; float64 (<f8) expected"
expect_bad_partial layers_fewer layers "1; the options' --layer=0,1 expected"
expect_bad_partial argmax_more argmax "row 0 adds up to 29; the 28 queries of sums expected"
expect_bad_partial queries_more sums "29 queries at row 0 (column 22); the 28 the prompt lengths give"
expect_bad_partial model_broken model "config=: is not valid JSON (byte"
expect_bad_partial extra extra.npy "not a member of a partial"
expect_bad_partial measure_bad options "--measure=max; rows, mul or abs expected"
expect_bad_partial ids_short prompt_ids "29 ids; prompt_lengths adds up to more"
expect_bad_partial sums_f4 sums "float32 numbers; float64 (<f8) expected"
expect_bad_partial heads_twice heads "0 at index 1; whole numbers 0 .. 1 increasing expected"
expect_bad_partial argmax_negated argmax "; a count (whole number >= 0) expected"
expect_usage_error "$WORK/bad/format_other.npz: not a partial of attn heads" "$ATTN" merge \
    "$WORK/bad/format_other.npz"
# an ordinary heads npz, no file, one file twice (also by another path to it)
expect_status 0 "$ATTN" heads --model "$I" --ids 53,1,2,1,2 -o "$WORK/plain.npz"
expect_usage_error "$WORK/plain.npz: not a partial of attn heads" "$ATTN" merge "$WORK/plain.npz"
expect_usage_error "PARTS: give the partials" "$ATTN" merge -o "$WORK/bad.csv"
checks=$((checks + 1))
[ "$(wc -l <"$ERR")" -eq 2 ] && [ ! -e "$WORK/bad.csv" ] || fail "no parts: $(cat "$ERR")"
ln -s part1.npz "$WORK/link.npz"
for again in "$WORK/part1.npz" "$WORK/./part1.npz" "$WORK/link.npz"; do
    expect_usage_error "$WORK/part1.npz and $again: the same partial twice" "$ATTN" merge \
        "$WORK/part1.npz" "$WORK/part2.npz" "$again" -o "$WORK/bad.csv"
    [ ! -e "$WORK/bad.csv" ] || fail "the same partial twice: wrote output"
done
# what a real partial may hold passes: mul's 0 / 0 (one token, BOS excluded), a bidirectional
# model's queries (n for n >= 2, none for one token), a merged partial merged again
for ids in 53 53,1,2,1; do
    expect_status 0 "$ATTN" heads --model "$I" --ids $ids --measure mul --exclude-bos --partial \
        -o "$WORK/one$ids.npz"
done
expect_status 0 "$ATTN" merge "$WORK/one53.npz" "$WORK/one53,1,2,1.npz" -f csv
for ids in 5 1,2,3,1; do
    expect_status 0 "$ATTN" heads --model "$M/bert" --ids $ids --partial -o "$WORK/bert$ids.npz"
done
expect_status 0 "$ATTN" merge "$WORK/bert5.npz" "$WORK/bert1,2,3,1.npz" -f csv
expect_status 0 "$ATTN" merge "$WORK/part1.npz" "$WORK/part2.npz" --partial -o "$WORK/m12.npz"
expect_status 0 "$ATTN" merge "$WORK/m12.npz" "$WORK/part3.npz" -o "$WORK/m12_3.json"
checks=$((checks + 1))
cmp -s "$WORK/m12_3.json" "$WORK/merged.json" || fail "(part1 + part2) + part3 differs from the merge of 3"

# the probe: [BOS] r r, r drawn from the ids that are not special (53 is <|endoftext|>)
expect_status 0 "$ATTN" heads --model "$I" -f json
checks=$((checks + 1))
"$PYTHON" - "$OUT" <<'PY' || fail "the probe's prompts"
import json, sys
z = json.load(open(sys.argv[1]))
p = z["prompts"]
assert len(p) == 8 and all(len(x) == 1 + 2 * 11 for x in p), [len(x) for x in p]  # (24 - 1) // 2
assert all(x[0] == 53 and x[1:12] == x[12:] and max(x[1:]) < 53 for x in p), p
assert len(z["data"]) == 4 and 0 <= z["sink_rate"] <= 100
PY
expect_status 0 "$ATTN" heads --model "$I" --probe-ids 0:26 --probe-length 6 --probe-count 3 \
    --seed 7 --show prompts -f csv
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 4 ] && ! cut -d, -f3 "$OUT" | tail -n +2 | tr ' ' '\n' | sed 1d |
    awk '$1 >= 26 && $1 != 53 { bad = 1 } END { exit !bad }' || fail "--probe-ids 0:26: $(cat "$OUT")"
expect_usage_error "--probe-length" "$ATTN" heads --model "$I" --probe-length 12
expect_usage_error "--probe-ids" "$ATTN" heads --model "$I" --probe-ids 30:20
expect_usage_error "--seed" "$ATTN" heads --model "$I" --ids 1,2 --seed 3

# formats: table with the sink rate, npz columns, svg grid, png
expect_status 0 "$ATTN" heads --model "$I" --prompts "$WORK/task.txt" -f table
expect_grep 'sink_rate' "$OUT"
expect_grep 'induction' "$OUT"
expect_status 0 "$ATTN" heads --model "$I" --prompts "$WORK/task.txt" -o "$WORK/h.npz"
checks=$((checks + 1))
"$PYTHON" - "$WORK/h.npz" "$WORK/task.csv" <<'PY' || fail "npz columns"
import csv, sys
import numpy as np
z = np.load(sys.argv[1])
rows = list(csv.DictReader(open(sys.argv[2])))
assert z["layer"].dtype == np.int64 and z["offset"].dtype == np.int64, z["layer"].dtype
assert z["type"].dtype.kind == "U" and list(z["type"]) == [r["type"] for r in rows]
assert np.allclose(z["induction"], [float(r["induction"]) for r in rows], rtol=0, atol=0)
assert "prompts" not in z.files  # the prompts differ in length
PY
expect_status 0 "$ATTN" heads --model "$I" --prompts "$WORK/task.txt" -o "$WORK/h.svg"
checks=$((checks + 1))
"$PYTHON" - "$WORK/h.svg" <<'PY' || fail "svg grid"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in root.iter(ns + "title")]
assert any(t and t.startswith("layer 1, head 0: induction") for t in titles), titles
assert any(t and t.startswith("layer 0, head 0: previous") for t in titles), titles
PY
expect_status 0 "$ATTN" heads --model "$I" --ids 53,1,2,3,1,2,3 -o "$WORK/h.png"
checks=$((checks + 1))
[ "$(head -c 4 "$WORK/h.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "png magic"
expect_usage_error "not heatmap" "$ATTN" heads --model "$I" --ids 1,2 -f heatmap
expect_usage_error "--measure" "$ATTN" heads --model "$I" --ids 1,2 --measure max
expect_usage_error "--ids" "$ATTN" heads --model "$I" --ids 1,99
expect_usage_error "--show" "$ATTN" heads --model "$I" --ids 1,2 --show weights
printf '{"tokens": [1]}\n' >"$WORK/bad.jsonl"
expect_usage_error "line 1" "$ATTN" heads --model "$I" --prompts "$WORK/bad.jsonl"
finish
