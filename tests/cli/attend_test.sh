# attn attend as a user runs it: the notebook's numbers, masks, heads, the book's example,
# stdin sentences, --input pipes, formats and every bad input.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
REF=$ATTN_TEST_DATA/raschka/notebook_seed123.json
S="Life is short, eat dessert first"

# py CODE: runs python with numpy; a failing assert counts as one failed check.
py() {
    checks=$((checks + 1))
    "$PYTHON" -c "import sys, json, numpy as np
REF = json.load(open('$REF'))['tensors']
def ref(name): t = REF[name]; return np.array(t['values'], dtype=np.float64).reshape(t['shape'])
def close(got, want, what, tol=1e-6):
    got = np.asarray(got, dtype=np.float64); want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f'{what}: shape {got.shape} != {want.shape}'
    d = np.max(np.abs(got - want)) if got.size else 0.0
    assert d <= tol, f'{what}: max |diff| {d}'
W = '$WORK'
$1" 2>"$WORK/py.err" || fail "python check: $(tail -3 "$WORK/py.err")"
}

# The vocabulary and the ids, as the notebook prints them.
expect_status 0 "$ATTN" attend "$S" --show vocabulary -f csv
expect_output "token,id
Life,0
dessert,1
eat,2
first,3
is,4
short,5"
expect_status 0 "$ATTN" attend "$S" --show tokens -f csv --no-header
expect_output "0,Life,0
1,is,4
2,short,5
3,eat,2
4,dessert,1
5,first,3"

# Every matrix of the notebook: random draws bit-exact, derived ones within 1e-6.
expect_status 0 "$ATTN" attend "$S" --show all,w_query,w_key,w_value -o "$WORK/nb.npz"
py "z = np.load(W + '/nb.npz')
assert sorted(z.files) == sorted(['vocabulary', 'tokens', 'ids', 'embeddings', 'w_query', 'w_key',
                                  'w_value', 'queries', 'keys', 'values', 'scores', 'weights',
                                  'context']), z.files
assert z['embeddings'].dtype == np.float32
assert list(z['tokens']) == ['Life', 'is', 'short', 'eat', 'dessert', 'first'], z['tokens']
assert z['ids'].dtype == np.int64 and list(z['ids']) == [0, 4, 5, 2, 1, 3]
for mine, theirs in [('embeddings', 'embedded_sentence'), ('w_query', 'W_query'), ('w_key', 'W_key'),
                     ('w_value', 'W_value')]:
    bits = [int(b, 16) for b in REF[theirs]['bits']]
    assert list(z[mine].reshape(-1).view(np.uint32)) == bits, mine
close(z['keys'], ref('keys'), 'keys'); close(z['values'], ref('values'), 'values')
close(z['queries'][1], ref('query_2'), 'query_2')
close(z['scores'][1, 4], ref('omega_24'), 'omega_24')
close(z['scores'][1], ref('omega_2'), 'omega_2')
close(z['weights'][1], ref('attention_weights_2'), 'attention_weights_2')
close(z['context'], ref('self_attention_output'), 'self_attention_output')
assert np.all(np.abs(z['weights'].sum(axis=1) - 1) <= 1e-6)"

# omega_2 is --show scores --query 1, as csv; float64 computes in double, same draws.
expect_status 0 "$ATTN" attend "$S" --show scores --query 1 -f csv -o "$WORK/omega2.csv"
py "import csv
rows = list(csv.reader(open(W + '/omega2.csv')))
assert rows[0] == ['position', 'token', 'Life', 'is', 'short', 'eat', 'dessert', 'first'], rows[0]
assert rows[1][:2] == ['1', 'is'] and len(rows) == 2
close([float(v) for v in rows[1][2:]], ref('omega_2'), 'omega_2 csv')"
expect_status 0 "$ATTN" attend "$S" --dtype float64 -f json -o "$WORK/nb64.json" --show context,weights
py "j = json.load(open(W + '/nb64.json'))
assert j['context']['dtype'] == 'float64'
close(j['context']['data'], ref('self_attention_output'), 'context float64')
assert j['weights']['labels']['token'][1] == 'is' and j['weights']['columns'][0] == 'Life'"
expect_status 0 "$ATTN" attend "$S" --rng-kernel scalar --show context -o "$WORK/scalar.npy"
py "close(np.load(W + '/scalar.npy'), ref('self_attention_output'), 'scalar kernel')"

