"""Checks attn's bfloat16 and float16 arrays against an independent rounding of exact values.

Usage: reduced_precision_check.py WORK DATA
WORK holds the .npz files reduced_precision_test.sh wrote with attn, and X.npy (its --add and
--apply input). Exact values are computed here with mpmath at 200 bits from the closed forms
(not from attn), then rounded to nearest even with exact rational arithmetic (fractions): the
rounding and the exact values are both independent of attn's. Every value must match bit for
bit, signed zeros and inf included.
"""
import sys
from fractions import Fraction

import mpmath
import numpy as np

mpmath.mp.prec = 200
work, data = sys.argv[1], sys.argv[2]

# format: (significand bits with the leading one, exponent of the smallest normal, largest)
FORMATS = {
    "bfloat16": (8, -126, Fraction(255 * 2**120)),
    "float16": (11, -14, Fraction(65504)),
}


def exact_fraction(x):
    """An mpf (binary, finite) or float as an exact Fraction."""
    sign, man, exp, _ = mpmath.mpf(x)._mpf_  # man is unsigned; (sign, 0, 0, 0) is zero
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)


def rne(x, fmt):
    """x (mpf) rounded once to nearest even in fmt, as a Python float (exact)."""
    p, emin, largest = FORMATS[fmt]
    if mpmath.isnan(x):
        return float("nan")
    f = exact_fraction(x)
    if f == 0:
        return 0.0
    sign = -1.0 if f < 0 else 1.0
    a = abs(f)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # floor(log2 a) or one more
    if Fraction(2) ** e > a:
        e -= 1
    q = Fraction(2) ** (max(e, emin) - (p - 1))
    n = round(a / q)  # Fraction.__round__: half to even
    v = n * q
    if v > largest:
        return sign * float("inf")
    return sign * float(v)


def compare(name, got, want, fmt):
    want = np.array(want, dtype=np.float64).reshape(got.shape)
    if fmt == "float16":
        assert got.dtype == np.float16, (name, got.dtype)
        w = want.astype(np.float16)  # exact: want holds float16 values
    else:
        assert got.dtype == np.float32, (name, got.dtype)
        w = want.astype(np.float32)
    g_bits = got.view(np.uint16 if fmt == "float16" else np.uint32)
    w_bits = w.view(g_bits.dtype)
    bad = np.flatnonzero(g_bits.ravel() != w_bits.ravel())
    assert bad.size == 0, f"{name} {fmt}: {bad.size} values differ, first at {bad[0]}: got " \
        f"{got.ravel()[bad[0]]!r}, want {w.ravel()[bad[0]]!r}"
    return got.size


def sinusoidal(n, d, start, base, layout):
    """P (n, d) exact: sin/cos(i base^(-2j/d)), interleaved or split, odd d ends with a sine."""
    sines = (d + 1) // 2
    out = []
    for r in range(n):
        i = start + r
        row = []
        for c in range(d):
            if layout == "interleaved":
                j, sine = c // 2, c % 2 == 0
            else:
                j, sine = (c, True) if c < sines else (c - sines, False)
            a = i * mpmath.power(base, mpmath.mpf(-2 * j) / d)
            row.append(mpmath.sin(a) if sine else mpmath.cos(a))
        out.append(row)
    return out


