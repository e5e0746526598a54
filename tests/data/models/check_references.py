#!/usr/bin/python3
"""Checks that the committed checkpoints and expected values under tests/data/models/ agree
with each other and with the families' definitions, with numpy alone (no PyTorch): run by ctest
as data.models, so a regenerated or edited file that breaks them fails the suite.

For every checkpoint folder (manifest.json) and every expected_*.npz it lists:
  - shapes follow config.json (layers, heads, head_dim, hidden size, n = len(ids));
  - weights are softmax(scores) over the keys the family's mask leaves (causal, Mistral's
    window, none for BERT and T5): masked entries exactly 0, rows summing to 1;
  - float32 and float64 runs agree (weights within 1e-5, hidden within 1e-4 relative);
  - positions are what the scheme adds: GPT-2's and BERT's table rows as stored in the file,
    RoPE angles i * inv_freq, BLOOM's m_h * j with the slopes for its head count, T5's bias a
    function of j - i alone (a Toeplitz matrix per head);
  - hidden[0] is the embedding the family computes (GPT-2: wte + wpe rows; Llama-like: the
    token rows; T5: the shared rows);
  - next: ten distinct ids, probabilities descending, from softmax of the logits;
  - the F16 and BF16 copies hold their base checkpoint's values rounded to nearest-even.
Exit status 0 when everything holds, 1 (listing each failure) otherwise, 77 without numpy.
"""
import json
import math
import os
import sys

try:
    import numpy as np
except ImportError:
    print("skipped: numpy is not installed")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import safetensors_numpy  # noqa: E402

FAILURES = []
CAUSAL = {"gpt2", "llama", "mistral", "qwen2", "bloom"}
COPIES = {"gpt2-f16": ("gpt2", "F16"), "llama-bf16": ("llama", "BF16")}


def check(condition, what):
    if not condition:
        FAILURES.append(what)
    return condition


def sizes(cfg):
    """(layers, heads, head_dim, hidden) from a config.json as each family spells them."""
    t = cfg["model_type"]
    if t == "gpt2":
        return cfg["n_layer"], cfg["n_head"], cfg["n_embd"] // cfg["n_head"], cfg["n_embd"]
    if t == "bert":
        d, h = cfg["hidden_size"], cfg["num_attention_heads"]
        return cfg["num_hidden_layers"], h, d // h, d
    if t in ("llama", "mistral", "qwen2"):
        d, h = cfg["hidden_size"], cfg["num_attention_heads"]
        return cfg["num_hidden_layers"], h, cfg.get("head_dim") or d // h, d
    if t == "bloom":
        d = cfg.get("hidden_size", cfg.get("n_embed"))
        h = cfg.get("n_head", cfg.get("num_attention_heads"))
        return cfg.get("n_layer", cfg.get("num_hidden_layers")), h, d // h, d
    if t == "t5":
        return cfg["num_layers"], cfg["num_heads"], cfg["d_kv"], cfg["d_model"]
    raise ValueError(t)


def hidden_mask(cfg, n):
    """True where key j is hidden from query i."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    mask = np.zeros((n, n), bool)
    if cfg["model_type"] in CAUSAL:
        mask |= j > i
    if cfg["model_type"] == "mistral" and cfg.get("sliding_window"):
        mask |= j <= i - cfg["sliding_window"]
    return mask


def softmax(scores, mask):
    x = np.where(mask, -np.inf, scores.astype(np.float64))
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def alibi_slopes(heads):
    """Press et al.'s slopes as BLOOM orders them (design: ALiBi slopes for H heads)."""
    p = 2 ** int(math.floor(math.log2(heads)))
    slopes = [2.0 ** (-8.0 * h / p) for h in range(1, p + 1)]
    slopes += [2.0 ** (-4.0 * (2 * k + 1) / p) for k in range(heads - p)]
    return np.array(slopes)


def rope_inv_freq(cfg, hd):
    inv = 1.0 / float(cfg.get("rope_theta", 10000.0)) ** (np.arange(0, hd, 2) / hd)
    s = cfg.get("rope_scaling") or {}
    kind = s.get("rope_type", s.get("type", "default"))
    if kind == "linear":
        inv = inv / s["factor"]
    elif kind == "llama3":
        old, low, high, f = (s["original_max_position_embeddings"], s["low_freq_factor"],
                             s["high_freq_factor"], s["factor"])
        wavelen = 2 * math.pi / inv
        smooth = (old / wavelen - low) / (high - low)
        inv = np.where(wavelen < old / high, inv,
                       np.where(wavelen > old / low, inv / f, (1 - smooth) * inv / f + smooth * inv))
    return inv


