# attn attend --scheme, --permute, --bias, --no-scale: every scheme's contribution computed
# again here with numpy from attn's own X and W (whose draws attend_test.sh checks against
# the notebook), PyTorch-made vectors for the projection biases, and every bad input.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
S="Life is short, eat dessert first"
DATA=$ATTN_TEST_DATA/attend

# py CODE: runs python with numpy; a failing assert counts as one failed check.
py() {
    checks=$((checks + 1))
    "$PYTHON" -c "import numpy as np
W = '$WORK'
DATA = '$DATA'
def close(got, want, what, tol=2e-6):
    got = np.asarray(got, dtype=np.float64); want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f'{what}: shape {got.shape} != {want.shape}'
    fin = np.isfinite(want)
    assert (np.isfinite(got) == fin).all() and (got[~fin] == want[~fin]).all(), f'{what}: masks'
    d = np.max(np.abs(got[fin] - want[fin])) if fin.any() else 0.0
    assert d <= tol, f'{what}: max |diff| {d}'
def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True)); return e / e.sum(axis=-1, keepdims=True)
def heads(a, H): return a if a.ndim == 3 else a[None]
$1" 2>"$WORK/py.err" || fail "python check: $(tail -3 "$WORK/py.err")"
}
ALL=embeddings,queries,keys,values,scores,scaled_scores,masked_scores,weights,context,w_query,w_key,w_value,positions

# sinusoidal: the projections take X + P (the closed form, interleaved, d = d_in = 3).
expect_status 0 "$ATTN" attend "$S" --scheme sinusoidal --causal --show $ALL -o "$WORK/sin.npz"
py "
a = np.load(W + '/sin.npz'); X = a['embeddings'].astype(np.float64)
n, d = X.shape; i = np.arange(n)[:, None]; j = np.arange(d)[None, :]
P = np.where(j % 2 == 0, np.sin(i / 10000 ** ((j - j % 2) / d)), np.cos(i / 10000 ** ((j - j % 2) / d)))
close(a['positions'], P, 'P')
Y = X + P
Q, K, V = Y @ a['w_query'], Y @ a['w_key'], Y @ a['w_value']
close(a['queries'], Q, 'queries = (X + P) W_q'); close(a['keys'], K, 'keys')
close(a['scores'], Q @ K.T, 'scores = ((X+P)Wq)((X+P)Wk)^T')
close(a['scaled_scores'], Q @ K.T / np.sqrt(2), 'scaled scores')
M = np.where(np.triu(np.ones((n, n)), 1) > 0, -np.inf, Q @ K.T / np.sqrt(2))
close(a['masked_scores'], M, 'masked scores (causal, -inf)')
close(a['context'], softmax(M) @ V, 'context')
"

# rope: q and k of each head rotated (Hugging Face's rotate_half, split layout), 2 heads.
for layout in split interleaved; do
    expect_status 0 "$ATTN" attend "$S" --scheme rope --layout $layout --dq 4 --heads 2 --start 3 \
        --show $ALL -o "$WORK/rope_$layout.npz"
    py "
a = np.load(W + '/rope_$layout.npz'); X = a['embeddings'].astype(np.float64); n = X.shape[0]
inv = 10000.0 ** (-np.arange(0, 4, 2) / 4); ang = (3 + np.arange(n))[:, None] * inv[None, :]
close(a['positions'], ang, 'angles')
def rot(x):
    if '$layout' == 'split':
        c, s = np.cos(np.concatenate([ang, ang], 1)), np.sin(np.concatenate([ang, ang], 1))
        return x * c + np.concatenate([-x[:, 2:], x[:, :2]], 1) * s
    c, s = np.repeat(np.cos(ang), 2, 1), np.repeat(np.sin(ang), 2, 1)
    r = np.empty_like(x); r[:, 0::2] = -x[:, 1::2]; r[:, 1::2] = x[:, 0::2]
    return x * c + r * s
for h in range(2):
    Q, K = X @ a['w_query'][h], X @ a['w_key'][h]
    close(a['queries'][h], Q, 'queries before rotation')
    close(a['scores'][h], rot(Q) @ rot(K).T, 'scores of rotated q, k')
    close(a['context'][:, 4 * h:4 * h + 4], softmax(rot(Q) @ rot(K).T / 2) @ (X @ a['w_value'][h]), 'context')
