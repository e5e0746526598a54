"""attn's next-token probabilities on a float32 GGUF file against llama.cpp's own forward of the
same file (tests/cli/gguf_llama_logits_test.sh).

    gguf_llama_logits_check.py LIBDIR ATTN MODELS WORK

The tiny checkpoints of MODELS are converted to F32 GGUF files as llama.cpp's converter does
(tests/io/gguf_convert.py, with a tokenizer of their vocabulary size so that llama.cpp loads
them). For each, `attn attend --model FILE --ids IDS --show next` gives the ten likeliest next
tokens and their probabilities; libllama (llama_model_load_from_file, llama_init_from_model,
llama_decode of the same ids as one batch, llama_get_logits_ith of the last; CPU, one thread,
the KV cache in F32, tests/io/llama_reference.py) gives the logits, whose softmax (float64) must
agree: the same ten ids, the ones llama.cpp ranks first up to ties within 1e-4, and each
probability within 1e-4. Phi-3 reads only the first 6 ids: llama.cpp disables its sliding
window (its log says "Phi SWA is currently disabled"), which attn applies past 6 tokens, the
window of the test checkpoint; Gemma 2's and Gemma 3's windows (4) llama.cpp applies; Mistral's
file is a llama one without its window, as the converter writes it, read alike by both.

GPT-2 differs by 3.6e-4: ggml's CPU GELU (GGML_GELU_FP16) reads a table of half floats, the
input rounded to float16 and the output stored as float16. So for gpt2 a float64 numpy forward
of the checkpoint is the referee: with the exact tanh GELU it must equal attn's probabilities,
with GELU(x) = f16(gelu(f16(x))) (|x| < 10) llama.cpp's, each within 1e-5.
"""
import json
import os
import subprocess
import sys

import numpy as np

LIBDIR, ATTN, MODELS, WORK = sys.argv[1:5]
os.environ["ATTN_GGML_LIBDIR"] = LIBDIR
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                "models"))
from gguf_convert import F32, convert, tiny_vocab  # noqa: E402
import llama_reference  # noqa: E402
import safetensors_numpy  # noqa: E402

IDS = [47, 34, 48, 83, 54, 50, 67, 51, 86, 69, 83, 44]
BOUND = 1e-4


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def gelu_f16(x):
    """ggml_vec_gelu_f32 with GGML_GELU_FP16: the table of gelu at every float16, as float16."""
    y = gelu(x.astype(np.float16).astype(np.float64)).astype(np.float16).astype(np.float64)
    return np.where(x <= -10, 0.0, np.where(x >= 10, x, y))


def gpt2_probs(folder, ids, act):
    """GPT-2's next-token probabilities after ids, float64, with the activation act."""
    t, _ = safetensors_numpy.read(os.path.join(folder, "model.safetensors"))
    T = {k: v.astype(np.float64) for k, v in t.items()}
    c = json.load(open(os.path.join(folder, "config.json")))
    d, n, heads, eps = c["n_embd"], len(ids), c["n_head"], c["layer_norm_epsilon"]
    hd = d // heads

    def norm(x, name):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * T[name + ".weight"] + T[name + ".bias"]

    def conv1d(x, name):
        return x @ T[name + ".weight"] + T[name + ".bias"]
    x = T["wte.weight"][ids] + T["wpe.weight"][:n]
    later = np.triu(np.ones((n, n), dtype=bool), 1)
    for layer in range(c["n_layer"]):
        h = f"h.{layer}."
        qkv = conv1d(norm(x, h + "ln_1"), h + "attn.c_attn")
        ctx = np.zeros((n, d))
        for i in range(heads):
            q, k, v = (qkv[:, j * d + i * hd:j * d + (i + 1) * hd] for j in range(3))
            s = np.where(later, -np.inf, q @ k.T / np.sqrt(hd))
            w = np.exp(s - s.max(-1, keepdims=True))
            ctx[:, i * hd:(i + 1) * hd] = (w / w.sum(-1, keepdims=True)) @ v
        x = x + conv1d(ctx, h + "attn.c_proj")
        x = x + conv1d(act(conv1d(norm(x, h + "ln_2"), h + "mlp.c_fc")), h + "mlp.c_proj")
    logits = norm(x, "ln_f")[-1] @ T["wte.weight"].T
    p = np.exp(logits - logits.max())
    return p / p.sum()


LENGTHS = {"llama": 12, "mistral": 12, "gpt2": 12, "qwen2": 12, "qwen3": 12, "gemma2": 12,
           "gemma3": 12, "phi3": 6}

for name, n in LENGTHS.items():
    folder = os.path.join(MODELS, name)
    path = os.path.join(WORK, name + ".gguf")
    convert(folder, path, F32, tiny_vocab(folder))
    out = os.path.join(WORK, name + ".npz")
    r = subprocess.run([ATTN, "attend", "--model", path, "--ids", ",".join(map(str, IDS[:n])),
                        "--show", "next", "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: attend --model {path} exited {r.returncode}: {r.stderr}")
    table = np.load(out)["next"]  # rows (rank, id, probability), float64
    ids, probs = table[:, 1].astype(int), table[:, 2]
    model = llama_reference.Model(path)
    logits = np.array(model.last_logits(IDS[:n]), dtype=np.float64)
    model.close()
    p = np.exp(logits - logits.max())
    p /= p.sum()
    err = float(np.abs(p[ids] - probs).max())
    if name == "gpt2":  # the referee: numpy with each GELU
        exact, f16 = gpt2_probs(folder, IDS[:n], gelu), gpt2_probs(folder, IDS[:n], gelu_f16)
        e_attn, e_llama = float(np.abs(exact[ids] - probs).max()), float(np.abs(f16 - p).max())
        if not (e_attn < 1e-5 and e_llama < 1e-5):
            raise SystemExit(f"FAIL: gpt2: attn - numpy {e_attn}, llama.cpp - numpy with "
                             f"ggml's float16 GELU {e_llama}")
        print(f"ok gpt2: attn within {e_attn:.2e} of numpy, llama.cpp within {e_llama:.2e} of "
              f"numpy with ggml's float16 GELU (attn - llama.cpp: {err:.2e})")
        continue
    rest = np.delete(p, ids)
    if not err < BOUND or not (rest.max() if rest.size else 0.0) < probs.min() + BOUND:
        raise SystemExit(f"FAIL: {name}: attn's next {list(zip(ids, probs))}, llama.cpp's "
                         f"probabilities of those {list(p[ids])} (largest difference {err}), "
                         f"its largest other {rest.max()}")
    print(f"ok {name}: llama.cpp's probabilities of attn's ten next tokens within {err:.2e}")