def rope_inv_freq(d, base, scaling=None):
    """Hugging Face's inv_freq, exactly: default, linear or llama3."""
    inv = [mpmath.power(base, mpmath.mpf(-2 * j) / d) for j in range(d // 2)]
    if scaling is None:
        return inv
    if scaling[0] == "linear":
        return [f / scaling[1] for f in inv]
    _, factor, low, high, original = scaling
    out = []
    for f in inv:
        wavelength = 2 * mpmath.pi / f
        if wavelength < mpmath.mpf(original) / high:
            out.append(f)
        elif wavelength > mpmath.mpf(original) / low:
            out.append(f / factor)
        else:
            s = (mpmath.mpf(original) / wavelength - low) / (high - low)
            out.append((1 - s) * f / factor + s * f)
    return out


def rope_arrays(n, d, start, base, scaling, x):
    """inv_freq, angles, cos, sin (split layout) and X rotated, exactly."""
    inv = rope_inv_freq(d, base, scaling)
    h = d // 2
    angles = [[(start + i) * f for f in inv] for i in range(n)]
    cos = [[mpmath.cos(row[c % h]) for c in range(d)] for row in angles]
    sin = [[mpmath.sin(row[c % h]) for c in range(d)] for row in angles]
    rotated = []
    for i in range(n):
        xr = [mpmath.mpf(float(v)) for v in x[i]]
        rotated.append([xr[c] * cos[i][c] - xr[c + h] * sin[i][c] if c < h
                        else xr[c] * cos[i][c] + xr[c - h] * sin[i][c] for c in range(d)])
    return {"inv_freq": inv, "angles": angles, "cos": cos, "sin": sin, "rotated": rotated}


def alibi(heads, n):
    """BLOOM's slopes for any H and the bias -m_h |i - j| (+0 on the diagonal)."""
    p = 1 << (heads.bit_length() - 1)
    slopes = [mpmath.power(2, mpmath.mpf(-8 * h) / p) for h in range(1, p + 1)]
    slopes += [mpmath.power(2, mpmath.mpf(-4 * (2 * k + 1)) / p) for k in range(heads - p)]
    # bias[h, i, j] depends on |i - j| only: its n values per head, then looked up.
    return slopes, [[-m * k if k else mpmath.mpf(0) for k in range(n)] for m in slopes]


def rounded(values, fmt):
    return np.array([[rne(v, fmt) for v in row] if isinstance(row, list) else rne(row, fmt)
                     for row in values], dtype=np.float64)


def rounded_bias(by_distance, fmt, n):
    r = np.array([[rne(v, fmt) for v in row] for row in by_distance])  # (H, n)
    k = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    return r[:, k]


checked = 0
X = np.load(f"{work}/X.npy")  # (n, 16) float64: the --add and --apply input
P = sinusoidal(40, 16, 0, 10000, "interleaved")
XP = [[mpmath.mpf(float(X[i, c])) + P[i][c] for c in range(16)] for i in range(40)]
Pbig = sinusoidal(30, 7, 1000000, 10000, "split")
llama = rope_arrays(12, 128, 131000, 500000,
                    ("llama3", 8, 1, 4, 8192), np.zeros((12, 128)))
tiny = rope_arrays(40, 16, 0, 1e9, None, X)
linear = rope_arrays(6, 8, 65500, 10000, ("linear", 4), np.zeros((6, 8)))
slopes, bias = alibi(12, 300)
for fmt in ("bfloat16", "float16"):
    z = np.load(f"{work}/P_{fmt}.npz")
    checked += compare("P", z["P"], rounded(P, fmt), fmt)
    z = np.load(f"{work}/XP_{fmt}.npz")
    checked += compare("X_plus_P", z["X_plus_P"], rounded(XP, fmt), fmt)
    z = np.load(f"{work}/Pbig_{fmt}.npz")
    checked += compare("P split odd d at 1e6", z["P"], rounded(Pbig, fmt), fmt)
    for label, arrays in (("llama", llama), ("tiny", tiny), ("linear", linear)):
        z = np.load(f"{work}/{label}_{fmt}.npz")
        for name in z.files:
            want = arrays[name]
            checked += compare(f"{label} {name}", z[name],
                               [rne(v, fmt) for v in want] if name == "inv_freq"
                               else rounded(want, fmt), fmt)
    z = np.load(f"{work}/alibi_{fmt}.npz")
    checked += compare("slopes", z["slopes"], [rne(v, fmt) for v in slopes], fmt)
    checked += compare("bias", z["bias"], rounded_bias(bias, fmt, 300), fmt)

# The cases that need the exact value, seen in the data: X + P lands within 1e-16 of a
# midpoint (rows 0..9 of X are t - P), and float64 -> float32 -> bfloat16 rounds some values
# twice (rows 10..19 of X are t - P + 2^-30).
z = np.load(f"{work}/XP_bfloat16.npz")["X_plus_P"].astype(np.float64)
exact_xp = np.array([[float(v) for v in row] for row in XP])
twice = exact_xp.astype(np.float32).view(np.uint32)
twice = ((twice + 0x7FFF + ((twice >> 16) & 1)) & 0xFFFF0000).view(np.float32)
assert (twice[10:20] != z[10:20]).sum() >= 10, "the test data has no double-rounding case"

# float16 corner cases in the data: subnormal inv_freq and angles (base 1e9), overflow to inf
# (X rows with 70000), signed zeros (X = -P: the exact sum is +-1e-17, rounding to +-0).
z = np.load(f"{work}/tiny_float16.npz")
sub = np.abs(z["inv_freq"].astype(np.float64))
assert ((sub > 0) & (sub < 2.0**-14)).any(), "no float16 subnormal in the data"
z = np.load(f"{work}/XP_float16.npz")["X_plus_P"]
assert np.isinf(z).any() and (np.signbit(z) & (z == 0)).any() and ((~np.signbit(z)) & (z == 0)).any()
print(f"{checked} bfloat16 and float16 values equal the exact values rounded to nearest even")
