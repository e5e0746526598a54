# One error vocabulary: every fault gives one line naming the option, the same exit status in
# every subcommand (0 ok, 1 runtime or I/O including a missing input file, 2 usage), and
# every input is counted against --max-memory before it is read.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

# expect_stderr TEXT: stderr holds TEXT (fixed string).
expect_stderr() {
    checks=$((checks + 1))
    grep -qF -- "$1" "$ERR" || fail "stderr lacks '$1': $(head -c 400 "$ERR")"
}
# expect_one_line: stderr is exactly one line (or two, the second "Try 'attn ... --help'").
expect_lines() {
    checks=$((checks + 1))
    [ "$(wc -l <"$ERR")" -eq "$1" ] || fail "stderr has $(wc -l <"$ERR") lines, want $1: $(cat "$ERR")"
}

# CLI11's words replaced: an unknown command, a number that is not one, the subcommand's help.
expect_status 2 "$ATTN" ecode
expect_stderr "unknown command 'ecode'; did you mean 'encode'?"
expect_status 2 "$ATTN" encode -n sixty
expect_stderr "--positions: 'sixty' is not a whole number"
expect_stderr "Try 'attn encode --help' for more information."
expect_status 2 "$ATTN" attend --heads x "a b"
expect_stderr "Try 'attn attend --help'"

# --seed: torch.manual_seed's range; -1 wraps to 2^64-1 as torch.manual_seed(-1) does.
expect_usage_error --seed "$ATTN" attend --seed 18446744073709551616 "a b"
expect_usage_error --seed "$ATTN" attend --seed -9223372036854775809 "a b"
expect_usage_error --seed "$ATTN" attend --seed 1.25e1 "a b"
expect_status 0 "$ATTN" attend --seed -1 "a b" -f csv
cp "$OUT" "$WORK/minus1.csv"
expect_status 0 "$ATTN" attend --seed 18446744073709551615 "a b" -f csv
checks=$((checks + 1))
cmp -s "$OUT" "$WORK/minus1.csv" || fail "--seed -1 differs from --seed 2^64-1"
expect_status 0 "$ATTN" attend --seed 5 "a b" -f csv
checks=$((checks + 1))
! cmp -s "$OUT" "$WORK/minus1.csv" || fail "--seed 5 equals --seed -1"
cp "$OUT" "$WORK/seed5.csv"
expect_status 0 "$ATTN" attend --seed 0.5e1 "a b" -f csv
checks=$((checks + 1))
cmp -s "$OUT" "$WORK/seed5.csv" || fail "--seed 0.5e1 differs from --seed 5"

# Empty values are refused, not read as 0.
expect_usage_error --mask-value "$ATTN" attend --mask-value '' "a b"
expect_usage_error --base "$ATTN" encode --base ''

# --max-memory: a size of at least 1 MiB.
expect_usage_error --max-memory "$ATTN" encode -n 2 -d 2 --max-memory 0.5
expect_usage_error --max-memory "$ATTN" encode -n 2 -d 2 --max-memory 512K
expect_usage_error --max-memory "$ATTN" encode -n 2 -d 2 --max-memory 4Q
expect_status 0 "$ATTN" encode -n 2 -d 2 --max-memory 1M

# Every input is counted against the budget before it is read (8 MB of float64 here).
"$PYTHON" -c "import numpy as np; np.save('$WORK/big.npy', np.zeros((1000, 1000)))"
"$PYTHON" -c "import numpy as np; np.save('$WORK/row1000.npy', np.zeros((2, 1000)))"
"$PYTHON" -c "import numpy as np; np.save('$WORK/row4.npy', np.zeros((1, 4)))"
for option in --input --embeddings --wq; do
    case $option in
    --input) args=(attend --input "$WORK/big.npy") ;;
    --wq) args=(attend --input "$WORK/row1000.npy" --wq "$WORK/big.npy") ;;
    *) args=(attend "$option" "$WORK/big.npy" "a b") ;;
    esac
    expect_usage_error "$option" "$ATTN" "${args[@]}" --max-memory 2M
    expect_stderr "needs 7.6 MiB of memory, above the limit of 2.0 MiB (--max-memory)"
done
expect_usage_error --add "$ATTN" encode --add "$WORK/big.npy" --max-memory 2M
expect_stderr "needs 7.6 MiB of memory"
# standard input too, before a byte of the data is read
run sh -c "cat '$WORK/big.npy' | '$ATTN' attend --input - --max-memory 2M"
checks=$((checks + 1))
[ "$STATUS" -eq 2 ] || fail "stdin over budget: exit $STATUS"
expect_stderr "--input: standard input: shape (1000, 1000) of <f8 read as float64: needs 7.6 MiB"
# the weight matrices attend draws
expect_usage_error --max-memory "$ATTN" attend --input "$WORK/row4.npy" --dq 30000 --dv 1 --max-memory 1M
expect_stderr "the weight matrices"

