"""Makes model_<checkpoint>_<dtype>.npz: the tiny checkpoints of tests/data/models run by
PyTorch with the model cast to bfloat16 and float16, the reference of
`attn attend --model M --dtype bfloat16|float16` (tests/cli/reduced_attend_model_test.sh).

Run once: cd tests/data/reduced && OPENBLAS_CORETYPE=Haswell /usr/bin/python3 make_attend_model.py
(PyTorch 1.13, numpy, OpenBLAS 0.3.21). The float32 products are OpenBLAS's, whose sums run in
the order of the kernel it picks for the CPU; a float16 rounding can fall on the other side of
a midpoint when that order changes, so the references are made with its Haswell (AVX2) kernels,
which every x86-64 machine with AVX2 and FMA runs, Intel or AMD, and the test pins the same.

The forwards are tests/data/models/hf_reference.py's and hf_reference_more.py's (written
from transformers' modeling files), on the 16-token ids of each checkpoint's manifest, with the weights cast to the dtype
(model.to(dtype): F32 and BF16 values rounded once to nearest even) and every op's result
rounded to the dtype, each op computed in float32 on values of the dtype. That is what
PyTorch's bfloat16 CPU ops compute (make_attend.py checks it op by op against PyTorch's own
bfloat16 ops; PyTorch 1.13 has no float16 CPU kernels, so float16 is these float32 ops rounded):
a torch.Tensor subclass rounds the result of every torch call, and a float32 tensor or a Python
scalar meeting a tensor of the model is rounded to the dtype first (Hugging Face casts cos, sin
and the ALiBi bias to the model's dtype; torch rounds a scalar to the tensor's dtype). Where
transformers computes a step in float32 and rounds once, so does this forward:
  linear, Conv1D      addmm: float32 sums plus the bias, one rounding
  LayerNorm           one kernel, one rounding
  RMSNorm (Llama, T5) fl(w fl(x rsqrt(mean(x^2) + eps)))  (x upcast to float32 inside)
  RMSNorm (OLMo 2)    fl(w x rsqrt(mean(x^2) + eps)), weighted in float32, one rounding
  RMSNorm (Gemma)     fl(x rsqrt(mean(x^2) + eps) (1 + w)), all in float32, one rounding
  GELU (erf, tanh)    one kernel (F.gelu), one rounding; SiLU likewise
  softmax             float32, one rounding (softmax(..., dtype=float32).to(dtype))
  scores              fl(fl(q k^T) / fl(sqrt(head_dim))), then fl(scores + fl(bias)); the
                      families of hf_reference_more.py fl(fl(q k^T) fl(scale)) as transformers'
                      eager attention multiplies, then Gemma 2's cap as three ops
Stored: the ids, and weights, scores (layers, heads, n, n) and hidden (layers + 1, n, d) as
float32 holding the dtype's values.
"""
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "models")
sys.path.insert(0, MODELS)
import hf_reference  # noqa: E402
import hf_reference_more  # noqa: E402
import safetensors_numpy  # noqa: E402

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}
PREFIX = {"gpt2": "", "gpt2-f16": "", "bert": "bert.", "llama": "model.", "llama-bf16": "model.",
          "llama-plain": "model.", "mistral": "model.", "qwen2": "model.", "bloom": "transformer.",
          "t5": "", "gpt-neox": "gpt_neox.", "gpt-neox-seq": "gpt_neox.", "gemma2": "model.",
          "gemma2-bf16": "model.", "gemma2-layer-types": "model.", "gemma3": "model.",
          "qwen3": "model.", "qwen3-yarn": "model.", "phi3": "model.", "olmo2": "model.",
          "olmo2-yarn": "model."}


