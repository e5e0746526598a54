# attn encode's npy/npz read by numpy itself; X + P; memory that does not grow with n.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

D2L=$ATTN_TEST_DATA/d2l
"$ATTN" encode -n 60 -d 32 -o "$WORK/P.npy" || fail "encode -o P.npy"
"$ATTN" encode -n 60 -d 32 --dtype float64 -f npy >"$WORK/P64.npy" || fail "encode -f npy to a pipe"
"$ATTN" bits -n 8 -d 8 -o "$WORK/bits.npz" || fail "bits -o bits.npz"
"$ATTN" encode -n 7 -d 5 -f npy | "$ATTN" encode --add - -f npy >"$WORK/XP.npy" || fail "--add -"
"$ATTN" encode -n 7 -d 5 --layout split --columns -3: -o "$WORK/split.npy" || fail "split"
"$PYTHON" - "$WORK" "$D2L" <<'PY' || fail "numpy checks"
import sys, numpy as np
work, d2l = sys.argv[1], sys.argv[2]
exact = np.load(f"{d2l}/exact_P_60x32_float64.npy")
P = np.load(f"{work}/P.npy")
assert P.dtype == np.float32 and P.shape == (60, 32) and P.flags.c_contiguous, (P.dtype, P.shape)
# float32: within 1 ulp of the correctly rounded exact value.
ulp = np.abs(P.view(np.int32).astype(np.int64) - exact.astype(np.float32).view(np.int32).astype(np.int64))
assert ulp.max() <= 1, ulp.max()
P64 = np.load(f"{work}/P64.npy")
assert P64.dtype == np.float64 and np.abs(P64 - exact).max() < 1e-14
z = np.load(f"{work}/bits.npz")
assert sorted(z.files) == ["bits", "periods"], z.files
assert (z["bits"] == np.array([[int(c) for c in f"{i:03b}"] for i in range(8)])).all()
assert np.allclose(z["periods"][:, 1], 2 * np.pi * 10000.0 ** (2 * np.arange(4) / 8), rtol=1e-6)
XP = np.load(f"{work}/XP.npy")
x = np.arange(7)[:, None] / 10000.0 ** (2 * (np.arange(5) // 2) / 5)
ref = np.where(np.arange(5) % 2 == 0, np.sin(x), np.cos(x))
assert np.abs(XP - 2 * ref).max() < 1e-6, np.abs(XP - 2 * ref).max()
S = np.load(f"{work}/split.npy")
# split d = 5: [s0 s1 s2 c0 c1]; columns -3: are s2 c0 c1.
assert np.abs(S - np.stack([np.sin(x[:, 4]), np.cos(x[:, 0]), np.cos(x[:, 2])], 1)).max() < 1e-6
print("numpy agrees")
PY
checks=$((checks + 1))

# X must match -n/-d when they are given; a non-npy file is refused by name.
"$ATTN" encode -n 7 -d 5 -o "$WORK/X.npy"
expect_usage_error --add "$ATTN" encode --add "$WORK/X.npy" -n 8
expect_usage_error --add "$ATTN" encode --add /etc/hostname
# A missing input file is a runtime error (exit 1) in every subcommand, as attend --input.
expect_status 1 "$ATTN" encode --add "$WORK/missing.npy"
head -c 100 "$WORK/X.npy" >"$WORK/cut.npy"
expect_usage_error --add "$ATTN" encode --add "$WORK/cut.npy"

# Memory does not grow with n: 3e6 x 128 values (3 GB as float64) under a 300 MB limit.
# (AddressSanitizer reserves terabytes of address space: that build cannot run under a limit.)
if [ "${ATTN_SANITIZED:-OFF}" != ON ]; then
    (ulimit -v 300000; "$ATTN" encode -n 3000000 -d 128 -f npy >/dev/null) ||
        fail "encode -n 3e6 needed more than 300 MB"
    checks=$((checks + 1))
fi
finish
