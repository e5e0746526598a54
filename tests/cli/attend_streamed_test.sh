#!/usr/bin/env bash
# attend's tiled path (--attention tiled, and auto above 2048 x 2048 entries per head) against
# the direct path: the same arrays to rounding (1e-5 relative, float32), masks, heads, batches
# and --query included; weights streamed into an .npy; the same bits for 1 and 2 threads; and
# the context within 1e-4 of a float64 reference at n = 4,096.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
export ATTN_PROGRESS_DELAY=1000  # no bar, whatever standard error is

py() { "$PYTHON" -c "import sys, numpy as np; W = sys.argv[1]; $1" "$WORK"; }
py "
rng = np.random.default_rng(7)
np.save(W + '/x.npy', rng.normal(0, 1, (40, 8)).astype(np.float32))
np.save(W + '/b.npy', rng.normal(0, 1, (3, 30, 8)).astype(np.float32))
np.save(W + '/long.npy', rng.normal(0, 1, (4096, 32)).astype(np.float32))
for name in ('q', 'k', 'v'):
    np.save(W + '/w' + name + '.npy', rng.normal(0, 0.25, (32, 32)).astype(np.float32))
"

# compare NAME ARGS...: runs attend with ARGS through both paths into npz files and compares
# every array (float32: 1e-5 of the array's largest magnitude; float64: 1e-12).
compare() {
    local name=$1
    shift
    "$ATTN" attend "$@" --attention direct -o "$WORK/direct.npz" || fail "$name: direct failed"
    "$ATTN" attend "$@" --attention tiled -o "$WORK/tiled.npz" || fail "$name: tiled failed"
    checks=$((checks + 1))
    "$PYTHON" - "$WORK" "$name" <<'PY' || fail "$name: the paths differ"
import sys, numpy as np
w, name = sys.argv[1], sys.argv[2]
a, b = np.load(f"{w}/direct.npz"), np.load(f"{w}/tiled.npz")
assert sorted(a.files) == sorted(b.files), (a.files, b.files)
for k in a.files:
    x, y = a[k], b[k]
    assert x.shape == y.shape, (k, x.shape, y.shape)
    tol = 1e-12 if x.dtype == np.float64 else 1e-5
    scale = max(np.abs(x).max(), 1e-30)
    err = np.abs(x - y).max() / scale
    assert err <= tol, f"{name}: {k}: relative difference {err}"
    assert np.array_equal(np.isnan(x), np.isnan(y)), k
PY
}
S="Life is short, eat dessert first"
ALL=queries,keys,values,scores,weights,context
compare "notebook" "$S" --show $ALL --causal
compare "notebook float64" "$S" --show $ALL --dtype float64 --heads 2 --valid-len 4
compare "heads" --input "$WORK/x.npy" --show $ALL --heads 3 --dq 4 --dv 3 --causal --valid-len 25 \
    --out-proj
compare "batch" --input "$WORK/b.npy" --show $ALL --heads 2 --dq 4 --dv 4 --valid-len 10,30,0
compare "batch fill" --input "$WORK/b.npy" --show scores,weights,context --causal \
    --valid-len 10,20,0 --mask-value -1e6
compare "query" --input "$WORK/b.npy" --show $ALL --heads 2 --query 7 --causal
printf 'a b c\nd e\nf g h i\n' >"$WORK/lines.txt"
"$ATTN" attend --show weights,context -o "$WORK/direct.npz" --attention direct <"$WORK/lines.txt"
"$ATTN" attend --show weights,context -o "$WORK/tiled.npz" --attention tiled <"$WORK/lines.txt"
checks=$((checks + 1))
cmp -s "$WORK/direct.npz" "$WORK/tiled.npz" ||
    py "a, b = np.load(W + '/direct.npz'), np.load(W + '/tiled.npz')
for k in a.files: assert np.allclose(a[k], b[k], rtol=0, atol=1e-6, equal_nan=True), k" ||
    fail "sentences on standard input: the paths differ"

# Weights streamed into one .npy: equal to the direct ones.
"$ATTN" attend --input "$WORK/x.npy" --show weights --heads 2 --causal --attention direct \
    -o "$WORK/wd.npy"
"$ATTN" attend --input "$WORK/x.npy" --show weights --heads 2 --causal --attention tiled \
    -o "$WORK/wt.npy"
checks=$((checks + 1))
py "a, b = np.load(W + '/wd.npy'), np.load(W + '/wt.npy')
assert a.shape == b.shape == (2, 40, 40), (a.shape, b.shape)
assert np.abs(a - b).max() <= 1e-6 and np.allclose(b.sum(-1), 1, atol=1e-5)" ||
    fail "streamed weights differ from the direct ones"

# The same bits for 1 and 2 threads (context and streamed weights, several blocks).
for t in 1 2; do
    "$ATTN" attend --input "$WORK/long.npy" --dq 32 --dv 32 --heads 2 --causal --threads $t \
        -o "$WORK/c$t.npy"
    "$ATTN" attend --input "$WORK/x.npy" --show weights,context --attention tiled --threads $t \
        --valid-len 33 -o "$WORK/w$t.npz"
done
checks=$((checks + 2))
cmp -s "$WORK/c1.npy" "$WORK/c2.npy" || fail "context differs between 1 and 2 threads"
cmp -s "$WORK/w1.npz" "$WORK/w2.npz" || fail "weights differ between 1 and 2 threads"

