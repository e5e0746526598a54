# attn encode --scheme rope|alibi|t5 and --angles float32: arrays read by numpy and compared
# with the formulas written out here in Python (Hugging Face's definitions, the ALiBi paper's
# slopes, T5's bucket function); integer and per-head text output; every refused input.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

D2L=$ATTN_TEST_DATA/d2l
W=$WORK
ok() { "$@" || fail "$*"; }

ok "$ATTN" encode --scheme rope -n 6 -d 128 --start 99995 --base 500000 --rope-scaling llama3 \
    --factor 8 --low-freq-factor 1 --high-freq-factor 4 --original-max-positions 8192 \
    --show all --dtype float64 -o "$W/llama3.npz"
ok "$ATTN" encode --scheme rope -n 5 -d 16 --layout interleaved --show cos,sin --dtype float64 \
    -o "$W/inter.npz"
ok "$ATTN" encode --scheme rope -n 4 -d 8 --rope-scaling yarn --factor 4 \
    --original-max-positions 64 --show inv_freq,cos,sin --dtype float64 -o "$W/yarn.npz"
ok "$ATTN" encode --scheme rope -n 3 -d 8 --rope-scaling linear --factor 2 --show inv_freq \
    --dtype float64 -o "$W/linear.npy"
ok "$ATTN" encode --scheme rope -n 20 -d 8 --rope-scaling dynamic --factor 2 \
    --original-max-positions 10 --show inv_freq --dtype float64 -o "$W/dynamic.npy"
ok "$ATTN" encode -n 3 -d 6 -f npy -o "$W/X2.npy"
ok "$ATTN" encode -n 3 -d 6 --add "$W/X2.npy" -o "$W/Xtmp.npy"
"$PYTHON" -c "
import numpy as np; x = np.load('$W/X2.npy').astype(np.float64)
np.save('$W/X.npy', x); np.save('$W/Xb.npy', np.stack([x, 2 * x + 1]))"
ok "$ATTN" encode --scheme rope --apply "$W/X.npy" --start 7 --dtype float64 -o "$W/rot.npy"
ok "$ATTN" encode --scheme rope --apply "$W/Xb.npy" --start 7 --dtype float64 -o "$W/rotb.npy"
ok "$ATTN" encode --scheme alibi -n 5 --show all -o "$W/alibi8.npz"
ok "$ATTN" encode --scheme alibi -n 4 --heads 12 --show slopes --dtype float64 -o "$W/s12.npy"
ok "$ATTN" encode --scheme alibi -n 4 --heads 3 --dtype float64 -o "$W/bias3.json"
ok "$ATTN" encode --scheme t5 -n 300 -o "$W/t5.npy"
ok "$ATTN" encode --scheme t5 -n 300 --causal --buckets 16 --max-distance 64 -o "$W/t5c.npz"
ok "$ATTN" encode --angles float32 -n 1000 -d 32 -o "$W/book.npy"

"$PYTHON" - "$W" "$D2L" <<'PY' || fail "numpy checks"
import json, math, sys
import numpy as np
w, d2l = sys.argv[1], sys.argv[2]

