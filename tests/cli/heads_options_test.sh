#!/usr/bin/env bash
# attn heads's options as design.md words them, and its refusals as the brief's bad input
# rule asks (one line naming the option or the file and line, the accepted range, exit 2):
# - "With no prompt, the probe `--probe repeat` runs": --probe repeat is the default run, and
#   is refused with a prompt as the probe's other options are;
# - --probe-length outside 1 .. (context - 1) / 2 says that range;
# - a --prompts line the model cannot run names the file and its line (as attend --prompts);
# - --show: the help says what is accepted, and a picture (svg, png: the scores' grid) of
#   prompts is refused instead of drawing the scores.
. "$(dirname "$0")/lib.sh"
I=$ATTN_TEST_DATA/models/induction  # GPT-2 layout, n_positions 24: the probe's N is at most 11

# --probe repeat: the probe the run without it makes, id for id and score for score
expect_status 0 "$ATTN" heads --model "$I" --probe-count 3 -f json
cp "$OUT" "$WORK/default.json"
expect_status 0 "$ATTN" heads --model "$I" --probe repeat --probe-count 3 -f json
checks=$((checks + 1))
cmp -s "$OUT" "$WORK/default.json" || fail "--probe repeat differs from the default probe"
expect_grep '"prompts": \[\[53, ' "$OUT"
expect_usage_error "--probe" "$ATTN" heads --model "$I" --probe shuffle
expect_usage_error "--probe" "$ATTN" heads --model "$I" --probe repeat --ids 1,2
expect_usage_error "--probe" "$ATTN" heads --model "$I" "abc abc" --probe repeat
run "$ATTN" heads --help
checks=$((checks + 1))
grep -qE -- '--probe TEXT:\{repeat\}' "$OUT" || fail "heads --help has no --probe: $(cat "$OUT")"

# --probe-length: the accepted range, 1 to (24 - 1) / 2
for n in 0 12; do
    expect_usage_error "--probe-length: $n is not in 1 to 11" "$ATTN" heads --model "$I" \
        --probe-length $n
done
expect_status 0 "$ATTN" heads --model "$I" --probe-length 11 --probe-count 1 --show prompts -f csv
expect_grep '^0,23,' "$OUT"

# --prompts: a prompt longer than the context (25 ids > 24 positions) on line 3, after an
# empty line: named by its file and line, not by its rank among the prompts
long=$(seq -s, 1 25)
printf '{"ids": [1, 2, 3]}\n\n{"ids": [%s]}\n' "$long" >"$WORK/toolong.jsonl"
expect_usage_error "--prompts: $WORK/toolong.jsonl, line 3: " "$ATTN" heads --model "$I" \
    --prompts "$WORK/toolong.jsonl"
checks=$((checks + 1))
grep -q 'positions' "$ERR" || fail "the line does not say the model's positions: $(cat "$ERR")"
printf 'abc abc\n\n%s\n' "$(printf 'x%.0s' $(seq 30))" >"$WORK/toolong.txt"
expect_usage_error "--prompts: $WORK/toolong.txt, line 3: " "$ATTN" heads --model "$I" \
    --prompts "$WORK/toolong.txt"
expect_usage_error "--ids: " "$ATTN" heads --model "$I" --ids "$long"

# --show: the help names what is accepted, and each name it gives is accepted
run "$ATTN" heads --help
checks=$((checks + 1))
show_help=$(tr -s ' \n' ' ' <"$OUT" | grep -oE -- '--show [^-]*')
grep -qF 'scores,prompts' <<<"$show_help" || fail "--show's help does not say scores,prompts: $show_help"
grep -qF 'or both' <<<"$show_help" && fail "--show's help offers 'both', which is refused: $show_help"
for show in scores prompts; do
    expect_status 0 "$ATTN" heads --model "$I" "abc abc" --show $show -f csv
done
for show in scores,prompts prompts,scores; do
    expect_status 0 "$ATTN" heads --model "$I" "abc abc" --show $show -f table
    expect_grep 'sink_rate' "$OUT"
    expect_grep '^ *0 +7 +0 1 2 52 0 1 2$' "$OUT"
done
expect_usage_error "--show" "$ATTN" heads --model "$I" "abc abc" --show both

# a picture draws the scores' grid: --show prompts (alone or beside scores) is refused
for show in prompts scores,prompts; do
    for f in svg png; do
        rm -f "$WORK/z.$f"
        expect_usage_error "--show" "$ATTN" heads --model "$I" "abc abc" --show $show \
            -o "$WORK/z.$f"
        checks=$((checks + 1))
        [ ! -e "$WORK/z.$f" ] || fail "--show $show -o z.$f: a picture was written"
    done
done
expect_status 0 "$ATTN" heads --model "$I" "abc abc" --partial -o "$WORK/part.npz"
expect_usage_error "--show" "$ATTN" merge "$WORK/part.npz" --show prompts -o "$WORK/z.svg"
expect_status 0 "$ATTN" heads --model "$I" "abc abc" --show scores -o "$WORK/z.svg"
finish
