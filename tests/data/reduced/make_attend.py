"""Makes attend_<case>_<dtype>.npz: attn attend's random model computed by PyTorch in bfloat16
and float16, the reference of `attn attend --dtype bfloat16|float16` (tests/cli/reduced_attend_test.sh).

Run once: cd tests/data/reduced && /usr/bin/python3 make_attend.py   (PyTorch 1.13, numpy)

The model is drawn in float32 as attn draws it (the notebook's nn.Embedding(50000, 3) after
torch.manual_seed(123), seeded again before W; torch.rand(d_in, d) per projection, head 0's
W_q W_k W_v first, each followed by its bias with --bias; W_o last) and then cast to the dtype,
as x.to(dtype) and model.to(dtype) do. Every op's result is rounded to the dtype, each op
computed in float32 on values of the dtype, as PyTorch 1.13's CPU kernels compute bfloat16:
  x = x + fl(P)                                 sinusoidal (P exact, rounded to float32 first)
  q = x W_q + b_q                               addmm: float32 sums, one rounding
  q = q cos + rotate_half(q) sin                cos, sin float32 (from float64), then fl
  omega = q k^T;  scaled = omega / sqrt(d_k) (+ alibi's -m |i - j|)
  weights = softmax(scaled masked with -inf, or with --mask-value);  context = weights v
  output = [contexts] W_o + b_o
A Python scalar in an op with a bfloat16 tensor is itself rounded to bfloat16 (torch 1.13).

bfloat16: the chain runs twice, in PyTorch's own bfloat16 ops and emulated (float32 ops, each
result rounded with .to(dtype)); the script asserts both agree bit for bit, and stores them.
float16: PyTorch 1.13 has no float16 CPU kernels (matmul, softmax: "not implemented for
'Half'"), so the float16 files come from the emulation alone: the same ops in float32, each
result rounded once to float16, which is what float16 kernels computing in float32 give.

Each file holds the arrays attn shows (names of attend --show, shapes as attn writes them),
stored as float32 (every bfloat16 and float16 value exactly), and `args`: the command line
after `attn attend` (the check adds --dtype, --show and -o).
"""
import math

import numpy as np
import torch

SENTENCE = "Life is short, eat dessert first"
DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}

CASES = {
    # the notebook: one head, d_q 2, d_v 4
    "notebook": dict(sentence=SENTENCE),
    # two heads, rope on q and k, causal, biases, the output projection
    "rope_causal_bias": dict(sentence=SENTENCE, heads=2, dq=4, dv=3, scheme="rope", causal=True,
                             bias=True, out_proj=True),
    # four heads with ALiBi, a valid length and the book's fill
    "alibi_valid": dict(sentence=SENTENCE, heads=4, dq=2, dv=2, scheme="alibi", valid_len=4,
                        fill=-1e6),
    # sinusoidal P added to a wider embedding
    "sinusoidal": dict(sentence=SENTENCE, embed_dim=8, dq=4, dv=4, scheme="sinusoidal"),
    # 24 rows of attend_input.npy (24 x 16), rope, causal, two heads, W_o
    "input_rope": dict(input="attend_input.npy", heads=2, dq=8, dv=8, scheme="rope", causal=True,
                       out_proj=True),
}


def args_of(c):
    a = [c["sentence"]] if "sentence" in c else ["--input", c["input"]]
    if "embed_dim" in c:
        a += ["--embed-dim", str(c["embed_dim"])]
    for key, opt in (("heads", "--heads"), ("dq", "--dq"), ("dv", "--dv"), ("scheme", "--scheme"),
                     ("valid_len", "--valid-len"), ("fill", "--mask-value")):
        if key in c:
            a += [opt, str(c[key])]
    for key, opt in (("causal", "--causal"), ("bias", "--bias"), ("out_proj", "--out-proj")):
        if c.get(key):
            a.append(opt)
    return a


def model(c):
    """x (n, d_in) float32 and the drawn parameters, as attn draws them."""
    if "sentence" in c:
        words = c["sentence"].replace(",", "").split()
        dc = {s: i for i, s in enumerate(sorted(words))}
        torch.manual_seed(123)
        embed = torch.nn.Embedding(50000, c.get("embed_dim", 3))
        x = embed(torch.tensor([dc[s] for s in words])).detach()
    else:
        x = torch.from_numpy(np.load(c["input"]))
    torch.manual_seed(123)
    d_in, H, dq, dv = x.shape[1], c.get("heads", 1), c.get("dq", 2), c.get("dv", 4)
    heads = []
    for _ in range(H):
        h = {}
        for name, d in (("q", dq), ("k", dq), ("v", dv)):
            h["W" + name] = torch.rand(d_in, d)
            h["b" + name] = torch.rand(d) if c.get("bias") else None
        heads.append(h)
    Wo = bo = None
    if c.get("out_proj"):
        Wo = torch.rand(H * dv, H * dv)
        bo = torch.rand(H * dv) if c.get("bias") else None
    return x, heads, Wo, bo