# Masks: causal upper triangle exactly 0; valid lengths; a fully masked row is 0, not NaN;
# --mask-value -1e6 gives the book's uniform row instead.
expect_status 0 "$ATTN" attend "$S" --causal --show weights,context -o "$WORK/causal.npz"
py "z = np.load(W + '/causal.npz'); w = z['weights']
assert np.all(w[np.triu_indices(6, 1)] == 0), w
assert np.all(np.abs(w.sum(axis=1) - 1) <= 1e-6)
assert w[0, 0] == 1"
expect_status 0 "$ATTN" attend "$S" --valid-len 2 --show weights -o "$WORK/vl.npy"
py "w = np.load(W + '/vl.npy'); assert np.all(w[:, 2:] == 0) and np.all(np.abs(w.sum(1) - 1) <= 1e-6)"
expect_status 0 "$ATTN" attend "$S" --valid-len 0 --show weights,context -o "$WORK/none.npz"
py "z = np.load(W + '/none.npz'); assert np.all(z['weights'] == 0) and np.all(z['context'] == 0)"
expect_status 0 "$ATTN" attend "$S" --valid-len 0 --mask-value -1e6 --show weights -f csv --no-header
py "assert all(abs(float(v) - 1/6) < 1e-6 for line in open(W + '/stdout') for v in line.split(',')[2:])"
expect_status 0 "$ATTN" attend "$S" --causal --mask-value -1e6 --show weights -o "$WORK/causal_fill.npy"
py "w = np.load(W + '/causal_fill.npy'); assert np.all(w[np.triu_indices(6, 1)] == 0)"

# Heads: shapes, and head h equals a single-head run with head h's matrices.
expect_status 0 "$ATTN" attend "$S" --heads 4 --dv 1 --show all,w_query,w_key,w_value -o "$WORK/h4.npz"
py "z = np.load(W + '/h4.npz')
assert z['weights'].shape == (4, 6, 6) and z['scores'].shape == (4, 6, 6)
assert z['queries'].shape == (4, 6, 2) and z['values'].shape == (4, 6, 1)
assert z['context'].shape == (6, 4) and z['w_query'].shape == (4, 3, 2)
close(z['weights'][0], np.load(W + '/nb.npz')['weights'], 'head 0 = the notebook')
for name in ['w_query', 'w_key', 'w_value']: np.save(W + f'/{name}2.npy', z[name][2])"
expect_status 0 "$ATTN" attend "$S" --wq "$WORK/w_query2.npy" --wk "$WORK/w_key2.npy" \
    --wv "$WORK/w_value2.npy" --show weights,context -o "$WORK/h2.npz"
py "z = np.load(W + '/h4.npz'); one = np.load(W + '/h2.npz')
close(one['weights'], z['weights'][2], 'head 2 weights', 0); close(one['context'][:, 0], z['context'][:, 2], 'head 2 context', 0)"
# (d_in, H d) column blocks are read as the heads, as the book's W^T.
py "z = np.load(W + '/h4.npz')
for n in ['w_query', 'w_key', 'w_value']: np.save(W + f'/{n}_blocks.npy', np.concatenate(list(z[n]), axis=1))"
expect_status 0 "$ATTN" attend "$S" --heads 4 --wq "$WORK/w_query_blocks.npy" --wk "$WORK/w_key_blocks.npy" \
    --wv "$WORK/w_value_blocks.npy" --show context -o "$WORK/hb.npy"
py "close(np.load(W + '/hb.npy'), np.load(W + '/h4.npz')['context'], 'column blocks', 0)"

# The book's MultiHeadAttention: 100 hidden units, 5 heads, X = ones(2, 4, 100), valid
# lengths [3, 2] -> (2, 4, 100).
py "np.save(W + '/ones.npy', np.ones((2, 4, 100), dtype=np.float32))"
expect_status 0 "$ATTN" attend --input "$WORK/ones.npy" --heads 5 --dq 20 --dv 20 --out-proj --init linear \
    --valid-len 3,2 --show context,weights,w_out -o "$WORK/book.npz"
