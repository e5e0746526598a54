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

finish