def sinusoidal(n, d):
    i = np.arange(n)[:, None]
    w = 10000.0 ** (-2 * (np.arange(d) // 2) / d)
    return torch.from_numpy(np.where(np.arange(d) % 2 == 0, np.sin(i * w), np.cos(i * w)).astype(np.float32))


def rope_cos_sin(n, d):
    """(n, d) cos and sin of Hugging Face's split layout, float64 angles, rounded to float32."""
    inv = 10000.0 ** (-np.arange(0, d, 2) / d)
    a = np.arange(n)[:, None] * inv[None, :]
    a = np.concatenate([a, a], axis=1)
    return torch.from_numpy(np.cos(a).astype(np.float32)), torch.from_numpy(np.sin(a).astype(np.float32))


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Native:
    """PyTorch's own ops on tensors of the dtype; with f32_sums, matrix products accumulate in
    float32 (PyTorch 1.13's bfloat16 gemm does so through oneDNN for large products only: below
    its size threshold it rounds the sum to bfloat16 after every term)."""

    def __init__(self, dt, f32_sums=True):
        self.dt, self.f32_sums = dt, f32_sums

    def mm(self, a, b, bias=None):
        if not self.f32_sums:
            return a @ b if bias is None else torch.addmm(bias, a, b)
        y = a.float() @ b.float() if bias is None else torch.addmm(bias.float(), a.float(), b.float())
        return y.to(self.dt)

    def t(self, x):  # a float32 tensor cast to the dtype
        return None if x is None else x.to(self.dt)

    def r(self, x):  # an op's result: already of the dtype
        return x

    def scalar(self, v):  # torch rounds a Python scalar to the tensor's dtype
        return v

    def out(self, x):
        return x.float()


class Emulated(Native):
    """float32 ops on float32 tensors holding values of the dtype, each result rounded."""

    def mm(self, a, b, bias=None):
        return a @ b if bias is None else torch.addmm(bias, a, b)

    def t(self, x):
        return None if x is None else x.to(self.dt).float()

    def r(self, x):
        return x.to(self.dt).float()

    def scalar(self, v):
        return float(torch.tensor(v, dtype=torch.float32).to(self.dt).float())


def forward(c, x, heads, Wo, bo, ops):
    """Every array attn shows, computed with ops (Native or Emulated)."""
    R = ops.r
    n = x.shape[0]
    x = ops.t(x)
    out = {"embeddings": x}
    scheme = c.get("scheme")
    if scheme == "sinusoidal":
        x = R(x + ops.t(sinusoidal(n, x.shape[1])))
    mask = torch.zeros(n, n, dtype=torch.bool)
    if c.get("causal"):
        mask |= torch.arange(n)[None, :] > torch.arange(n)[:, None]
    if "valid_len" in c:
        mask |= torch.arange(n)[None, :] >= c["valid_len"]
    arrays = {k: [] for k in ("queries", "keys", "values", "scores", "scaled_scores", "weights")}
    contexts = []
    H = len(heads)
    for h, p in enumerate(heads):
        proj = {}
        for name in "qkv":
            W, b = ops.t(p["W" + name]), ops.t(p["b" + name])
            proj[name] = R(ops.mm(x, W, b))
        q, k, v = proj["q"], proj["k"], proj["v"]
        arrays["queries"].append(q)
        arrays["keys"].append(k)
        arrays["values"].append(v)
        if scheme == "rope":
            cos, sin = (ops.t(t) for t in rope_cos_sin(n, q.shape[1]))
            q = R(R(q * cos) + R(rotate_half(q) * sin))
            k = R(R(k * cos) + R(rotate_half(k) * sin))
        omega = R(ops.mm(q, k.T))
        scaled = R(omega / ops.scalar(math.sqrt(q.shape[1])))
        if scheme == "alibi":
            slope = 2.0 ** (-8.0 * (h + 1) / H)
            dist = (torch.arange(n)[None, :] - torch.arange(n)[:, None]).abs().float()
            scaled = R(scaled + ops.t(-slope * dist))
        fill = ops.scalar(c["fill"]) if "fill" in c else float("-inf")
        w = R(torch.softmax(scaled.masked_fill(mask, fill), dim=-1))
        arrays["scores"].append(omega)
        arrays["scaled_scores"].append(scaled)
        arrays["weights"].append(w)
        contexts.append(R(ops.mm(w, v)))
    for name, per_head in arrays.items():
        out[name] = per_head[0] if H == 1 else torch.stack(per_head)
    concat = torch.cat(contexts, dim=1)
    if Wo is not None:
        W, b = ops.t(Wo), ops.t(bo)
        concat = R(ops.mm(concat, W, b))
    out["context"] = concat
    return {k: ops.out(v).numpy() for k, v in out.items()}


def ulps(a, b, dt):
    """|a - b| in units in the last place of the dtype (a, b float32 holding its values)."""
    def order(v):
        bits = (v.view(np.uint32) >> 16).astype(np.int64) if dt == torch.bfloat16 else \
            v.astype(np.float16).view(np.uint16).astype(np.int64)
        sign = bits >> 15
        return np.where(sign == 1, -(bits & 0x7FFF), bits)
    return np.abs(order(a) - order(b))


def main():
    rng = np.random.default_rng(24)
    np.save("attend_input.npy", rng.normal(size=(24, 16)).astype(np.float32))
    for name, c in CASES.items():
        x, heads, Wo, bo = model(c)
        for tname, dt in DTYPES.items():
            emulated = forward(c, x, heads, Wo, bo, Emulated(dt))
            if dt == torch.bfloat16:
                native = forward(c, x, heads, Wo, bo, Native(dt))
                for key in emulated:
                    differ = np.count_nonzero(native[key] != emulated[key])
                    assert differ == 0, f"{name} {key}: {differ} values of PyTorch's bfloat16 ops differ"
                # For the record: PyTorch 1.13's bfloat16 products as they are (small ones
                # rounded after every term), in ulps of bfloat16 from the stored reference.
                plain = forward(c, x, heads, Wo, bo, Native(dt, f32_sums=False))
                worst = {k: int(ulps(plain[k], emulated[k], dt).max()) for k in emulated}
                print(name, "torch 1.13 bfloat16 gemm as is, max ulps:", worst)
            arrays = dict(emulated)
            arrays["args"] = np.array(args_of(c))
            np.savez(f"attend_{name}_{tname}.npz", **arrays)
            print(name, tname, {k: v.shape for k, v in emulated.items()})


if __name__ == "__main__":
    main()
