"""Makes torch_angles.npz: RoPE angles computed by PyTorch in bfloat16 and float16.

Run once with PyTorch 1.13 and mpmath: /usr/bin/python3 tests/data/reduced/make_angles.py
The test (tests/cli/reduced_precision_test.sh) compares attn encode --scheme rope
--angles bfloat16|float16 --show angles with these arrays bit for bit.

The recipe of framework code that holds positions and inv_freq in the model's dtype
(GPT-NeoX's and early Llama ports' rotary embedding):
    t = torch.arange(start, start + n).to(dtype); freqs = torch.einsum("i,j->ij", t, inv_freq)
inv_freq in the dtype is the exact inv_freq (mpmath, 200 bits) rounded once to nearest even
(torch's own float64 -> bfloat16 conversion goes through float32, so it is not used). Values
are stored as float32, which holds every bfloat16 and float16 value exactly.
"""
import os
from fractions import Fraction

import mpmath
import numpy as np
import torch

mpmath.mp.prec = 200
FORMATS = {"bfloat16": (8, -126, Fraction(255 * 2**120)), "float16": (11, -14, Fraction(65504))}
DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def rne(x, fmt):
    p, emin, largest = FORMATS[fmt]
    sign, man, exp, _ = mpmath.mpf(x)._mpf_  # man is unsigned
    f = (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)
    if f == 0:
        return 0.0
    a = abs(f)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    q = Fraction(2) ** (max(e, emin) - (p - 1))
    v = round(a / q) * q
    return (-1 if f < 0 else 1) * (float("inf") if v > largest else float(v))


def inv_freq(d, base, llama3=None):
    inv = [mpmath.power(base, mpmath.mpf(-2 * j) / d) for j in range(d // 2)]
    if llama3 is None:
        return inv
    factor, low, high, original = llama3
    out = []
    for f in inv:
        w = 2 * mpmath.pi / f
        if w < mpmath.mpf(original) / high:
            out.append(f)
        elif w > mpmath.mpf(original) / low:
            out.append(f / factor)
        else:
            s = (mpmath.mpf(original) / w - low) / (high - low)
            out.append((1 - s) * f / factor + s * f)
    return out


CONFIGS = {
    # name: (d, base, llama3 scaling or None, start, n)
    "llama31_0": (128, 500000, (8, 1, 4, 8192), 0, 40),
    "llama31_131000": (128, 500000, (8, 1, 4, 8192), 131000, 40),
    "default_1000": (64, 10000, None, 1000, 40),
}

arrays = {}
for name, (d, base, llama3, start, n) in CONFIGS.items():
    exact = inv_freq(d, base, llama3)
    for fmt, dtype in DTYPES.items():
        inv = torch.tensor([rne(f, fmt) for f in exact], dtype=torch.float64).to(dtype)
        assert (inv.double() == torch.tensor([rne(f, fmt) for f in exact],
                                             dtype=torch.float64)).all()
        t = torch.arange(start, start + n, dtype=torch.float32).to(dtype)
        freqs = torch.einsum("i,j->ij", t, inv)
        assert freqs.dtype == dtype
        same = (freqs.float() == (t[:, None] * inv[None, :]).float()) | torch.isnan(freqs.float())
        assert same.all(), "einsum and the elementwise product differ"
        arrays[f"{name}_{fmt}"] = freqs.float().numpy()
        arrays[f"{name}_{fmt}_inv_freq"] = inv.float().numpy()

np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_angles.npz"), **arrays)
print(torch.__version__, sorted(arrays))
