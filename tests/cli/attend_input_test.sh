# attn attend --input as a user runs it: the widths the rows keep, checked with numpy.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

# py CODE: runs python with numpy; a failing assert counts as one failed check.
py() {
    checks=$((checks + 1))
    "$PYTHON" -c "import numpy as np
W = '$WORK'
$1" 2>"$WORK/py.err" || fail "python check: $(tail -3 "$WORK/py.err")"
}

"$PYTHON" -c "import numpy as np
rng = np.random.default_rng(7)
np.save('$WORK/x.npy', rng.standard_normal((6, 8)).astype(np.float32))
np.save('$WORK/batch.npy', rng.standard_normal((2, 5, 3)).astype(np.float64))"

# Without --dq/--dv the projections keep the input's width d_in: Q, K, V and the context are
# (n, d_in), not (n, 2) and (n, 4).
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --show queries,keys,values,context,w_query,w_value \
    -o "$WORK/wide.npz"
py "z = np.load(W + '/wide.npz')
for name in ['queries', 'keys', 'values', 'context']:
    assert z[name].shape == (6, 8), (name, z[name].shape)
assert z['w_query'].shape == (8, 8) and z['w_value'].shape == (8, 8)
x = np.load(W + '/x.npy').astype(np.float64)
q = x @ z['w_query'].astype(np.float64)
assert np.abs(q - z['queries']).max() < 1e-5"
expect_status 0 "$ATTN" attend --input "$WORK/batch.npy" --heads 2 --show context -f npy -o "$WORK/b.npy"
py "assert np.load(W + '/b.npy').shape == (2, 5, 6)  # two heads of d_v = d_in = 3"

# Explicit widths still win, alone or together.
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --dq 3 --show queries,values -o "$WORK/dq.npz"
py "z = np.load(W + '/dq.npz'); assert z['queries'].shape == (6, 3) and z['values'].shape == (6, 8)"
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --dv 5 --show queries,context -o "$WORK/dv.npz"
py "z = np.load(W + '/dv.npz'); assert z['queries'].shape == (6, 8) and z['context'].shape == (6, 5)"
# A sentence keeps the notebook's widths.
expect_status 0 "$ATTN" attend "Life is short, eat dessert first" --show queries,context -o "$WORK/s.npz"
py "z = np.load(W + '/s.npz'); assert z['queries'].shape == (6, 2) and z['context'].shape == (6, 4)"

# --no-projection: Q = K = V = X, the context is softmax(X X^T / sqrt(d)) X (attention pooling),
# on both paths, with masks, and with sinusoidal P added to X first.
pool='def pool(x, causal=False):
    s = x @ x.T / np.sqrt(x.shape[1])
    if causal: s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True)); w /= w.sum(axis=1, keepdims=True)
    return w @ x
x = np.load(W + "/x.npy").astype(np.float64)'
for path in direct tiled; do
    expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --no-projection --attention $path \
        --show queries,keys,values,weights,context -o "$WORK/pool_$path.npz"
    py "$pool
z = np.load(W + '/pool_$path.npz')
for name in ['queries', 'keys', 'values']:
    assert (z[name] == x.astype(np.float32)).all(), name
d = np.abs(z['context'] - pool(x)).max()
assert d < 1e-6, d"
done
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --no-projection --causal --dtype float64 -f npy -o "$WORK/pc.npy"
py "$pool
d = np.abs(np.load(W + '/pc.npy') - pool(x, True)).max()
assert d < 1e-12, d"
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --no-projection --scheme sinusoidal \
    --dtype float64 --show positions,context -o "$WORK/ps.npz"
py "$pool
z = np.load(W + '/ps.npz')
xp = x + z['positions']
assert np.abs(z['context'] - pool(xp)).max() < 1e-12"
# With --permute the layer pools X[p]: equivariant without positions.
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --no-projection --permute reverse \
    --show equivariance -f npy -o "$WORK/pe.npy"
py "assert np.abs(np.load(W + '/pe.npy')).max() < 1e-6"

# --no-projection with a projection option: exit 2 naming both, nothing written.
for extra in "--dq 4" "--dv 4" "--dk 4" "--heads 2" "--out-proj" "--bias" "--init linear" \
    "--wq $WORK/x.npy" "--wo $WORK/x.npy"; do
    # shellcheck disable=SC2086
    expect_usage_error "--no-projection" "$ATTN" attend --input "$WORK/x.npy" --no-projection $extra
    expect_grep "with ${extra%% *}$" "$ERR"
done
expect_usage_error "--show w_query" "$ATTN" attend --input "$WORK/x.npy" --no-projection --show w_query
expect_usage_error "--no-projection" "$ATTN" attend "a b c" --no-projection --scheme rope
# A conflict is refused before any file is read; a flag set to false conflicts with nothing.
expect_usage_error "--bias" "$ATTN" attend "a b c" --bias --wq "$WORK/missing.npy"
expect_grep "with --wq$" "$ERR"
expect_status 0 "$ATTN" attend --input "$WORK/x.npy" --no-projection --out-proj=false --bias=false \
    --show context -f csv

finish
