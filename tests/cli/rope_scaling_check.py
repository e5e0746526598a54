"""Checks encode --model's RoPE arrays against values computed here with mpmath at 200 bits
from transformers' formulas (modeling_rope_utils.py: _compute_yarn_parameters with get_mscale,
_compute_longrope_parameters): inv_freq, angles, cos and sin within 1 ulp of the exact values.

usage: rope_scaling_check.py ARRAYS.npz JSON  where JSON gives d, base, start, n, type and the
type's keys (factor, original, attention_factor, mscale, mscale_all_dim, beta_fast, beta_slow,
truncate, short_factor, long_factor)."""
import json
import sys

import mpmath
import numpy as np

mpmath.mp.prec = 200


def ulps(got, exact):
    """Distance of the double got from the exact value, in ulps of the exact value's binade."""
    x = mpmath.mpf(exact)
    if x == 0:
        return 0 if got == 0 else float("inf")
    _, e = mpmath.frexp(abs(x))  # |x| = m 2^e, m in [0.5, 1)
    return float(abs(mpmath.mpf(float(got)) - x) / mpmath.ldexp(1, int(e) - 53))


def get_mscale(s, m):
    return mpmath.mpf(1) if s <= 1 else m * mpmath.log(s) / 10 + 1


def exact(p):
    d, base, h = p["d"], mpmath.mpf(p["base"]), p["d"] // 2
    f = [mpmath.power(base, mpmath.mpf(-2 * j) / d) for j in range(h)]
    F, M = mpmath.mpf(p["factor"]), mpmath.mpf(p["original"])
    if p["type"] == "longrope":
        e = p["long_factor"] if p["start"] + p["n"] > p["original"] else p["short_factor"]
        inv = [f[j] / mpmath.mpf(e[j]) for j in range(h)]
        A = p.get("attention_factor")
        A = mpmath.mpf(A) if A is not None else (
            1 if F <= 1 else mpmath.sqrt(1 + mpmath.log(F) / mpmath.log(M)))
        return inv, mpmath.mpf(A)
    pi = mpmath.pi
    corr = lambda beta: d * mpmath.log(M / (2 * pi * beta)) / (2 * mpmath.log(base))
    low, high = corr(p.get("beta_fast") or 32), corr(p.get("beta_slow") or 1)
    if p.get("truncate", True):
        low, high = mpmath.floor(low), mpmath.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high = mpmath.mpf(float(high) + 0.001)
    inv = []
    for j in range(h):
        ramp = min(max((j - low) / (high - low), 0), 1)
        inv.append(f[j] / F * ramp + f[j] * (1 - ramp))
    if p.get("attention_factor") is not None:
        A = mpmath.mpf(p["attention_factor"])
    elif p.get("mscale") and p.get("mscale_all_dim"):
        A = get_mscale(F, mpmath.mpf(p["mscale"])) / get_mscale(F, mpmath.mpf(p["mscale_all_dim"]))
    else:
        A = get_mscale(F, 1)
    return inv, A


def main():
    arrays = np.load(sys.argv[1])
    p = json.loads(sys.argv[2])
    inv, A = exact(p)
    d, h, start, n = p["d"], p["d"] // 2, p["start"], p["n"]
    worst = 0.0
    got = arrays["inv_freq"]
    assert got.shape == (h,), "inv_freq shape %s, want (%d,)" % (got.shape, h)
    for j in range(h):
        worst = max(worst, ulps(got[j], inv[j]))
    cos, sin, ang = arrays["cos"], arrays["sin"], arrays["angles"]
    assert cos.shape == (n, d) and sin.shape == (n, d) and ang.shape == (n, h)
    for i in range(n):
        for j in range(h):
            a = (start + i) * inv[j]
            c, s = A * mpmath.cos(a), A * mpmath.sin(a)
            worst = max(worst, ulps(ang[i, j], a), ulps(cos[i, j], c), ulps(cos[i, j + h], c),
                        ulps(sin[i, j], s), ulps(sin[i, j + h], s))
    if worst > 1:
        raise SystemExit("%s: %.2f ulps from the exact values" % (sys.argv[1], worst))
    print("%s: worst %.3f ulps, A = %s" % (sys.argv[1].rsplit("/", 1)[-1], worst,
                                            mpmath.nstr(A, 17)))


main()
