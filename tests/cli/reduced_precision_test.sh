# --dtype bfloat16|float16 and --angles bfloat16|float16: every value the exact value rounded
# once to nearest even (reduced_precision_check.py: mpmath and exact fractions), the angles
# PyTorch's product in that dtype bit for bit (tests/data/reduced), --show error, the text
# formats, float16 input, and rotate in the dtype.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
"$PYTHON" -c 'import mpmath' || fail "/usr/bin/python3 has no mpmath (apt-get install python3-mpmath)"
HERE=$(dirname "$0")
DATA=$ATTN_TEST_DATA/reduced

# X (40, 16): rows 0-9 put X + P within 1e-16 of a bfloat16 midpoint t, rows 10-19 at t + 2^-30
# (float64 -> float32 -> bfloat16 rounds these twice, to the wrong side half the time), rows
# 20-29 are -P (signed zeros), rows 30-39 large (float16 overflows to inf past 65504).
"$PYTHON" - "$WORK" <<'PY' || fail "making X"
import sys, numpy as np
rng = np.random.default_rng(5)
i = np.arange(40)[:, None]
w = 10000.0 ** (-2 * (np.arange(16) // 2) / 16)
P = np.where(np.arange(16) % 2 == 0, np.sin(i * w), np.cos(i * w))
t = 1 + (2 * rng.integers(0, 128, size=(40, 16)) + 1) * 2.0**-8
X = t - P
X[10:20] += 2.0**-30
X[20:30] = -P[20:30]
X[30:40] = rng.normal(size=(10, 16)) * 1000
X[30:40, 0], X[30:40, 1] = 70000.0, -70000.0
np.save(f"{sys.argv[1]}/X.npy", X)
PY
for t in bfloat16 float16; do
    ok() { "$@" || fail "$*"; }
    ok "$ATTN" encode -n 40 -d 16 --dtype $t -o "$WORK/P_$t.npz"
    ok "$ATTN" encode --add "$WORK/X.npy" --dtype $t -o "$WORK/XP_$t.npz"
    ok "$ATTN" encode -n 30 -d 7 --start 1000000 --layout split --dtype $t -o "$WORK/Pbig_$t.npz"
    ok "$ATTN" encode --scheme rope -n 12 -d 128 --base 500000 --start 131000 --rope-scaling llama3 \
        --factor 8 --low-freq-factor 1 --high-freq-factor 4 --original-max-positions 8192 \
        --show inv_freq,angles,cos,sin --dtype $t -o "$WORK/llama_$t.npz"
    ok "$ATTN" encode --scheme rope --base 1e9 -d 16 --apply "$WORK/X.npy" --show all --dtype $t \
        -o "$WORK/tiny_$t.npz"
    ok "$ATTN" encode --scheme rope --rope-scaling linear --factor 4 -n 6 -d 8 --start 65500 \
        --show all --dtype $t -o "$WORK/linear_$t.npz"
    ok "$ATTN" encode --scheme alibi --heads 12 -n 300 --show all --dtype $t -o "$WORK/alibi_$t.npz"
    # --angles in the dtype: Llama 3.1 at 0 and 131000, the default RoPE at 1000.
    llama="--scheme rope -d 128 --base 500000 --rope-scaling llama3 --factor 8 --low-freq-factor 1
           --high-freq-factor 4 --original-max-positions 8192 -n 40 --show inv_freq,angles"
    ok "$ATTN" encode $llama --start 0 --angles $t -o "$WORK/llama31_0_$t.npz"
    ok "$ATTN" encode $llama --start 131000 --angles $t -o "$WORK/llama31_131000_$t.npz"
    ok "$ATTN" encode --scheme rope -d 64 -n 40 --start 1000 --show inv_freq,angles,cos,sin \
        --angles $t -o "$WORK/default_1000_$t.npz"
done
"$PYTHON" "$HERE/reduced_precision_check.py" "$WORK" "$DATA" || fail "exact rounding"
checks=$((checks + 1))

"$PYTHON" - "$WORK" "$DATA" <<'PY' || fail "--angles against PyTorch"
import sys, numpy as np
work, data = sys.argv[1], sys.argv[2]
ref = np.load(f"{data}/torch_angles.npz")
for name in ("llama31_0", "llama31_131000", "default_1000"):
    for t in ("bfloat16", "float16"):
        z = np.load(f"{work}/{name}_{t}.npz")
        a = z["angles"]
        assert a.dtype == (np.float16 if t == "float16" else np.float32), a.dtype
        want = ref[f"{name}_{t}"]
        got32 = a.astype(np.float32)
        same = (got32.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got32) & np.isnan(want))
        assert same.all(), (name, t, np.flatnonzero(~same.ravel())[:5])
        assert (z["inv_freq"].astype(np.float32) == ref[f"{name}_{t}_inv_freq"]).all(), (name, t)
# float16 positions above 65504 are inf: so are the angles, and cos/sin are NaN.
assert np.isinf(np.load(f"{work}/llama31_131000_float16.npz")["angles"]).all()
c = np.load(f"{work}/default_1000_bfloat16.npz")
# bfloat16 holds 1000 as 1000 (a multiple of 8) but the product is rounded: cos of that angle.
print("angles equal PyTorch's bit for bit")
PY
checks=$((checks + 1))

# Text formats: the shortest text that reads back to the same value of the dtype.
run "$ATTN" encode -n 3 -d 2 --dtype bfloat16 -f csv
expect_output "position,0,1
0,0,1
1,0.84,0.54
2,0.91,-0.416"
run "$ATTN" encode -n 3 -d 2 --dtype float16 -f csv
expect_output "position,0,1
0,0,1
1,0.8413,0.5405
2,0.909,-0.4163"
run "$ATTN" encode --scheme rope -n 2 -d 4 --dtype bfloat16 --show inv_freq -f json
grep -q '"dtype": "bfloat16"' "$OUT" && grep -q '"data": \[1, 0.01\]' "$OUT" ||
    fail "json of bfloat16 inv_freq: $(cat "$OUT")"
checks=$((checks + 1))
run "$ATTN" encode -n 3 -d 2 --dtype bfloat16 -f table
head -1 "$OUT" | grep -q "bfloat16" || fail "table header does not say bfloat16: $(head -1 "$OUT")"
checks=$((checks + 1))

# --show error: value minus the exact value, float64; zero for float64 to within 1e-16.
"$ATTN" encode -n 50 -d 8 --dtype bfloat16 --show error -o "$WORK/err.npy" || fail "--show error"
"$ATTN" encode -n 50 -d 8 --dtype bfloat16 -o "$WORK/v.npy"
"$ATTN" encode -n 50 -d 8 --dtype float64 -o "$WORK/x.npy"
"$ATTN" encode -n 50 -d 8 --dtype float64 --show error -o "$WORK/e64.npy"
"$ATTN" encode --scheme rope -n 50 -d 8 --angles float16 --show cos,sin,error -o "$WORK/re.npz"
"$PYTHON" - "$WORK" <<'PY' || fail "--show error values"
import sys, numpy as np
w = sys.argv[1]
e, v, x = np.load(f"{w}/err.npy"), np.load(f"{w}/v.npy"), np.load(f"{w}/x.npy")
assert e.dtype == np.float64 and np.abs(e - (v.astype(np.float64) - x)).max() < 1e-15
assert np.abs(e).max() <= 2.0**-9 and np.abs(e).max() > 2.0**-12  # half a bfloat16 ulp of 1
e64 = np.load(f"{w}/e64.npy")
assert np.abs(e64).max() <= 2.0**-53 and np.abs(e64).max() > 0
z = np.load(f"{w}/re.npz")
assert sorted(z.files) == ["cos_error", "sin_error"], z.files
assert np.abs(z["cos_error"]).max() > 1e-3  # angles in float16 at positions up to 49
PY
checks=$((checks + 1))

# Integer buckets are not rounded, and their error is 0.
for t in bfloat16 float64; do
    run "$ATTN" encode --scheme t5 -n 40 --dtype $t --show buckets,error -f csv --no-header
    [ "$STATUS" = 0 ] && [ "$(cut -d, -f2- "$OUT" | tr ',\n' '\n\n' | sort -u)" = 0 ] ||
        fail "t5 --show error --dtype $t: $(head -c 300 "$OUT" "$ERR")"
    run "$ATTN" encode --scheme t5 -n 40 --dtype $t -f csv
    grep -q "^39,.*,0$" "$OUT" && grep -q "^0,0,17," "$OUT" || fail "t5 buckets --dtype $t: $(head -3 "$OUT")"
    checks=$((checks + 2))
done

# float16 .npy input, widened exactly, for --add and --apply.
"$PYTHON" -c "
import numpy as np; np.save('$WORK/h.npy', np.array([[1.5, -2**-24], [65504, 0.1]], np.float16))"
"$ATTN" encode --add "$WORK/h.npy" --dtype float64 -o "$WORK/hp.npy" || fail "--add float16"
"$PYTHON" - "$WORK" <<'PY' || fail "--add float16 values"
import sys, numpy as np
w = sys.argv[1]
h, hp = np.load(f"{w}/h.npy").astype(np.float64), np.load(f"{w}/hp.npy")
P = np.array([[0, 1], [np.sin(1), np.cos(1)]])
assert hp.dtype == np.float64 and np.abs(hp - (h + P)).max() < 1e-11, hp
PY
run "$ATTN" encode --scheme rope --apply "$WORK/h.npy" -f csv --dtype float64
[ "$STATUS" = 0 ] && grep -q "^0,1.5,-5.960464477539063e-08$" "$OUT" ||
    fail "--apply float16: $(cat "$OUT" "$ERR")"
checks=$((checks + 1))

# Refusals: the other reduced dtype with --angles, a reduced dtype elsewhere.
expect_usage_error --dtype "$ATTN" encode --angles bfloat16 --dtype float16
expect_usage_error --dtype "$ATTN" bits --dtype bfloat16
expect_usage_error --dtype "$ATTN" complexity --dtype float16

# rotate in the dtype: the residual's scale (bfloat16 ~ 2^-8, float16 ~ 2^-11) and the sweep's
# columns; float16 past 65504 is inf.
run "$ATTN" rotate -n 200 -d 16 --offset 1 --dtype bfloat16 --show summary -f csv
[ "$STATUS" = 0 ] || fail "rotate bfloat16: $(cat "$ERR")"
"$ATTN" rotate -n 50 -d 16 --positions-up-to 1e5 --dtype float16 -o "$WORK/sweep.csv" 2>"$ERR"
[ $? = 3 ] || fail "the float16 sweep to 1e5 passes, but its positions overflow"
head -1 "$WORK/sweep.csv" | grep -q "float16_max_error,float16_at_i,float16_tol,float16_ratio$" ||
    fail "sweep columns: $(head -1 "$WORK/sweep.csv")"
tail -1 "$WORK/sweep.csv" | grep -q "^100000,.*,inf,100000,.*,inf$" ||
    fail "float16 at 1e5: $(tail -1 "$WORK/sweep.csv")"
checks=$((checks + 3))
# rotate --show error: M_delta as used minus the exact M_delta.
"$ATTN" rotate -n 100 -d 16 --offset 1,7 --dtype bfloat16 --show error -o "$WORK/Mb.npy" ||
    fail "rotate --show error bfloat16"
"$ATTN" rotate -n 100 -d 16 --offset 1,7 --dtype float64 --show error -o "$WORK/M64.npy" ||
    fail "rotate --show error float64"
"$PYTHON" - "$WORK" <<'PY' || fail "rotate --show error values"
import sys, numpy as np
w = sys.argv[1]
b, f = np.load(f"{w}/Mb.npy"), np.load(f"{w}/M64.npy")
assert b.shape == (2, 16, 16) and b.dtype == np.float64, (b.shape, b.dtype)
assert 1e-4 < np.abs(b).max() < 2.0**-6, np.abs(b).max()
assert np.abs(f).max() < 1e-15, np.abs(f).max()
PY
checks=$((checks + 1))
finish
