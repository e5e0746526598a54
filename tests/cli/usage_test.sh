# What a new user types wrong, and what attn answers: the closest option to a misspelt one,
# integers written with an exponent, one exit status for a missing output directory, a format
# that contradicts the file's extension, and "Try 'attn X --help'" after every usage error.
. "$(dirname "$0")/lib.sh"

# expect_stderr TEXT: stderr holds TEXT (fixed string).
expect_stderr() {
    checks=$((checks + 1))
    grep -qF -- "$1" "$ERR" || fail "stderr lacks '$1': $(head -c 400 "$ERR")"
}
# expect_try COMMAND: the last line of stderr sends the user to the command's help.
expect_try() {
    checks=$((checks + 1))
    [ "$(tail -1 "$ERR")" = "Try 'attn $1 --help' for more information." ] ||
        fail "the last line of stderr is not the help hint for $1: $(cat "$ERR")"
}

# A misspelt option: the closest one is suggested, as for a misspelt command.
expect_usage_error --columns "$ATTN" encode --colums 6:10
expect_stderr "unknown option '--colums'; did you mean '--columns'?"
expect_try encode
expect_usage_error --positions "$ATTN" rotate --positons 10
expect_stderr "did you mean '--positions'?"
expect_usage_error --measure "$ATTN" complexity --mesure
expect_stderr "did you mean '--measure'?"
expect_usage_error --output "$ATTN" bits --output=x.csv --ouptut=y.csv
expect_stderr "unknown option '--ouptut'; did you mean '--output'?"
# Two adjacent letters swapped are one edit (as git counts): --shwo is --show, not --wo.
expect_usage_error --show "$ATTN" attend "a b" --shwo weights
expect_stderr "unknown option '--shwo'; did you mean '--show'?"
# Nothing close: the options are in the help.
expect_status 2 "$ATTN" encode --frobnicate
expect_stderr "unknown option '--frobnicate'"
expect_try encode

# Every integer option takes an exponent that gives a whole number.
expect_status 0 "$ATTN" encode -n 1e2 -d 4 -f csv --no-header
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 100 ] || fail "encode -n 1e2 gave $(wc -l <"$OUT") rows"
expect_status 0 "$ATTN" encode -n 3 -d 0.4e1 --start -1e1 -f csv --no-header
expect_grep '^-10,' "$OUT"
expect_status 0 "$ATTN" bits -n 1e1 -f csv --no-header --show bits
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 10 ] || fail "bits -n 1e1 gave $(wc -l <"$OUT") rows"
expect_status 0 "$ATTN" rotate -n 1e2 -d 8 --offset 3 --threads 1e0 -f csv --precision 5e0
expect_status 0 "$ATTN" complexity -n 1e3 -d 5.12e2 -k 3e0 -f csv
expect_grep '^self_attention,' "$OUT"
expect_usage_error --positions "$ATTN" encode -n 1.5e0
expect_stderr "'1.5e0' is not a whole number"
expect_usage_error --positions "$ATTN" encode -n 1e-3
# A real option's range is said as numbers, not as "a whole number".
expect_usage_error --font-scale "$ATTN" encode --font-scale 0.1 -o "$WORK/f.svg"
expect_stderr "--font-scale: 0.1 is out of range (accepted: 0.5 to 4)"
expect_usage_error --font-scale "$ATTN" encode --font-scale big -o "$WORK/f.svg"
expect_stderr "--font-scale: 'big' is not a number (accepted: 0.5 to 4)"
expect_usage_error --positions "$ATTN" encode -n 1e400
expect_stderr "out of range"

# A missing output directory is a usage error (2), however the path is written, and no
# file is left.
expect_usage_error --output "$ATTN" encode -o "$WORK/nodir/P.csv"
expect_stderr "directory '$WORK/nodir' does not exist"
expect_try encode
expect_usage_error --output "$ATTN" encode -o "$WORK/newdir/"
expect_stderr "directory '$WORK/newdir/' does not exist"
expect_usage_error --output "$ATTN" bits -o "$WORK/nodir/deeper/b.npy"
[ ! -e "$WORK/nodir" ] || fail "a failed run made $WORK/nodir"