"
done

# alibi: -m_h |i - j| added to the scaled scores, m_h = 2^(-8h/H), before --valid-len's mask.
expect_status 0 "$ATTN" attend "$S" --scheme alibi --heads 4 --valid-len 4 --mask-value -1e6 \
    --show $ALL -o "$WORK/alibi.npz"
py "
a = np.load(W + '/alibi.npz'); X = a['embeddings'].astype(np.float64); n = X.shape[0]
i, j = np.arange(n)[:, None], np.arange(n)[None, :]
bias = np.stack([-2.0 ** (-8 * h / 4) * abs(i - j) for h in range(1, 5)])
close(a['positions'], bias, 'alibi bias')
for h in range(4):
    Q, K = X @ a['w_query'][h], X @ a['w_key'][h]
    s = Q @ K.T / np.sqrt(2) + bias[h]
    close(a['scaled_scores'][h], s, 'scaled scores + alibi')
    close(a['masked_scores'][h], np.where(j >= 4, -1e6, s), 'masked scores (valid length 4, -1e6)')
"

# t5: table[bucket(j - i), h] added to the unscaled scores (--no-scale), 8 buckets, D = 20.
py "
np.save(W + '/table.npy', np.random.default_rng(0).normal(size=(8, 2)).astype(np.float32))
t = np.random.default_rng(1).normal(size=(4, 1)); np.save(W + '/sym.npy', np.concatenate([t, t]))
np.save(W + '/wrong.npy', np.zeros((8, 3))); np.save(W + '/wq.npy', np.ones((3, 2)))"
expect_status 0 "$ATTN" attend "$S" --scheme t5 --heads 2 --bias-table "$WORK/table.npy" \
    --buckets 8 --max-distance 20 --no-scale --show $ALL -o "$WORK/t5.npz"
py "
a = np.load(W + '/t5.npz'); X = a['embeddings'].astype(np.float64); n = X.shape[0]
T = np.load(W + '/table.npy').astype(np.float64)
def bucket(r, B=8, D=20):  # transformers' T5Attention._relative_position_bucket, bidirectional
    B //= 2; ret = B if r > 0 else 0; r = abs(r); E = B // 2
    if r < E: return ret + r
    v = E + int(np.float32(np.log(np.float32(r) / E)) / np.float32(np.log(D / E)) * (B - E))
    return ret + min(v, B - 1)
bk = np.array([[bucket(j - i) for j in range(n)] for i in range(n)])
for h in range(2):
    Q, K = X @ a['w_query'][h], X @ a['w_key'][h]
    close(a['positions'][h], T[bk, h], 't5 bias')
    close(a['scaled_scores'][h], Q @ K.T + T[bk, h], 'unscaled scores + t5 bias')
    close(a['weights'][h], softmax(Q @ K.T + T[bk, h]), 'weights')
"

# --causal-bucket: T5's decoder buckets, max(-(j - i), 0) exact below B/2 = 4; every later key in
# bucket 0, which the mask --causal then hides.
expect_status 0 "$ATTN" attend "$S" --scheme t5 --heads 2 --bias-table "$WORK/table.npy" \
    --buckets 8 --max-distance 20 --causal-bucket --causal --show positions,masked_scores -o "$WORK/t5c.npz"
py "
a = np.load(W + '/t5c.npz'); T = np.load(W + '/table.npy').astype(np.float64); n = 6
def bucket(r, B=8, D=20):
    r = max(-r, 0); E = B // 2
    if r < E: return r
    return min(E + int(np.float32(np.log(np.float32(r) / E)) / np.float32(np.log(D / E)) * (B - E)), B - 1)
bk = np.array([[bucket(j - i) for j in range(n)] for i in range(n)])
close(a['positions'], np.stack([T[bk, h] for h in range(2)]), 'causal t5 bias')
assert np.isneginf(a['masked_scores'][:, np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]]).all()
"