# auto: the direct path up to 2048 x 2048 entries per head (the same bytes as direct), the
# tiled path beyond (the same bytes as tiled).
for n in 2048 2049; do
    py "np.save(W + '/n.npy', np.load(W + '/long.npy')[:$n, :4])"
    for path in auto direct tiled; do
        "$ATTN" attend --input "$WORK/n.npy" --dq 4 --dv 4 --attention $path -o "$WORK/$path.npy"
    done
    checks=$((checks + 1))
    want=$([ "$n" = 2048 ] && echo direct || echo tiled)
    cmp -s "$WORK/auto.npy" "$WORK/$want.npy" || fail "n = $n: auto is not the $want path"
done

# n = 4,096, d = 32: the context within 1e-4 of float64 numpy.
"$ATTN" attend --input "$WORK/long.npy" --wq "$WORK/wq.npy" --wk "$WORK/wk.npy" \
    --wv "$WORK/wv.npy" --causal -o "$WORK/c.npy" || fail "attend n = 4096 failed"
checks=$((checks + 1))
py "
x = np.load(W + '/long.npy').astype(np.float64)
q, k, v = (x @ np.load(W + '/w' + c + '.npy').astype(np.float64) for c in 'qkv')
s = q @ k.T / np.sqrt(32)
s[np.triu_indices(4096, 1)] = -np.inf
e = np.exp(s - s.max(1, keepdims=True))
ref = (e / e.sum(1, keepdims=True)) @ v
c = np.load(W + '/c.npy')
err = np.abs(c - ref).max() / np.abs(ref).max()
assert c.dtype == np.float32 and err < 1e-4, err
" || fail "n = 4096: the context is not within 1e-4 of float64"

# --max-memory counts the working set only: the direct path at n = 65,536 needs GiB, the
# tiled one a few MiB.
py "np.save(W + '/huge.npy', np.zeros((65536, 1), dtype=np.float32))"
expect_usage_error max-memory "$ATTN" attend --input "$WORK/huge.npy" --attention direct
expect_grep 'GiB' "$ERR"
expect_usage_error max-memory "$ATTN" attend --input "$WORK/long.npy" --dq 64 --dk 64 --dv 64 --max-memory 1M
expect_grep 'tiled attention' "$ERR"
expect_usage_error --attention "$ATTN" attend "$S" --attention flash

# Position schemes on the tiled path: the fused kernel's per-head bias and scale give the
# direct path's matrices (alibi with a causal mask, sinusoidal X + P with a valid length, t5
# unscaled).
py "
rng = np.random.default_rng(0)
np.save(W + '/x300.npy', (rng.standard_normal((300, 16)) / 2).astype(np.float32))
np.save(W + '/t5.npy', rng.standard_normal((32, 2)).astype(np.float32))"
for scheme in "--scheme alibi --causal" "--scheme sinusoidal --valid-len 200" \
    "--scheme t5 --bias-table $WORK/t5.npy --no-scale"; do
    for path in direct tiled; do
        # shellcheck disable=SC2086
        "$ATTN" attend --input "$WORK/x300.npy" --heads 2 $scheme --attention $path \
            --show context,weights,scaled_scores,masked_scores -o "$WORK/s_$path.npz" ||
            fail "$scheme --attention $path failed"
    done
    checks=$((checks + 1))
    py "
a, b = np.load(W + '/s_direct.npz'), np.load(W + '/s_tiled.npz')
for name in a.files:
    x, y = a[name], b[name]
    assert x.shape == y.shape and (np.isfinite(x) == np.isfinite(y)).all(), name
    f = np.isfinite(x)
    assert np.abs(x[f] - y[f]).max() <= 1e-5 * max(1, np.abs(x[f]).max()), name
" || fail "$scheme: the tiled path differs from the direct one"
done

# RoPE (both layouts), projection biases and --permute on the tiled path: q and k rotated
# before the fused kernel, biases added to its inputs, the rows permuted; within 3e-5 of the
# largest entry of the direct path at n = 2,300 (above the 2048 where auto turns tiled).
py "
rng = np.random.default_rng(1)
np.save(W + '/x2300.npy', (rng.standard_normal((2300, 16)) / 2).astype(np.float32))"
for options in "--scheme rope --layout split --causal --dq 8" "--scheme rope --layout interleaved" \
    "--bias --init linear --out-proj --dv 3" "--permute reverse --scheme alibi --show-equivariance"; do
    show=context,weights
    [[ $options == *--show-equivariance ]] && show=context,weights,equivariance
    options=${options% --show-equivariance}
    for path in direct tiled; do
        # shellcheck disable=SC2086
        "$ATTN" attend --input "$WORK/x2300.npy" --heads 2 $options --attention $path \
            --show $show -o "$WORK/r_$path.npz" || fail "$options --attention $path failed"
    done
    checks=$((checks + 1))
    py "
a, b = np.load(W + '/r_direct.npz'), np.load(W + '/r_tiled.npz')
assert sorted(a.files) == sorted(b.files), (a.files, b.files)
for name in a.files:
    x, y = a[name], b[name]
    assert x.shape == y.shape, name
    scale = max(np.abs(x).max(), np.abs(a['context']).max())
    d = np.abs(x - y).max()
    assert d <= 3e-5 * scale, (name, d, scale)
" || fail "$options: the tiled path differs from the direct one at n = 2300"
done

finish
