# attn encode as a user runs it: values, formats, inference rules, bad input, pipes, files.
. "$(dirname "$0")/lib.sh"

# The book's P: row 1 of a 4-column P, shortest round-trip float32.
expect_status 0 "$ATTN" encode -n 2 -d 4
expect_output "position,0,1,2,3
0,0,1,0,1
1,0.84147096,0.5403023,0.009999833,0.99995"

expect_status 0 "$ATTN" encode -n 3 -d 32 --columns 6:10 --no-header
expect_output "0,0,1,0,1
1,0.17689219,0.9842302,0.099833414,0.9950042
2,0.34820527,0.9374183,0.19866933,0.9800666"

# float64, correctly rounded: checked with 40-digit mpmath (Python's math.sin(5 * 10000**(-2/3))
# says ...832, off by the rounding of w in double; the exact value is 0.0107719651180348290...).
expect_status 0 "$ATTN" encode -n 2 -d 3 --dtype float64 --start 5
expect_output "position,0,1,2
5,-0.9589242746631385,0.28366218546322625,0.01077196511803483
6,-0.27941549819892586,0.960170286650366,0.01292624814319904"

expect_status 0 "$ATTN" encode -n 2 -d 4 --layout split -f tsv --precision 3
expect_output "position	0	1	2	3
0	0	0	1	1
1	0.841	0.01	0.54	1"

# Format inference: from -o's extension; csv in a pipe; table on a terminal.
for ext in csv tsv json txt npy npz; do
    expect_status 0 "$ATTN" encode -n 3 -d 4 -o "$WORK/p.$ext"
    [ -s "$WORK/p.$ext" ] || fail "no $ext file written"
done
head -1 "$WORK/p.csv" | grep -q '^position,0,1,2,3$' || fail "p.csv is not csv"
head -1 "$WORK/p.tsv" | grep -q "^position	0" || fail "p.tsv is not tsv"
head -1 "$WORK/p.txt" | grep -q '(3 x 4, float32)' || fail "p.txt is not a table"
head -c 6 "$WORK/p.npy" | grep -q 'NUMPY' || fail "p.npy is not npy"
head -c 2 "$WORK/p.npz" | grep -q 'PK' || fail "p.npz is not a zip"
grep -q '"P": {' "$WORK/p.json" || fail "p.json is not json"

on_terminal "$ATTN" encode -n 3 -d 4 >"$OUT" 2>&1
expect_grep 'positional encoding P.*\(3 x 4, float32\)' "$OUT"
expect_grep '^1 +0\.8415 +0\.5403 +0\.0100 +0\.9999' "$OUT"
on_terminal "$ATTN" encode -n 3 -d 4 -f npy >"$OUT" 2>&1
expect_grep 'attn: --format npy: binary data not written to a terminal' "$OUT"
on_terminal "$ATTN" encode -n 3 -d 4 -f npz >"$OUT" 2>&1
expect_grep 'binary data not written to a terminal' "$OUT"

# -o DIR/ writes one file per array.
mkdir "$WORK/dir"
expect_status 0 "$ATTN" encode -n 3 -d 4 -o "$WORK/dir/"
[ -s "$WORK/dir/P.csv" ] || fail "-o DIR/ did not write DIR/P.csv"

# Bad values: exit 2, one line naming the option, no output.
expect_usage_error --dim "$ATTN" encode -d 0
expect_usage_error --dim "$ATTN" encode -d -3
expect_usage_error --dim "$ATTN" encode -d abc
expect_usage_error --positions "$ATTN" encode -n -1
expect_usage_error --positions "$ATTN" encode -n 1.5
expect_usage_error --base "$ATTN" encode --base 1
expect_usage_error --base "$ATTN" encode --base 0.5
expect_usage_error --base "$ATTN" encode --base nan
expect_usage_error --base "$ATTN" encode --base inf
expect_usage_error --columns "$ATTN" encode -d 32 --columns 3:40
expect_usage_error --columns "$ATTN" encode -d 32 --columns 10:6
expect_usage_error --columns "$ATTN" encode --columns x
expect_usage_error --layout "$ATTN" encode --layout diagonal
expect_usage_error --format "$ATTN" encode -f xlsx
expect_usage_error --dtype "$ATTN" encode --dtype float8
expect_usage_error --output "$ATTN" encode -o "$WORK/p.xlsx"
expect_usage_error --precision "$ATTN" encode --precision 0
expect_usage_error --threads "$ATTN" encode --threads 0
expect_usage_error --max-memory "$ATTN" encode --max-memory lots
expect_usage_error "holds one array" "$ATTN" bits -n 4 -d 4 --show all -f csv

# A failing run leaves no output file, not even a temporary one.
expect_status 2 "$ATTN" encode -d 32 --columns 3:40 -o "$WORK/never.csv"
[ ! -e "$WORK/never.csv" ] || fail "a failed run left never.csv"
ls -a "$WORK" | grep -q 'never' && fail "a failed run left a temporary file"

# A closed pipe ends quietly with 141 (128 + SIGPIPE), as seq and cat do.
"$ATTN" encode -n 10000000 -d 64 2>"$ERR" | head -3 >"$OUT"
status=${PIPESTATUS[0]}
checks=$((checks + 1))
[ "$status" -eq 141 ] || fail "closed pipe: status $status, want 141"
[ ! -s "$ERR" ] || fail "closed pipe printed: $(cat "$ERR")"
[ "$(wc -l <"$OUT")" -eq 3 ] || fail "closed pipe: head did not get 3 lines"
# With SIGPIPE ignored by the parent, the EPIPE error ends it the same way, quietly.
(trap '' PIPE; "$ATTN" encode -n 10000000 -d 64 2>"$ERR" | head -1 >/dev/null; echo "${PIPESTATUS[0]}" >"$WORK/st")
checks=$((checks + 1))
[ "$(cat "$WORK/st")" -eq 141 ] || fail "EPIPE: status $(cat "$WORK/st"), want 141"
[ ! -s "$ERR" ] || fail "EPIPE printed: $(cat "$ERR")"

# A full device is a runtime error (exit 1) with a message.
"$ATTN" encode -n 100000 -d 64 >/dev/full 2>"$ERR"
status=$?
checks=$((checks + 1))
[ "$status" -eq 1 ] || fail "/dev/full: status $status, want 1"
grep -q 'No space left on device' "$ERR" || fail "/dev/full: $(cat "$ERR")"

# Help and version go to stdout with status 0; help shows an example.
expect_status 0 "$ATTN" encode --help
expect_grep 'Examples:' "$OUT"
expect_status 0 "$ATTN" --version
expect_grep '^attn [0-9]+\.[0-9]+\.[0-9]+$' "$OUT"
expect_status 2 "$ATTN"
expect_status 2 "$ATTN" enc

finish