class Rounded(torch.Tensor):
    """float32 tensor holding values of DTYPE; every torch call's result rounded to it."""
    DTYPE = None

    @classmethod
    def fl(cls, t):
        return t.to(cls.DTYPE).float()

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}

        def arg(a):
            if isinstance(a, (list, tuple)):
                return type(a)(arg(x) for x in a)
            if isinstance(a, float):
                return float(cls.fl(torch.tensor(a, dtype=torch.float32)))
            if isinstance(a, torch.Tensor) and not isinstance(a, Rounded) and a.is_floating_point():
                return cls.fl(a.float())
            return a

        with torch._C.DisableTorchFunction():
            out = func(*arg(args), **kwargs)

        def wrap(o):
            if isinstance(o, (list, tuple)):
                return type(o)(wrap(x) for x in o)
            if isinstance(o, torch.Tensor) and o.is_floating_point():
                return cls.fl(o.float()).as_subclass(Rounded)
            return o

        return wrap(out)


def plain(t):
    return t.as_subclass(torch.Tensor)


def _linear(x, w, b=None):
    return torch.nn.functional.linear(x, w, b)


def _conv1d(x, w, b):
    return torch.addmm(b, x, w)


def _rms_norm(x, w, eps):
    xf = plain(x)
    y = Rounded.fl(xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).as_subclass(Rounded)
    return w * y


def _gelu_tanh(x):
    return torch.nn.functional.gelu(x, approximate="tanh")


def _attend(q, k, v, scale, bias, mask):
    scores = q @ k.transpose(-1, -2)
    if scale != 1.0:
        scores = scores / math.sqrt(round(1.0 / scale**2))  # divided by fl(sqrt(head_dim))
    if bias is not None:
        scores = scores + bias
    masked = scores.masked_fill(mask, float("-inf")) if mask is not None else scores
    weights = torch.softmax(masked, dim=-1)
    return scores, weights, weights @ v


def _rms_norm_once(x, w, eps):
    xf = plain(x)
    return Rounded.fl(plain(w) * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps))).as_subclass(Rounded)


def _gemma_norm(x, w, eps):
    xf = plain(x)
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + plain(w))
    return Rounded.fl(y).as_subclass(Rounded)


def _attend_more(q, k, v, scale, softcap, mask):
    scores = (q @ k.transpose(-1, -2)) * scale
    if softcap:
        scores = torch.tanh(scores / softcap) * softcap
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return scores, weights, weights @ v


hf_reference._linear = _linear
hf_reference._conv1d = _conv1d
hf_reference._rms_norm = _rms_norm
hf_reference._gelu_new = _gelu_tanh
hf_reference._bloom_gelu = _gelu_tanh
hf_reference._attend = _attend
hf_reference_more._linear = _linear
hf_reference_more._rms_norm = _rms_norm
hf_reference_more._olmo2_norm = _rms_norm_once
hf_reference_more._gemma_norm = _gemma_norm
hf_reference_more._attend = _attend_more
FORWARDS = dict(hf_reference.FORWARDS, **hf_reference_more.FORWARDS)


def strip(tensors, prefix):
    out = {}
    for k, v in tensors.items():
        k = k[len(prefix):] if prefix and k.startswith(prefix) else k
        if "LayerNorm." in k:
            k = k.replace(".gamma", ".weight").replace(".beta", ".bias")
        out[k] = v
    return out


def main():
    torch.set_num_threads(1)
    for name, prefix in PREFIX.items():
        folder = os.path.join(MODELS, name)
        cfg = json.load(open(os.path.join(folder, "config.json")))
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        ids = manifest["expected"][-1]["ids"]  # the 16-token sequence
        tensors, _ = safetensors_numpy.read(os.path.join(folder, "model.safetensors"))
        for tname, dt in DTYPES.items():
            Rounded.DTYPE = dt
            W = {k: Rounded.fl(torch.from_numpy(v)).as_subclass(Rounded)
                 for k, v in strip(tensors, prefix).items()}
            with torch.no_grad():
                out = FORWARDS[cfg["model_type"]](cfg, W, torch.tensor(ids))
            arrays = {"ids": np.array(ids, np.int64)}
            for key in ("weights", "scores", "hidden"):
                arrays[key] = np.asarray(out[key], dtype=np.float32)
            np.savez(os.path.join(HERE, f"model_{name}_{tname}.npz"), **arrays)
            print(name, tname, {k: v.shape for k, v in arrays.items()})


if __name__ == "__main__":
    main()