# Attention's inputs are finite numbers: a nan or inf is refused, naming the option, the file
# and the element, before anything is written.
"$PYTHON" -c "
import numpy as np
x = np.ones((3, 4)); x[2, 1] = np.nan; np.save('$WORK/nan.npy', x)
w = np.ones((4, 2)); w[0, 1] = -np.inf; np.save('$WORK/inf.npy', w)
t = np.ones((32, 1)); t[5, 0] = np.inf; np.save('$WORK/t5inf.npy', t)"
expect_usage_error --input "$ATTN" attend --input "$WORK/nan.npy" -o "$WORK/ctx.npy"
expect_stderr "--input: $WORK/nan.npy: element (2, 1) is nan; attention needs finite numbers"
checks=$((checks + 1))
[ ! -e "$WORK/ctx.npy" ] || fail "--input with a nan wrote $WORK/ctx.npy"
expect_usage_error --wk "$ATTN" attend --input "$WORK/row4.npy" --wk "$WORK/inf.npy"
expect_stderr "--wk: $WORK/inf.npy: element (0, 1) is -inf; attention needs finite numbers"
expect_usage_error --embeddings "$ATTN" attend --embeddings "$WORK/nan.npy" "a b"
expect_stderr "--embeddings: $WORK/nan.npy: element (2, 1) is nan; attention needs finite numbers"
expect_usage_error --bias-table "$ATTN" attend --input "$WORK/row4.npy" --scheme t5 \
    --bias-table "$WORK/t5inf.npy"
expect_stderr "--bias-table: $WORK/t5inf.npy: element (5, 0) is inf; attention needs finite numbers"
# and within the range of the dtype the layer computes in, where they would be inf
"$PYTHON" -c "
import numpy as np
x = np.ones((2, 3, 4)); x[1, 2, 3] = 1e39; np.save('$WORK/big39.npy', x)
w = np.ones((4, 4)); w[3, 0] = -7e4; np.save('$WORK/w7e4.npy', w)"
expect_usage_error --input "$ATTN" attend --input "$WORK/big39.npy"
expect_stderr "--input: $WORK/big39.npy: element (1, 2, 3) is 1e+39, above float32's largest value 3.4028234663852886e+38"
expect_status 0 "$ATTN" attend --input "$WORK/big39.npy" --dtype float64 -f csv
expect_usage_error --wq "$ATTN" attend --input "$WORK/row4.npy" --wq "$WORK/w7e4.npy" --dtype float16
expect_stderr "--wq: $WORK/w7e4.npy: element (3, 0) is -70000, above float16's largest value 65504"
expect_status 0 "$ATTN" attend --input "$WORK/row4.npy" --wq "$WORK/w7e4.npy" -f csv

# A missing input file is exit 1 in every subcommand; a directory says so.
expect_status 1 "$ATTN" encode --add "$WORK/missing.npy"
expect_stderr "--add: $WORK/missing.npy: No such file or directory"
expect_lines 1
expect_status 1 "$ATTN" attend --input "$WORK/missing.npy"
expect_status 1 "$ATTN" attend --wq "$WORK/missing.npy" "a b"
expect_status 1 "$ATTN" attend --embeddings "$WORK/missing.txt" "a b"
expect_status 1 "$ATTN" attend --input "$WORK"
expect_stderr "--input: $WORK: Is a directory"
expect_status 1 "$ATTN" encode --add "$WORK"
expect_stderr "Is a directory"

# Closed standard input says so; binary from a terminal is refused, as gzip refuses it.
run sh -c "'$ATTN' attend --input - <&-"
checks=$((checks + 1))
[ "$STATUS" -eq 1 ] || fail "closed stdin: exit $STATUS"
expect_stderr "--input: standard input is closed"
if command -v script >/dev/null; then
    checks=$((checks + 1))
    text=$(on_terminal "$ATTN" attend --input - </dev/null 2>&1)
    status=$?
    [ "$status" -eq 2 ] || fail "--input - on a terminal: exit $status"
    case $text in *"not read from a terminal"*) ;; *) fail "--input - on a terminal: $text" ;; esac
fi

# Newlines and control characters of the user's input are escaped, the message one line.
expect_status 1 "$ATTN" attend --input "$WORK/a
b"
expect_lines 1
expect_stderr 'a\nb: No such file or directory'
expect_status 1 "$ATTN" attend --input "$WORK/$(printf 'x\033[31my')"
expect_stderr 'x\x1b[31my'

# Day-one polish: names in any case, a step in --columns, complexity's --dtype default.
expect_status 0 "$ATTN" encode -n 3 -d 4 --cmap Blues -o "$WORK/p.SVG"
expect_grep '^<svg' "$WORK/p.SVG"
expect_status 0 "$ATTN" encode -n 3 -d 4 -o "$WORK/p.CSV"
expect_grep '^position,0,1,2,3$' "$WORK/p.CSV"
expect_status 0 "$ATTN" encode -n 2 -d 8 --columns 0:8:2 -f csv
expect_output "position,0,2,4,6
0,0,0,0,0
1,0.84147096,0.099833414,0.009999833,0.0009999998"
expect_usage_error --columns "$ATTN" encode -n 2 -d 8 --columns 0:8:0
expect_status 0 "$ATTN" complexity --help
expect_grep '^ *--dtype .*=float64' "$OUT"
expect_status 0 "$ATTN" complexity --dtype float64
# --color beside NO_COLOR: always colours a pipe even under NO_COLOR, never colours nothing.
expect_status 0 env NO_COLOR=1 "$ATTN" encode -n 2 -d 4 -f heatmap --color always
expect_grep $'\033\\[' "$OUT"
expect_status 0 "$ATTN" encode -n 2 -d 4 -f heatmap --color never
checks=$((checks + 1))
! grep -q $'\033' "$OUT" || fail "--color never printed escapes"
expect_usage_error --color "$ATTN" encode -f heatmap --color sometimes
expect_status 0 "$ATTN" encode -n 2 -d 4 -f heatmap --color Always
finish
