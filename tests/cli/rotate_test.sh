# attn rotate as a user runs it: columns per --show, closed forms, exit codes 0/2/3, formats.
. "$(dirname "$0")/lib.sh"

# expect_all_below AWK_COLUMN LIMIT FILE: every data row's column is below LIMIT (header skipped).
expect_all_below() {
    checks=$((checks + 1))
    awk -F, -v c="$1" -v lim="$2" 'NR > 1 && !($c < lim) { bad = bad " row " NR ": " $c } END { if (bad) { print bad; exit 1 } }' "$3" >"$WORK/awk" ||
        fail "column $1 of $3 not below $2:$(head -c 300 "$WORK/awk")"
}

# --show pairs (the default): the header, and cos/sin(delta w_j) against awk's closed form.
expect_status 0 "$ATTN" rotate -n 10 -d 4 --offset 3 --dtype float64
expect_grep '^delta,j,w,wavelength,cos,sin,max_error,at_i$' "$OUT"
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 3 ] || fail "pairs: want a header and 2 rows: $(cat "$OUT")"
awk -F, 'NR > 1 { w = 10000 ^ (-2 * $2 / 4); d = 3 * w
    if (($3 - w)^2 > 1e-28 || ($5 - cos(d))^2 > 1e-28 || ($6 - sin(d))^2 > 1e-28 || ($4 - 2 * 3.141592653589793 / w)^2 > 1e-20) { print; exit 1 } }' "$OUT" ||
    fail "pairs: w, wavelength, cos, sin differ from the closed form: $(cat "$OUT")"
expect_all_below 7 1e-15 "$OUT"

# float64 below 1e-12 for n = 1000, d = 512; float32 above that, passing its tolerance.
expect_status 0 "$ATTN" rotate -n 1000 -d 512 --offset 1:5 --dtype float64 --show summary -f csv
expect_grep '^delta,max_error,at_i,tol,ratio,ratio_at_i,pass$' "$OUT"
expect_all_below 2 1e-12 "$OUT"
checks=$((checks + 1))
[ "$(awk -F, 'NR > 1 && $7 == 1' "$OUT" | wc -l)" -eq 5 ] || fail "float64 summary: not 5 passing rows"
expect_status 0 "$ATTN" rotate -n 1000 -d 512 --offset 1:5 --show summary -f csv
checks=$((checks + 1))
awk -F, 'NR > 1 && !($2 > 1e-12 && $5 < 1) { exit 1 }' "$OUT" || fail "float32 summary: $(cat "$OUT")"

# The issue's script line.
checks=$((checks + 1))
[ "$("$ATTN" rotate -n 1000 -d 512 --offset 1:50 --show summary >/dev/null && echo ok)" = ok ] ||
    fail "attn rotate ... --show summary && echo ok did not print ok"

# Exit 3 above --tol, with one line on stderr; the output is still written.
expect_status 3 "$ATTN" rotate -n 1000 -d 64 --offset 1,2 --tol 1e-9 --show summary
expect_grep '^attn: rotate: 2 of 2 offsets above the tolerance; worst: delta' "$ERR"
expect_grep '^2,' "$OUT"
expect_grep ',0$' "$OUT"
expect_status 3 "$ATTN" rotate -n 100 -d 8 --dtype float64 --tol 1e-30
expect_status 0 "$ATTN" rotate -n 100 -d 8 --dtype float64 --tol 1e-12

# Negative offsets: checked where i + delta stays in range.
expect_status 0 "$ATTN" rotate -n 20 -d 4 --offset=-5:-4,19 --show summary -f csv
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 4 ] || fail "negative offsets: want 3 rows: $(cat "$OUT")"
checks=$((checks + 1))
awk -F, 'NR == 2 && ($1 != -5 || $3 < 5) { exit 1 } NR == 4 && ($1 != 19 || $3 != 0 || $6 != 0) { exit 1 }' "$OUT" ||
    fail "negative offsets: $(cat "$OUT")"
expect_status 0 "$ATTN" rotate -n 20 -d 4 --offset -3 --show summary -f csv
expect_grep '^-3,' "$OUT"
expect_status 0 "$ATTN" rotate -n 20 -d 4 --offset -2:2 --show summary -f csv --no-header
checks=$((checks + 1))
[ "$(cut -d, -f1 "$OUT" | tr '\n' ' ')" = "-2 -1 0 1 2 " ] || fail "--offset -2:2: $(cat "$OUT")"