py "z = np.load(W + '/book.npz'); c = z['context']
assert c.shape == (2, 4, 100) and z['weights'].shape == (2, 5, 4, 4) and z['w_out'].shape == (100, 100)
assert np.all(z['weights'][0, :, :, 3:] == 0) and np.all(z['weights'][1, :, :, 2:] == 0)
assert np.allclose(z['weights'][0, :, :, :3], 1/3, atol=1e-6)
assert np.all(np.abs(z['w_out']) <= 0.1 + 1e-7)
assert np.allclose(c, c[:, :1, :], atol=1e-6)"

# --input: from attn encode through a pipe; a batch; labels are positions.
"$ATTN" encode -n 6 -d 4 -f npy | "$ATTN" attend --input - --dq 4 --dv 4 --show weights -f csv >"$OUT" 2>"$ERR"
checks=$((checks + 1))
[ "$(head -1 "$OUT")" = "position,0,1,2,3,4,5" ] || fail "encode | attend --input -: $(head -2 "$OUT") $(cat "$ERR")"
[ "$(wc -l <"$OUT")" -eq 7 ] || fail "encode | attend: $(wc -l <"$OUT") lines"
expect_status 0 "$ATTN" attend --input "$WORK/ones.npy" --dq 3 --dv 2 --show context -f csv
expect_grep '^batch,position,0,1$' "$OUT"
expect_grep '^1,3,' "$OUT"

# Several sentences, one per line on stdin: the sentence index first in csv, one entry per
# sentence in npz/json; each sentence as if given alone.
printf 'Life is short, eat dessert first\nthe cat sat\n' >"$WORK/sentences.txt"
expect_status 0 "$ATTN" attend --show context -f csv <"$WORK/sentences.txt"
expect_grep '^sentence,position,token,0,1,2,3$' "$OUT"
expect_grep '^0,1,is,0\.53133386,' "$OUT"
expect_grep '^1,2,sat,' "$OUT"
expect_status 0 "$ATTN" attend --show weights,context -o "$WORK/multi.npz" <"$WORK/sentences.txt"
py "z = np.load(W + '/multi.npz')
assert sorted(z.files) == ['context_0', 'context_1', 'weights_0', 'weights_1'], z.files
assert z['weights_1'].shape == (3, 3)
close(z['context_0'], ref('self_attention_output'), 'sentence 0')"
expect_status 0 "$ATTN" attend --show weights -f csv --no-header <"$WORK/sentences.txt"
expect_grep '^1,0,the,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,0,0,0$' "$OUT"
expect_usage_error --format "$ATTN" attend -f npy -o "$WORK/m.npy" <"$WORK/sentences.txt"
printf 'a b\n\nc\n' >"$WORK/blank.txt"
expect_usage_error 'line 2' "$ATTN" attend -f csv <"$WORK/blank.txt"

# Formats: csv quoting and UTF-8; default in a pipe is the context; on a terminal the walk-through.
expect_status 0 "$ATTN" attend 'say "hi" to café' --show tokens -f csv --no-header
expect_output '0,say,2
1,"""hi""",0
2,to,3
3,café,1'
expect_status 0 "$ATTN" attend 'say "hi" to café' --show tokens -f csv
expect_status 0 "$ATTN" attend "$S" -f json --show tokens
expect_grep '"token": \["Life", "is"' "$OUT"
expect_status 0 "$ATTN" attend "$S"
expect_grep '^position,token,0,1,2,3$' "$OUT"
on_terminal "$ATTN" attend "$S" >"$OUT" 2>&1
expect_grep '^vocabulary: sorted unique tokens' "$OUT"
expect_grep '^attention weights softmax\(omega / sqrt\(d_k\)\) \(6 x 6, float32\)' "$OUT"
expect_grep '^1 +is +0\.5313 +1\.3607 +0\.7891 +1\.3110' "$OUT"
expect_status 0 "$ATTN" attend "$S" --lowercase --strip-punctuation --show vocabulary -f csv --no-header
expect_grep '^life,4$' "$OUT"
mkdir "$WORK/dir"
expect_status 0 "$ATTN" attend "$S" --show scores,weights -o "$WORK/dir/"
[ -s "$WORK/dir/scores.csv" ] && [ -s "$WORK/dir/weights.csv" ] || fail "-o DIR/ did not write both"

