# attn attend's tokens and ids as a user reads them: integers in text formats, int64 ids and
# numpy strings ('<U') in npy and npz, read with numpy.load (no allow_pickle).
. "$(dirname "$0")/lib.sh"
numpy_or_skip
S="Life is short, eat dessert first"

py() {
    checks=$((checks + 1))
    "$PYTHON" -c "import numpy as np
W = '$WORK'
$1" 2>"$WORK/py.err" || fail "python check: $(tail -3 "$WORK/py.err")"
}

# Text: the ids are integers, the tokens their row labels.
expect_status 0 "$ATTN" attend "$S" --show ids -f csv
expect_output "position,id
0,0
1,4
2,5
3,2
4,1
5,3"
expect_status 0 "$ATTN" attend "$S" --show tokens,ids,vocabulary -f json
expect_grep '"ids": \{"title": "token ids \(sentence_int\)", "dtype": "int64"' "$OUT"
expect_grep '"tokens": \{[^}]*"dtype": "int64"' "$OUT"
expect_grep '"vocabulary": \{[^}]*"dtype": "int64"' "$OUT"

# npz: tokens (n,) '<U', ids (n,) int64; `all` holds ids there, where tokens carry no ids.
expect_status 0 "$ATTN" attend "$S" --show all -o "$WORK/all.npz"
py "z = np.load(W + '/all.npz')
assert 'ids' in z.files, z.files
t, i = z['tokens'], z['ids']
assert t.dtype == np.dtype('<U7') and t.shape == (6,), (t.dtype, t.shape)
assert list(t) == ['Life', 'is', 'short', 'eat', 'dessert', 'first'], t
assert i.dtype == np.int64 and list(i) == [0, 4, 5, 2, 1, 3], i
assert z['vocabulary'].dtype == np.int64"
# npy, one array at a time; UTF-8 tokens become their code points.
expect_status 0 "$ATTN" attend "Ça va, café" --show tokens -o "$WORK/t.npy"
py "t = np.load(W + '/t.npy'); assert list(t) == ['Ça', 'va', 'café'] and t.dtype == np.dtype('<U4'), t"
expect_status 0 "$ATTN" attend "$S" --show ids -f npy -o "$WORK/i.npy"
py "i = np.load(W + '/i.npy'); assert i.dtype == np.int64 and list(i) == [0, 4, 5, 2, 1, 3], i"
# With --permute the tokens and ids are permuted alike.
expect_status 0 "$ATTN" attend "$S" --permute reverse --show tokens,ids -o "$WORK/p.npz"
py "z = np.load(W + '/p.npz')
assert list(z['tokens']) == ['first', 'dessert', 'eat', 'short', 'is', 'Life']
assert list(z['ids']) == [3, 1, 2, 5, 4, 0]"
# Sentences on standard input: one entry per sentence.
printf 'a b\nc d e\n' | "$ATTN" attend --show tokens,ids -o "$WORK/s.npz" || fail "stdin sentences"
py "z = np.load(W + '/s.npz')
assert list(z['tokens_1']) == ['c', 'd', 'e'] and list(z['ids_1']) == [0, 1, 2], z.files"
# In text formats `all` is unchanged: the tokens array already holds the ids.
expect_status 0 "$ATTN" attend "$S" --show all -f json
checks=$((checks + 1))
! grep -q '^"ids"' "$OUT" || fail "json --show all holds ids"
# --input rows have no tokens.
expect_usage_error "--show ids" "$ATTN" attend --input "$WORK/i.npy" --show ids

finish