# --show dot: spread of P[i].P[i+delta] over i and the closed form sum_j cos(delta w_j).
expect_status 0 "$ATTN" rotate -n 2000 -d 128 --offset 0,1,10 --dtype float64 --show dot
expect_grep '^delta,min,min_i,max,max_i,spread,closed_form,max_error,error_i$' "$OUT"
expect_grep '^0,64,[0-9]+,64,[0-9]+,0,64,0,' "$OUT"
expect_all_below 6 1e-12 "$OUT"
expect_all_below 8 1e-12 "$OUT"
checks=$((checks + 1))
awk -F, 'NR == 3 { s = 0; for (j = 0; j < 64; j++) s += cos(1 * 10000 ^ (-2 * j / 128)); if (($7 - s)^2 > 1e-24) exit 1 }' "$OUT" ||
    fail "dot: closed form of delta 1 is not sum_j cos(w_j): $(sed -n 3p "$OUT")"

# --show matrix: (offsets, d, d) with delta and row labels.
expect_status 0 "$ATTN" rotate -d 4 --offset 1,2 --show matrix --dtype float64
expect_grep '^delta,row,0,1,2,3$' "$OUT"
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 9 ] || fail "matrix: want 1 + 2*4 lines"
expect_grep '^1,0,0.5403023058681398,0.8414709848078965,0,0$' "$OUT"
expect_grep '^1,1,-0.8414709848078965,0.5403023058681398,0,0$' "$OUT"
expect_grep '^2,3,0,0,-0.01999866669333308,0.9998000066665778$' "$OUT"

# Odd d: said on stderr, the lone sine left out (NaN), never silently.
expect_status 0 "$ATTN" rotate -d 5 -n 10 --offset 1 --show matrix
expect_grep '^1,4,nan,nan,nan,nan,nan$' "$OUT"
expect_grep '^attn: rotate: note: d = 5 is odd: column 4 .* no linear map .* row of M is NaN' "$ERR"
expect_status 0 "$ATTN" rotate -d 5 -n 10 --offset 1
expect_grep '^1,2,.*,nan,nan$' "$OUT"
expect_grep 'left out of the check' "$ERR"
expect_status 0 "$ATTN" rotate -d 5 -n 10 --offset 1 --show summary
expect_status 0 "$ATTN" rotate -d 6 -n 10 --offset 1
checks=$((checks + 1))
[ ! -s "$ERR" ] || fail "even d printed a note: $(cat "$ERR")"

# M applied to P reproduces the shifted P (numpy, from csv so no binary reader is needed).
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    "$ATTN" rotate -d 7 --offset 3 --show matrix --dtype float64 -f csv >"$WORK/M.csv" 2>/dev/null
    "$ATTN" encode -n 40 -d 7 --dtype float64 -f csv >"$WORK/P.csv"
    checks=$((checks + 1))
    /usr/bin/python3 - "$WORK/M.csv" "$WORK/P.csv" <<'EOF' || fail "M_delta P[i] != P[i+delta]"
import sys, numpy as np
M = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)[:, 2:]
P = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)[:, 1:]
assert M.shape == (7, 7), M.shape
assert np.isnan(M[6]).all()
got = P[:-3, :6] @ M[:6, :6].T
err = np.abs(got - P[3:, :6]).max()
assert err < 1e-13, err
EOF
fi

# --positions-up-to: float32 and float64 side by side, one row per magnitude.
expect_status 0 "$ATTN" rotate -n 100 -d 32 --positions-up-to 1e4 -f csv
expect_grep '^position,float32_max_error,float32_at_i,float32_tol,float32_ratio,float64_max_error,float64_at_i,float64_tol,float64_ratio$' "$OUT"
checks=$((checks + 1))
[ "$(cut -d, -f1 "$OUT" | tail -n +2 | tr '\n' ' ')" = "0 10 20 50 100 200 500 1000 2000 5000 10000 " ] ||
    fail "sweep positions: $(cut -d, -f1 "$OUT" | tr '\n' ' ')"
expect_all_below 6 1e-12 "$OUT"
checks=$((checks + 1))
awk -F, 'NR == 2 { a = $2 } END { if (!($2 > 10 * a)) exit 1 }' "$OUT" || fail "sweep: float32 error does not grow"
expect_status 0 "$ATTN" rotate -n 50 -d 16 --positions-up-to 1000 --offset 1,2 -o "$WORK/sweep.csv"
[ "$(wc -l <"$WORK/sweep.csv")" -eq 9 ] || fail "sweep.csv: $(cat "$WORK/sweep.csv")"

# Every output format.
for ext in csv tsv json txt; do
    expect_status 0 "$ATTN" rotate -n 20 -d 8 --offset 1,2 -o "$WORK/r.$ext"
    [ -s "$WORK/r.$ext" ] || fail "no $ext file written"