# equivariance: context(X[p]) - context(X)[p].
eq() {  # eq NAME ARGS...: --show equivariance under --permute reverse into $WORK/NAME.npy
    local name=$1
    shift
    expect_status 0 "$ATTN" attend "$@" --permute reverse --show equivariance -o "$WORK/$name.npy"
}
eq none "$S"
eq none_float64 "$S" --dtype float64
eq sinusoidal "$S" --scheme sinusoidal
eq alibi "$S" --scheme alibi --heads 4
eq t5sym "$S" --scheme t5 --bias-table "$WORK/sym.npy" --buckets 8 --max-distance 20
eq rope "$S" --scheme rope
eq causal "$S" --causal
py "
m = lambda name: np.max(np.abs(np.load(W + '/' + name + '.npy')))
assert m('none') < 1e-6, m('none'); assert m('none_float64') < 1e-14, m('none_float64')
assert m('alibi') < 1e-6, m('alibi'); assert m('t5sym') < 1e-6, m('t5sym')
assert m('sinusoidal') > 0.5, m('sinusoidal'); assert m('rope') > 0.05, m('rope')
assert m('causal') > 0.5, m('causal')
"
# The direction of --permute: new position i holds old token LIST[i] (numpy's X[LIST]).
expect_status 0 "$ATTN" attend "$S" --permute 5,0,1,2,3,4 --show tokens,embeddings -o "$WORK/p.npz"
expect_status 0 "$ATTN" attend "$S" --show embeddings -o "$WORK/x.npy"
py "
a = np.load(W + '/p.npz'); X = np.load(W + '/x.npy')
close(a['embeddings'], X[[5, 0, 1, 2, 3, 4]], 'X[LIST]')
assert list(a['tokens']) == ['first', 'Life', 'is', 'short', 'eat', 'dessert'], a['tokens']
"
# A batch: every sequence permuted alike; sinusoidal P added to each.
py "np.save(W + '/batch.npy', np.random.default_rng(2).normal(size=(2, 5, 3)).astype(np.float32))"
expect_status 0 "$ATTN" attend --input "$WORK/batch.npy" --permute 4,3,0,1,2 --show embeddings,equivariance -o "$WORK/b.npz"
py "
a = np.load(W + '/b.npz'); X = np.load(W + '/batch.npy')
close(a['embeddings'], X[:, [4, 3, 0, 1, 2]], 'batch X[:, LIST]')
assert a['equivariance'].shape == (2, 5, 3) and np.abs(a['equivariance']).max() < 1e-6
"

# --bias: nn.Linear(bias=True) against PyTorch (tests/data/attend/make_bias_vectors.py).
expect_status 0 "$ATTN" attend "$S" --bias --show queries,context -o "$WORK/bias.npz"
expect_status 0 "$ATTN" attend "$S" --bias --init linear --heads 2 --out-proj -o "$WORK/lin.npy"
py "
a = np.load(W + '/bias.npz')
close(a['queries'], np.load(DATA + '/bias_rand_queries.npy'), 'X W_q + b_q', 1e-6)
close(a['context'], np.load(DATA + '/bias_rand_context.npy'), 'context with biases', 1e-6)
close(np.load(W + '/lin.npy'), np.load(DATA + '/bias_linear_2heads_outproj_context.npy'), 'nn.Linear', 1e-6)
"

# Bad input: exit 2, the option named, nothing written.
bad() {  # bad OPTION ARGS...
    local option=$1
    shift
    expect_usage_error "$option" "$ATTN" attend "$@" -o "$WORK/bad.npy"
    [ ! -e "$WORK/bad.npy" ] || fail "'$*' wrote $WORK/bad.npy"
}
bad --dq "$S" --scheme rope --dq 3
bad --bias-table "$S" --scheme t5
bad --bias-table "$S" --scheme t5 --bias-table "$WORK/wrong.npy"
bad --bias-table "$S" --scheme alibi --bias-table "$WORK/table.npy"
bad --buckets "$S" --scheme t5 --bias-table "$WORK/table.npy" --buckets 2
bad --factor "$S" --scheme rope --rope-scaling linear
bad --permute "$S" --permute 0,0,1,2,3,4
bad --permute "$S" --permute 0,1,2,3,4,9
bad --permute "$S" --permute 0,1
bad --permute "$S" --permute 0,x
bad --bias "$S" --bias --wq "$WORK/wq.npy"
bad --show "$S" --show positions
bad --show "$S" --show equivariance

finish