def check_expected(name, cfg, tensors, e):
    where = f"{name}/{e['file']}"
    a = np.load(os.path.join(HERE, name, e["file"]))
    L, H, hd, d = sizes(cfg)
    ids = list(a["ids"])
    n = len(ids)
    f32 = e["dtype"] == "float32"
    check(ids == e["ids"], f"{where}: ids differ from manifest.json")
    check(a["ids"].dtype == np.int64, f"{where}: ids are {a['ids'].dtype}, not int64")
    for key, shape in (("scores", (L, H, n, n)), ("weights", (L, H, n, n)),
                       ("context", (L, H, n, hd)), ("hidden", (L + 1, n, d))):
        if not check(a[key].shape == shape, f"{where}: {key} shape {a[key].shape}, want {shape}"):
            return
        check(a[key].dtype == (np.float32 if f32 else np.float64), f"{where}: {key} dtype")
    w = a["weights"].astype(np.float64)
    mask = hidden_mask(cfg, n)
    check(np.all(w[..., mask] == 0), f"{where}: masked weights are not exactly 0")
    check(np.abs(w.sum(-1) - 1).max() < (1e-6 if f32 else 1e-12), f"{where}: rows do not sum to 1")
    diff = np.abs(softmax(a["scores"], mask) - w).max()
    check(diff < (2e-6 if f32 else 1e-13), f"{where}: weights != softmax(scores), {diff:.2e}")
    # the other precision's run of the same ids
    other = np.load(os.path.join(HERE, name, e["file"].replace(
        "float32" if f32 else "float64", "float64" if f32 else "float32")))
    diff = np.abs(other["weights"].astype(np.float64) - w).max()
    check(diff < 1e-5, f"{where}: float32 and float64 weights differ by {diff:.2e}")
    ref = np.abs(a["hidden"]).max()
    diff = np.abs(other["hidden"].astype(np.float64) - a["hidden"]).max()
    check(diff <= 1e-4 * max(1.0, ref), f"{where}: float32 and float64 hidden differ by {diff:.2e}")
    # positions and the first hidden row
    t = cfg["model_type"]
    pos = a["positions"].astype(np.float64)
    tol = 1e-6 if f32 else 1e-12
    if t in ("gpt2", "bert"):
        table = "wpe.weight" if t == "gpt2" else "bert.embeddings.position_embeddings.weight"
        check(np.array_equal(pos, tensors[table][:n].astype(np.float64)), f"{where}: positions")
        if t == "gpt2":
            h0 = tensors["wte.weight"][ids].astype(np.float64) + tensors["wpe.weight"][:n]
            check(np.abs(h0 - a["hidden"][0]).max() < 1e-6, f"{where}: hidden[0] != wte + wpe")
    elif t in ("llama", "mistral", "qwen2"):
        want = np.arange(n)[:, None] * rope_inv_freq(cfg, hd)[None, :]
        check(np.abs(pos - want).max() <= 1e-6 * max(1.0, np.abs(want).max()), f"{where}: angles")
        h0 = tensors["model.embed_tokens.weight"][ids]
        check(np.array_equal(h0, a["hidden"][0]), f"{where}: hidden[0] != embed_tokens rows")
    elif t == "bloom":
        want = alibi_slopes(H)[:, None, None] * np.arange(n)[None, None, :] * np.ones((1, n, 1))
        check(np.abs(pos - want).max() < tol, f"{where}: alibi m_h * j")
    elif t == "t5":
        toeplitz = all(np.array_equal(np.diagonal(pos[h], o), np.full(n - abs(o), pos[h].diagonal(o)[0]))
                       for h in range(H) for o in range(-(n - 1), n))
        check(toeplitz, f"{where}: T5 bias is not a function of j - i")
        check(np.array_equal(tensors["shared.weight"][ids], a["hidden"][0]), f"{where}: hidden[0]")
    if t in ("llama", "mistral", "qwen2", "gpt2", "t5", "bloom"):
        bias_free = a["scores"].astype(np.float64) - (pos[None] if t in ("bloom", "t5") else 0)
        check(np.all(np.isfinite(bias_free)), f"{where}: scores not finite")
    # next
    if t in CAUSAL:
        nid, p = a["next_ids"], a["next_probs"]
        check(nid.dtype == np.int64 and len(set(nid.tolist())) == 10, f"{where}: next_ids")
        check(np.all(np.diff(p) <= 0) and p[0] <= 1 and p[-1] > 0, f"{where}: next_probs order")
    else:
        check("next_ids" not in a.files, f"{where}: next for a model that is not a causal LM")


def main():
    folders = sorted(f for f in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, f, "manifest.json")))
    check(len(folders) >= 7, f"only {len(folders)} checkpoint folders")
    families = set()
    loaded = {}
    for name in folders:
        manifest = json.load(open(os.path.join(HERE, name, "manifest.json")))
        cfg = json.load(open(os.path.join(HERE, name, "config.json")))
        tensors, dtypes = safetensors_numpy.read(os.path.join(HERE, name, "model.safetensors"))
        loaded[name] = tensors
        families.add(cfg["model_type"])
        check(len(manifest["expected"]) >= 4, f"{name}: fewer than 4 expected files")
        for e in manifest["expected"]:
            check_expected(name, cfg, tensors, e)
        print(f"{name}: {len(manifest['expected'])} expected files, {len(tensors)} tensors")
    check(families >= {"gpt2", "bert", "llama", "mistral", "qwen2", "bloom", "t5"},
          f"families missing: {sorted({'gpt2', 'bert', 'llama', 'mistral', 'qwen2', 'bloom', 't5'} - families)}")
    for copy, (base, kind) in COPIES.items():
        if copy not in loaded or base not in loaded:
            check(False, f"{copy} or {base} missing")
            continue
        for k, v in loaded[base].items():
            if k.endswith("attn.bias"):
                continue
            want = (safetensors_numpy.from_bf16(safetensors_numpy.to_bf16(v)) if kind == "BF16"
                    else v.astype(np.float16).astype(np.float32))
            check(np.array_equal(loaded[copy][k], want), f"{copy}: {k} is not {base}'s rounded to {kind}")
    for f in FAILURES:
        print("FAIL:", f)
    print("ok" if not FAILURES else f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