# rope with Llama 3.1's rope_scaling (transformers' _compute_llama3_parameters), float64.
z = np.load(f"{w}/llama3.npz")
assert sorted(z.files) == ["angles", "cos", "inv_freq", "sin"], z.files
d, base, F, lo, hi, M = 128, 500000.0, 8.0, 1.0, 4.0, 8192.0
f = np.array([base ** -(2 * j / d) for j in range(d // 2)])
wave = 2 * math.pi / f
scaled = np.where(wave > M / lo, f / F, f)
s = (M / wave - lo) / (hi - lo)
smooth = (1 - s) * scaled / F + s * scaled
medium = ~(wave < M / hi) & ~(wave > M / lo)
ref = np.where(medium, smooth, scaled)
assert z["inv_freq"].shape == (64,) and z["inv_freq"].dtype == np.float64
assert np.allclose(z["inv_freq"], ref, rtol=1e-13, atol=0), np.abs(z["inv_freq"] / ref - 1).max()
pos = np.arange(99995, 100001, dtype=np.float64)
ang = pos[:, None] * ref[None, :]
assert z["angles"].shape == (6, 64) and np.allclose(z["angles"], ang, rtol=1e-12, atol=0)
# Python's cos of the double angle: the angle's rounding (1e5 * 2^-53) is the tolerance.
emb = np.concatenate([ang, ang], axis=1)  # rotate_half layout
assert z["cos"].shape == (6, 128) and np.abs(z["cos"] - np.cos(emb)).max() < 1e-10
assert np.abs(z["sin"] - np.sin(emb)).max() < 1e-10
# Interleaved: [a0 a0 a1 a1 ...].
z = np.load(f"{w}/inter.npz")
f = 10000.0 ** -(np.arange(0, 16, 2) / 16)
a = np.repeat(np.arange(5)[:, None] * f[None, :], 2, axis=1)
assert np.abs(z["cos"] - np.cos(a)).max() < 1e-15 and np.abs(z["sin"] - np.sin(a)).max() < 1e-15
# yarn (_compute_yarn_parameters): ramp between the correction range, attention factor.
z = np.load(f"{w}/yarn.npz")
d, base, F, M, fast, slow = 8, 10000.0, 4.0, 64.0, 32.0, 1.0
corr = lambda beta: d * math.log(M / (beta * 2 * math.pi)) / (2 * math.log(base))
low, high = max(math.floor(corr(fast)), 0), min(math.ceil(corr(slow)), d - 1)
if low == high: high += 0.001
ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
extrapolation_factor = 1 - ramp
pf = base ** (np.arange(0, d, 2) / d)
ref = (1 / (F * pf)) * (1 - extrapolation_factor) + (1 / pf) * extrapolation_factor
assert np.allclose(z["inv_freq"], ref, rtol=1e-14, atol=0), (z["inv_freq"], ref)
A = 0.1 * math.log(F) + 1
a = np.arange(4)[:, None] * ref[None, :]
a = np.concatenate([a, a], 1)
assert np.abs(z["cos"] - A * np.cos(a)).max() < 1e-14 and np.abs(z["sin"] - A * np.sin(a)).max() < 1e-14
assert np.allclose(z["cos"] ** 2 + z["sin"] ** 2, A * A)
# linear: inv_freq / F; dynamic with L = 20 > M = 10: base (F L / M - (F - 1))^(d / (d - 2)).
lin = np.load(f"{w}/linear.npy")
assert np.allclose(lin, 10000.0 ** -(np.arange(0, 8, 2) / 8) / 2, rtol=1e-15, atol=0)
dyn = np.load(f"{w}/dynamic.npy")
b = 10000.0 * (2 * 20 / 10 - 1) ** (8 / 6)
assert np.allclose(dyn, b ** -(np.arange(0, 8, 2) / 8), rtol=1e-13, atol=0), dyn

# rotated: pairs (x_k, x_{k+d/2}) turned by (start + i) f_k (apply_rotary_pos_emb).
def rotate(x, start):
    n, d = x.shape[-2], x.shape[-1]
    f = 10000.0 ** -(np.arange(0, d, 2) / d)
    a = (start + np.arange(n))[:, None] * f[None, :]
    c, s = np.cos(np.concatenate([a, a], 1)), np.sin(np.concatenate([a, a], 1))
    half = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], -1)
    return x * c + half * s
x = np.load(f"{w}/X.npy"); xb = np.load(f"{w}/Xb.npy")
r = np.load(f"{w}/rot.npy"); rb = np.load(f"{w}/rotb.npy")
assert r.shape == (3, 6) and rb.shape == (2, 3, 6), (r.shape, rb.shape)
assert np.abs(r - rotate(x, 7)).max() < 1e-14 and np.abs(rb - rotate(xb, 7)).max() < 1e-14
assert np.allclose(np.linalg.norm(rb, axis=-1), np.linalg.norm(xb, axis=-1))

# ALiBi: BLOOM's build_alibi_tensor slopes, written out; bias -m_h |i - j|.
def slopes(H):
    p = 2 ** math.floor(math.log2(H))
    base = 2 ** (-(2 ** -(math.log2(p) - 3)))
    m = [base ** k for k in range(1, p + 1)]
    if p != H:
        extra = 2 ** (-(2 ** -(math.log2(2 * p) - 3)))
        m += [extra ** k for k in range(1, 2 * min(p, H - p), 2)]
    return np.array(m)
z = np.load(f"{w}/alibi8.npz")
assert z["slopes"].dtype == np.float32 and np.array_equal(z["slopes"], 2.0 ** -np.arange(1, 9))
assert z["bias"].shape == (8, 5, 5), z["bias"].shape
i = np.arange(5)
ref = -slopes(8)[:, None, None] * np.abs(i[:, None] - i[None, :])[None]
assert np.array_equal(z["bias"], ref.astype(np.float32))
s12 = np.load(f"{w}/s12.npy")
# Python's powers of 2^-0.5 round twice: an ulp or so apart from attn's exact slopes.
assert s12.shape == (12,) and np.allclose(s12, slopes(12), rtol=5e-16, atol=0), s12 - slopes(12)
assert np.array_equal(s12[:8], 2.0 ** -np.arange(1, 9))
assert np.allclose(s12[8:], 2.0 ** -np.array([0.5, 1.5, 2.5, 3.5]), rtol=2.3e-16, atol=0)
j = json.load(open(f"{w}/bias3.json"))
b3 = np.array(j["bias"]["data"] if isinstance(j["bias"], dict) else j["bias"])
assert b3.shape == (3, 4, 4), b3.shape
assert np.allclose(b3, -slopes(3)[:, None, None] * np.abs(np.arange(4)[:, None] - np.arange(4))[None])

# T5: transformers' T5Attention._relative_position_bucket, written out in float64.
def bucket(r, B, D, bidirectional):
    ret = 0
    if bidirectional:
        B //= 2
        ret += B if r > 0 else 0
        r = abs(r)
    else:
        r = -min(r, 0)
    exact = B // 2
    if r < exact:
        return ret + r
    large = exact + math.log(r / exact) / math.log(D / exact) * (B - exact)
    return ret + min(int(large), B - 1), large
def check(ids, B, D, bidirectional):
    n = ids.shape[0]
    assert ids.dtype == np.dtype("<i8") and ids.shape == (n, n), (ids.dtype, ids.shape)
    checked = 0
    for q in range(n):
        for k in range(n):
            got = bucket(k - q, B, D, bidirectional)
            if isinstance(got, tuple):
                want, large = got
                if abs(large - round(large)) < 1e-5:  # float32 may round across the integer
                    assert abs(ids[q, k] - want) <= 1, (q, k, ids[q, k], want)
                    continue
            else:
                want = got
            assert ids[q, k] == want, (q, k, ids[q, k], want)
            checked += 1
    assert checked > 0.9 * n * n, checked
check(np.load(f"{w}/t5.npy"), 32, 128, True)
check(np.load(f"{w}/t5c.npz")["buckets"], 16, 64, False)

# --angles float32: the book's own P (torch, float32), to numpy's allclose.
P = np.load(f"{w}/book.npy")
book = np.load(f"{d2l}/book_P_1000x32_float32.npy")
assert P.shape == book.shape and np.allclose(P, book), np.abs(P - book).max()
print("numpy agrees")
PY
checks=$((checks + 1))

# Integers print as integers; 3-d arrays are blocks per head with a leading head column.
# B = 4: ids 0..1 for keys before or at the query, 2..3 after it; the exact range is 1.
expect_status 0 "$ATTN" encode --scheme t5 -n 3 --buckets 4 --max-distance 4 -f csv
expect_output "query,0,1,2
0,0,3,3
1,1,0,3
2,1,1,0"
expect_status 0 "$ATTN" encode --scheme t5 -n 3 --causal -f json
expect_grep '"dtype": "int64"' "$OUT"
expect_grep '\[0, 0, 0\]' "$OUT"
expect_status 0 "$ATTN" encode --scheme t5 -n 40 --precision 3 -f csv
grep -q '\.' "$OUT" && fail "t5 csv has a decimal point: $(grep -m1 '\.' "$OUT")"
expect_status 0 "$ATTN" encode --scheme alibi --heads 2 -n 3 -f csv  # slopes 2^-4, 2^-8
expect_output "head,query,0,1,2
0,0,0,-0.0625,-0.125
0,1,-0.0625,0,-0.0625
0,2,-0.125,-0.0625,0
1,0,0,-0.00390625,-0.0078125
1,1,-0.00390625,0,-0.00390625
1,2,-0.0078125,-0.00390625,0"
expect_status 0 "$ATTN" encode --scheme alibi --heads 2 -n 2 -f table
expect_grep '^ *head +query' "$OUT"
ok "$ATTN" encode --scheme alibi --heads 4 -n 6 -o "$W/bias.svg"
expect_grep 'head 3' "$W/bias.svg"

# Memory flat in n: 36e6 int64 buckets and 36e6 biases (288 MB each) under a 300 MB limit.
if [ "${ATTN_SANITIZED:-OFF}" != ON ]; then
    (ulimit -v 300000; "$ATTN" encode --scheme t5 -n 6000 -f npy >/dev/null) ||
        fail "t5 -n 6000 needed more than 300 MB"
    (ulimit -v 300000; "$ATTN" encode --scheme alibi --heads 4 -n 3000 -f npy >/dev/null) ||
        fail "alibi -n 3000 needed more than 300 MB"
    checks=$((checks + 2))
fi
expect_usage_error --positions "$ATTN" encode --scheme t5 -n 100000000000 --max-memory 1G

# --show all needs a format that holds several arrays.
expect_usage_error --format "$ATTN" encode --scheme rope --show all -f csv
expect_usage_error --show "$ATTN" encode --scheme rope --show bias
expect_usage_error --show "$ATTN" encode --scheme rope --show rotated
# error names no array: alone, or twice, it prints the scheme's default array as its error.
expect_status 0 "$ATTN" encode --scheme alibi -n 3 --heads 2 --show error
cp "$OUT" "$W/error-once"
expect_status 0 "$ATTN" encode --scheme alibi -n 3 --heads 2 --show error,error
cmp -s "$OUT" "$W/error-once" || fail "--show error,error differs from --show error"

# Refused inputs: exit 2, one line naming the option, no file left behind.
refused() {
    local option=$1
    shift
    rm -f "$W/bad.npy"
    expect_usage_error "$option" "$ATTN" encode "$@" -o "$W/bad.npy"
    [ ! -e "$W/bad.npy" ] || fail "'$*' left $W/bad.npy"
    # (a name not in an option's list is CLI11's parse error, followed by its "Try" line)
    [ "$(grep -vc "^Try 'attn" "$ERR")" -eq 1 ] ||
        fail "'$*': more than one line on stderr: $(cat "$ERR")"
}
refused --dim --scheme rope -d 7
refused --heads --scheme alibi --heads 0
refused --buckets --scheme t5 --buckets 0
refused --max-distance --scheme t5 --buckets 32 --max-distance 8
refused --max-distance --scheme t5 --buckets 32 --max-distance 16 --causal
refused --factor --scheme rope --rope-scaling linear
refused --original-max-positions --scheme rope --rope-scaling llama3 --factor 8 \
    --low-freq-factor 1 --high-freq-factor 4
refused --high-freq-factor --scheme rope --rope-scaling llama3 --factor 8 \
    --low-freq-factor 1 --original-max-positions 8192
refused --factor --scheme rope --rope-scaling yarn --factor 0 --original-max-positions 64
refused --factor --scheme rope --factor 2
refused --beta-fast --scheme rope --beta-fast 2
refused --low-freq-factor --scheme rope --rope-scaling linear --factor 2 --low-freq-factor 1
refused --apply --scheme rope --apply "$W/X.npy" -d 8
refused --apply --scheme rope --apply "$W/missing.npy"
refused --scheme --scheme hyperbolic
refused --rope-scaling --scheme rope --rope-scaling ntk
refused --heads --scheme t5 --heads 4
refused --causal --scheme alibi --causal
refused --layout --scheme alibi --layout split
refused --dim --scheme t5 -d 8
refused --apply --apply "$W/X.npy"
refused --angles --scheme alibi --angles float32
refused --columns --scheme rope --columns 0:2
head -c 100 "$W/X.npy" >"$W/cut.npy"
refused --apply --scheme rope --apply "$W/cut.npy"

finish