# A format that contradicts the file's extension is refused, naming both.
expect_usage_error --format "$ATTN" encode -f npz -o "$WORK/x.csv"
expect_stderr "--format npz writes npz, but '$WORK/x.csv' is named as csv"
expect_try encode
[ ! -e "$WORK/x.csv" ] || fail "-f npz -o x.csv left a file"
expect_usage_error --format "$ATTN" encode -f csv -o "$WORK/x.npy"
expect_usage_error --format "$ATTN" encode -f svg -o "$WORK/x.png"
# .txt holds any text, and a name without an extension any format.
expect_status 0 "$ATTN" encode -n 2 -d 2 -f csv -o "$WORK/x.txt"
expect_grep '^position,0,1$' "$WORK/x.txt"
expect_status 0 "$ATTN" encode -n 2 -d 2 -f npy -o "$WORK/P"
expect_status 0 "$ATTN" encode -n 2 -d 2 -f CSV -o "$WORK/y.CSV"

# Usage errors found after parsing end with the hint too.
expect_usage_error --output "$ATTN" rotate -d 5 -o "$WORK/r.xlsx"
expect_try rotate
expect_usage_error --positions-up-to "$ATTN" rotate --positions-up-to 100 --start 5
expect_try rotate
expect_usage_error --sweep "$ATTN" complexity --sweep q=1:4
expect_try complexity
expect_usage_error --format "$ATTN" bits -f csv --show all
expect_try bits
# Runtime failures (exit 1) do not: help would not fix them.
expect_status 1 "$ATTN" encode --add "$WORK/missing.npy"
checks=$((checks + 1))
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "a runtime failure printed more than one line: $(cat "$ERR")"

# attend --help shows --model: an example, and its arrays in the --show list and help.
expect_status 0 "$ATTN" attend --help
expect_grep '^  attn attend --model ' "$OUT"
expect_grep '^ +--show LIST .*hidden.*next.*head_stats.*offsets.*mean_weights.*rollout' "$OUT"
expect_grep "^Arrays \(--show; the random model's shape, then --model's\):" "$OUT"
expect_grep '^  hidden --model only \(layers \+ 1, n, d\): ' "$OUT"
# What CLI11 would say in its own words, said in attn's: an option given twice, a word more
# than the command takes (an unquoted text), a value its type cannot hold
M=$ATTN_TEST_DATA/models
expect_usage_error --heads "$ATTN" attend "a b" --heads 2 --heads 3
expect_stderr "attn: --heads: given 2 times; give it once"
expect_usage_error "'b'" "$ATTN" attend a b c
expect_stderr "attn: 'b': an argument more than attend takes; quote a text with spaces"
expect_usage_error --position "$ATTN" attend --model "$M/gpt2" --ids 1,2 --show lens --position 1.5
expect_stderr "attn: --position: '1.5' is not a whole number"
# an index list's range names the indices and the slices apart
expect_usage_error --layer "$ATTN" attend --model "$M/gpt2" --ids 1,2 --layer 3
expect_stderr "accepted: an index -3..2 (-1 the last) or a range A:B with A, B in -3..3 (B excluded)"
# a checkpoint's file for its folder; a config.json that is not JSON, named once with its byte
expect_status 1 "$ATTN" attend --model "$M/gpt2/model.safetensors" --ids 1
expect_stderr "is a file; give the folder holding it and its config.json (or a .gguf file)"
mkdir -p "$WORK/badconfig"
cp "$M/gpt2/model.safetensors" "$WORK/badconfig/"
printf '{"n_layer": nan}' > "$WORK/badconfig/config.json"
expect_usage_error config.json "$ATTN" attend --model "$WORK/badconfig" --ids 1
expect_stderr "attn: $WORK/badconfig/config.json: is not valid JSON (byte 14)"
finish