# Embeddings from files: word2vec text with a header, an .npy table with --vocab, unknowns.
printf '3 2\nLife 1 0\nis 0 1\nshort 1 1\n' >"$WORK/vec.txt"
expect_status 0 "$ATTN" attend "Life is short" --embeddings "$WORK/vec.txt" --show embeddings -f csv --no-header
expect_output "0,Life,1,0
1,is,0,1
2,short,1,1"
expect_usage_error "no vector for 'eat'" "$ATTN" attend "Life is eat" --embeddings "$WORK/vec.txt"
expect_status 0 "$ATTN" attend "Life is eat" --embeddings "$WORK/vec.txt" --unknown zero --show embeddings -f csv --no-header
expect_grep '^2,eat,0,0$' "$OUT"
expect_status 0 "$ATTN" attend "Life is eat" --embeddings "$WORK/vec.txt" --unknown random --show embeddings -f csv
py "np.save(W + '/table.npy', np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float64))"
printf 'Life\nis\nshort\n' >"$WORK/vocab.txt"
expect_status 0 "$ATTN" attend "short Life" --embeddings "$WORK/table.npy" --vocab "$WORK/vocab.txt" --show embeddings -f csv --no-header
expect_output "0,short,1,1
1,Life,1,0"
printf 'Life 1 0\nis 0 1 2\n' >"$WORK/bad.txt"
expect_usage_error "bad.txt:2: 3 values, expected 2" "$ATTN" attend "Life is" --embeddings "$WORK/bad.txt"

# Bad inputs: exit 2, one line naming the option, nothing on stdout.
expect_usage_error 'empty sentence' "$ATTN" attend ""
expect_usage_error 'empty sentence' "$ATTN" attend " , ,"
expect_usage_error --dk "$ATTN" attend "$S" --dk 3
expect_usage_error --dq "$ATTN" attend "$S" --dq 0
expect_usage_error --vocab-size "$ATTN" attend "$S" --vocab-size 5
expect_usage_error --wq "$ATTN" attend "$S" --wq "$WORK/w_value2.npy" --dq 2
py "np.save(W + '/int.npy', np.zeros((3, 2), dtype=np.int32)); np.save(W + '/w1.npy', np.zeros((3,), dtype=np.float32))"
expect_usage_error --wk "$ATTN" attend "$S" --wk "$WORK/int.npy"
expect_usage_error --wv "$ATTN" attend "$S" --wv "$WORK/w1.npy"
expect_usage_error --input "$ATTN" attend --input "$WORK/w1.npy"
expect_usage_error --input "$ATTN" attend --input "$WORK/int.npy"
expect_usage_error --input "$ATTN" attend "$S" --input "$WORK/ones.npy"
expect_usage_error --query "$ATTN" attend "$S" --query 6
expect_usage_error --valid-len "$ATTN" attend "$S" --valid-len 1,2
expect_usage_error --valid-len "$ATTN" attend "$S" --valid-len x
expect_usage_error --mask-value "$ATTN" attend "$S" --mask-value nan
expect_usage_error --show "$ATTN" attend "$S" --show everything
expect_usage_error --show "$ATTN" attend --input "$WORK/ones.npy" --show tokens
expect_usage_error --format "$ATTN" attend "$S" --show scores,weights -f csv
expect_usage_error --init "$ATTN" attend "$S" --init xavier
expect_usage_error --rng "$ATTN" attend "$S" --rng numpy
py "np.save(W + '/big.npy', np.zeros((2048, 1), dtype=np.float32))"
expect_usage_error 'max-memory' "$ATTN" attend --input "$WORK/big.npy" --max-memory 10M
expect_grep '2048 x 2048' "$ERR"
expect_status 1 "$ATTN" attend "$S" --wq "$WORK/missing.npy"
expect_grep 'attn: --wq' "$ERR"

finish