done
head -1 "$WORK/r.tsv" | grep -q "^delta	j	w	wavelength" || fail "r.tsv is not tsv"
grep -q '"pairs": {' "$WORK/r.json" || fail "r.json has no pairs: $(head -c 200 "$WORK/r.json")"
grep -q 'rotation per column pair' "$WORK/r.txt" || fail "r.txt is not a table"
expect_status 0 "$ATTN" rotate -n 20 -d 8 --offset 1 --show matrix -f json
expect_grep '"M": \{.*"shape": \[1, 8, 8\]' "$OUT"
expect_grep '"delta": \["1", "1"' "$OUT"
mkdir "$WORK/dir"
expect_status 0 "$ATTN" rotate -n 20 -d 8 --offset 1 --show dot -o "$WORK/dir/"
[ -s "$WORK/dir/dot.csv" ] || fail "-o DIR/ did not write DIR/dot.csv"
on_terminal "$ATTN" rotate -n 20 -d 8 --offset 1 --show summary >"$OUT" 2>&1
expect_grep 'worst error per offset against the tolerance \(1 x 7, float64\)' "$OUT"
# npy/npz where this build has their writers; numpy reads M back.
if "$ATTN" encode -n 1 -d 2 -f npy 2>/dev/null | head -c 6 | grep -q NUMPY; then
    expect_status 0 "$ATTN" rotate -d 6 --offset 1,2 --show matrix -o "$WORK/M.npy"
    expect_status 0 "$ATTN" rotate -d 6 --offset 1,2 --show summary -o "$WORK/s.npz"
    if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
        checks=$((checks + 1))
        /usr/bin/python3 - "$WORK/M.npy" "$WORK/s.npz" <<'EOF' || fail "npy/npz do not read back"
import sys, numpy as np
M = np.load(sys.argv[1])
assert M.shape == (2, 6, 6) and M.dtype == np.float32, (M.shape, M.dtype)
assert abs(M[1, 0, 0] - np.cos(2.0)) < 1e-7
s = np.load(sys.argv[2])["summary"]
assert s.shape == (2, 7) and s.dtype == np.float64 and (s[:, 6] == 1).all(), s
EOF
    fi
else
    echo "note: this build has no npy writer; npy/npz checks skipped" >&2
fi

# Bad values: exit 2, one line naming the option, nothing on stdout.
expect_usage_error --offset "$ATTN" rotate --offset x
expect_usage_error --offset "$ATTN" rotate --offset 1:5:0
expect_usage_error --offset "$ATTN" rotate --offset 5:1:1
expect_usage_error --offset "$ATTN" rotate --offset 1,
expect_usage_error --offset "$ATTN" rotate -n 1000 --offset 1000
expect_usage_error --offset "$ATTN" rotate -n 10 --offset=-10
expect_usage_error --tol "$ATTN" rotate --tol 0
expect_usage_error --tol "$ATTN" rotate --tol -1e-6
expect_usage_error --tol "$ATTN" rotate --tol nan
expect_usage_error --tol "$ATTN" rotate --tol inf
expect_usage_error --base "$ATTN" rotate --base 1
expect_usage_error --base "$ATTN" rotate --base nan
expect_usage_error --dim "$ATTN" rotate -d 1
expect_usage_error --dim "$ATTN" rotate -d x
expect_usage_error --positions "$ATTN" rotate -n 1
expect_usage_error --show "$ATTN" rotate --show everything
expect_usage_error --dtype "$ATTN" rotate --dtype float8
expect_usage_error --dtype "$ATTN" rotate --positions-up-to 100 --dtype float32
expect_usage_error --positions-up-to "$ATTN" rotate --positions-up-to 0
expect_usage_error --positions-up-to "$ATTN" rotate --positions-up-to 1.5
expect_usage_error --positions-up-to "$ATTN" rotate --positions-up-to 1e30
expect_usage_error --positions-up-to "$ATTN" rotate --positions-up-to 100 --start 5
expect_usage_error --positions-up-to "$ATTN" rotate --positions-up-to 100 --show dot
expect_usage_error --format "$ATTN" rotate -f xlsx
expect_usage_error --output "$ATTN" rotate -d 5 -o "$WORK/r.xlsx"
# One line, and the hint to the help that follows every usage error.
checks=$((checks + 1))
[ "$(wc -l <"$ERR")" -eq 2 ] || fail "stderr is not one line and the hint: $(cat "$ERR")"
# Sizes are checked before allocation: a ring of 5e7 rows of 512 doubles is refused.
expect_usage_error --max-memory "$ATTN" rotate -n 100000000 -d 512 --offset 50000000 --max-memory 1G
expect_grep 'needs 190\.7 GiB' "$ERR"
expect_status 2 "$ATTN" rotate --offset x -o "$WORK/never.csv"
[ ! -e "$WORK/never.csv" ] || fail "a failed run left never.csv"

expect_status 0 "$ATTN" rotate --help
expect_grep 'Examples:' "$OUT"
expect_grep '--positions-up-to' "$OUT"

finish
