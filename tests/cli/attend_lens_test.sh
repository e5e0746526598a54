# attn attend --model --show lens, lens_next, value_norms, value_weights, value_rollout on the
# tiny checkpoints of tests/data/models against the PyTorch references beside them
# (attend_lens_compare.py); the lens's table in csv; the refusals (exit 2, naming why).
. "$(dirname "$0")/lib.sh"
numpy_or_skip

M=$ATTN_TEST_DATA/models
"$PYTHON" -B "$(dirname "$0")/attend_lens_compare.py" "$ATTN" "$M" "$WORK" ||
    fail "attend --model's lens and value arrays differ from the references"
checks=$((checks + 1))

# csv: the contract's columns; two layers x one position x two tokens
IDS=46,68,50,65,81,17,68
run "$ATTN" attend --model "$M/gpt2" --ids $IDS --show lens --top 2 --position 3 --layer 0,2 -f csv
checks=$((checks + 1))
[ "$STATUS" -eq 0 ] || fail "lens csv: exit $STATUS: $(cat "$ERR")"
[ "$(head -1 "$OUT")" = "layer,position,rank,id,token,probability" ] ||
    fail "lens csv header: $(head -1 "$OUT")"
[ "$(wc -l <"$OUT")" -eq 5 ] || fail "lens csv: $(wc -l <"$OUT") lines, want 5"
[ "$(cut -d, -f1-3 "$OUT" | tr '\n' ' ')" = "layer,position,rank 0,3,1 0,3,2 2,3,1 2,3,2 " ] ||
    fail "lens csv rows: $(cut -d, -f1-3 "$OUT" | tr '\n' ' ')"

# the refusals: a model without an LM head for the lens, bad --top and --position
expect_status 2 "$ATTN" attend --model "$M/bert" --ids 2,10,11,3 --show lens -f csv
expect_grep "cls.predictions.transform.dense.weight" "$ERR"
[ ! -s "$OUT" ] || fail "bert lens: wrote to stdout"
expect_status 2 "$ATTN" attend --model "$M/t5" --ids 5,6,7,1 --show lens_next -f csv
expect_grep "decoder" "$ERR"
expect_usage_error --top "$ATTN" attend --model "$M/gpt2" --ids $IDS --show lens --top 0 -f csv
expect_usage_error --top "$ATTN" attend --model "$M/gpt2" --ids $IDS --show lens --top 97 -f csv
expect_usage_error --position "$ATTN" attend --model "$M/gpt2" --ids $IDS --show lens \
    --position 7 -f csv
expect_usage_error --position "$ATTN" attend --model "$M/gpt2" --ids $IDS --show lens \
    --position -8 -f csv
expect_usage_error --position "$ATTN" attend --model "$M/gpt2" --ids $IDS --show weights \
    --position 1 -f csv
expect_usage_error lens_next "$ATTN" attend --model "$M/gpt2" --ids 7 --show lens_next -f csv
# --top belongs to lens, as --position does; a negative count is named as typed
expect_usage_error --top "$ATTN" attend --model "$M/gpt2" --ids $IDS --show weights --top 3 -f csv
expect_grep "applies to --show lens" "$ERR"
expect_usage_error --top "$ATTN" attend --model "$M/gpt2" --ids $IDS --show lens --top -3 -f csv
expect_grep "top: -3 tokens" "$ERR"

# --max-memory counts the lens (the unembedding's blocks of 4096 rows, each row's top K): 32
# tokens of the tiny GPT-2 fit in 1M without it, not with it; what the refusal says fits does
IDS32=$(seq 1 32 | paste -sd, -)
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids "$IDS32" --show next --max-memory 1M -f csv
expect_status 2 "$ATTN" attend --model "$M/gpt2" --ids "$IDS32" --show lens --max-memory 1M -f csv
expect_grep "max-memory.*the lens needs [0-9.]* [KM]iB of it, without it the 32 tokens need" "$ERR"
[ ! -s "$OUT" ] || fail "a refused lens wrote to stdout"
fits=$(sed -n 's/.*: \([0-9]*\) tokens fit.*/\1/p' "$ERR")
checks=$((checks + 1))
[ -n "$fits" ] && [ "$fits" -ge 1 ] && [ "$fits" -lt 32 ] || fail "tokens that fit: '$fits'"
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids "$(seq 1 "$fits" | paste -sd, -)" \
    --show lens --max-memory 1M -f csv
expect_status 2 "$ATTN" attend --model "$M/gpt2" --ids "$(seq 1 $((fits + 1)) | paste -sd, -)" \
    --show lens --max-memory 1M -f csv

# npz: lens's numbers, and its tokens beside them as numpy strings
expect_status 0 "$ATTN" attend --model "$M/induction" "ABqwertABqwert" --show lens --top 2 \
    -o "$WORK/lens.npz"
run "$ATTN" attend --model "$M/induction" "ABqwertABqwert" --show lens --top 2 -f csv
checks=$((checks + 1))
"$PYTHON" - "$WORK/lens.npz" "$OUT" <<'PY' || fail "lens.npz: its tokens"
import csv, sys
import numpy as np
z = np.load(sys.argv[1])
rows = list(csv.DictReader(open(sys.argv[2])))
assert sorted(z.files) == ["lens", "lens_tokens"], z.files
assert z["lens_tokens"].dtype.kind == "U" and z["lens_tokens"].shape == (len(rows),)
assert z["lens"].shape == (len(rows), 5)
assert list(z["lens_tokens"]) == [r["token"] for r in rows], list(z["lens_tokens"])[:6]
assert list(z["lens"][:, 3].astype(int)) == [int(r["id"]) for r in rows]
PY

finish
