#!/usr/bin/python3
"""Checks that the committed checkpoints and expected values under tests/data/models/ agree
with each other and with the families' definitions, with numpy alone (no PyTorch): run by ctest
as data.models, so a regenerated or edited file that breaks them fails the suite.

For every checkpoint folder (manifest.json) and every expected_*.npz it lists:
  - shapes follow config.json (layers, heads, head_dim, hidden size, n = len(ids));
  - weights are softmax(scores) over the keys the family's mask leaves (causal, Mistral's
    window, the sliding layers' window of Gemma 2/3 and Phi-3, none for BERT and T5): masked
    entries exactly 0, rows summing to 1; the global layers of a model with sliding layers
    give weight to keys outside the window; Gemma 2's scores within its soft-cap;
  - float32 and float64 runs agree (weights within 1e-5, hidden within 1e-4 relative);
  - positions are what the scheme adds: GPT-2's and BERT's table rows as stored in the file,
    RoPE angles i * inv_freq (on the rotated dims only; after linear, llama3, yarn and longrope
    scaling, longrope's factors chosen by n; Gemma 3's sliding layers' in positions_local),
    BLOOM's m_h * j with the slopes for its head count, T5's bias a
    function of j - i alone (a Toeplitz matrix per head);
  - hidden[0] is the embedding the family computes (GPT-2: wte + wpe rows; Llama-like: the
    token rows; Gemma: the rows times sqrt(hidden) in the dtype; T5: the shared rows);
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
LLAMA_LIKE = {"llama", "mistral", "qwen2", "gemma2", "gemma3_text", "qwen3", "phi3", "olmo2"}
CAUSAL = {"gpt2", "bloom", "gpt_neox"} | LLAMA_LIKE
FAMILIES = {"gpt2", "bert", "llama", "mistral", "qwen2", "bloom", "t5", "gpt_neox", "gemma2",
            "gemma3_text", "qwen3", "phi3", "olmo2"}
COPIES = {"gpt2-f16": ("gpt2", "F16"), "llama-bf16": ("llama", "BF16"),
          "gemma2-bf16": ("gemma2", "BF16")}
BUFFERS = ("attn.bias", "attention.bias", "attention.masked_bias", "rotary_emb.inv_freq")


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
    if t in LLAMA_LIKE or t == "gpt_neox":
        d, h = cfg["hidden_size"], cfg["num_attention_heads"]
        return cfg["num_hidden_layers"], h, cfg.get("head_dim") or d // h, d
    if t == "bloom":
        d = cfg.get("hidden_size", cfg.get("n_embed"))
        h = cfg.get("n_head", cfg.get("num_attention_heads"))
        return cfg.get("n_layer", cfg.get("num_hidden_layers")), h, d // h, d
    if t == "t5":
        return cfg["num_layers"], cfg["num_heads"], cfg["d_kv"], cfg["d_model"]
    raise ValueError(t)


def sliding(cfg):
    """Per layer, whether it attends through the sliding window: layer_types when given, else
    Mistral every layer, Gemma 2 the even layers, Gemma 3 all but each sliding_window_pattern-th
    (layer l global when (l + 1) % pattern == 0), Phi-3 every layer."""
    L, t = sizes(cfg)[0], cfg["model_type"]
    if not cfg.get("sliding_window") or t not in ("mistral", "gemma2", "gemma3_text", "phi3"):
        return [False] * L
    if cfg.get("layer_types"):
        return [kind == "sliding_attention" for kind in cfg["layer_types"]]
    if t == "gemma2":
        return [l % 2 == 0 for l in range(L)]
    if t == "gemma3_text":
        return [(l + 1) % cfg.get("sliding_window_pattern", 6) != 0 for l in range(L)]
    return [True] * L


def hidden_mask(cfg, n):
    """(layers, n, n): True where key j is hidden from query i."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    masks = []
    for window in sliding(cfg):
        mask = np.zeros((n, n), bool)
        if cfg["model_type"] in CAUSAL:
            mask |= j > i
        if window:
            mask |= j <= i - cfg["sliding_window"]
        masks.append(mask)
    return np.array(masks)


def softmax(scores, mask):
    """scores (layers, heads, n, n), mask (layers, n, n)."""
    x = np.where(mask[:, None], -np.inf, scores.astype(np.float64))
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def alibi_slopes(heads):
    """Press et al.'s slopes as BLOOM orders them (design: ALiBi slopes for H heads)."""
    p = 2 ** int(math.floor(math.log2(heads)))
    slopes = [2.0 ** (-8.0 * h / p) for h in range(1, p + 1)]
    slopes += [2.0 ** (-4.0 * (2 * k + 1) / p) for k in range(heads - p)]
    return np.array(slopes)


def rotary_dims(cfg, hd):
    """How many of a head's dims RoPE rotates (GPT-NeoX's rotary_pct, partial_rotary_factor)."""
    return int(hd * cfg.get("rotary_pct", cfg.get("partial_rotary_factor", 1.0)))


def rope_inv_freq(cfg, hd, n=None, local=False):
    """(inv_freq (rot/2), attention factor) in float64, from the config's definitions
    (modeling_rope_utils): hd the head size, n the input length (longrope), local Gemma 3's
    sliding layers (rope_local_base_freq, unscaled)."""
    if "rope_parameters" in cfg and "rope_theta" not in cfg:  # the newer files' form
        rp = cfg["rope_parameters"]
        cfg = dict(cfg, rope_theta=rp["rope_theta"], rope_scaling=rp)
    dim = rotary_dims(cfg, hd)
    theta = cfg.get("rope_local_base_freq") if local else cfg.get("rope_theta", cfg.get("rotary_emb_base"))
    inv = 1.0 / float(theta or 10000.0) ** (np.arange(0, dim, 2) / dim)
    s = {} if local else cfg.get("rope_scaling") or {}
    kind = s.get("rope_type", s.get("type", "default"))
    factor = 1.0
    if kind == "yarn":
        f, original = s["factor"], cfg["max_position_embeddings"]
        if "original_max_position_embeddings" in s:
            original = s["original_max_position_embeddings"]
            f = cfg["max_position_embeddings"] / original

        def m(scale, k=1.0):
            return 1.0 if scale <= 1 else 0.1 * k * math.log(scale) + 1.0
        factor = s.get("attention_factor") or (m(f, s["mscale"]) / m(f, s["mscale_all_dim"])
                                                if s.get("mscale") and s.get("mscale_all_dim") else m(f))
        edge = [dim * math.log(original / (b * 2 * math.pi)) / (2 * math.log(theta))
                for b in (s.get("beta_fast") or 32, s.get("beta_slow") or 1)]
        if s.get("truncate", True):
            edge = [math.floor(edge[0]), math.ceil(edge[1])]
        low, high = max(edge[0], 0), min(edge[1], dim - 1)
        ramp = np.clip((np.arange(dim // 2) - low) / ((high + 0.001 if high == low else high) - low), 0, 1)
        inv = inv / f * ramp + inv * (1 - ramp)
    elif kind == "longrope":
        original = cfg.get("original_max_position_embeddings", cfg["max_position_embeddings"])
        f = cfg["max_position_embeddings"] / original if "original_max_position_embeddings" in cfg else s["factor"]
        factor = s.get("attention_factor") or (
            1.0 if f <= 1 else math.sqrt(1 + math.log(f) / math.log(original)))
        inv = inv / np.array(s["long_factor"] if n > original else s["short_factor"])
    elif kind == "linear":
        inv = inv / s["factor"]
    elif kind == "llama3":
        old, low, high, f = (s["original_max_position_embeddings"], s["low_freq_factor"],
                             s["high_freq_factor"], s["factor"])
        wavelen = 2 * math.pi / inv
        smooth = (old / wavelen - low) / (high - low)
        inv = np.where(wavelen < old / high, inv,
                       np.where(wavelen > old / low, inv / f, (1 - smooth) * inv / f + smooth * inv))
    return inv, factor


def check_expected(name, cfg, tensors, e):
    where = f"{name}/{e['file']}"
    a = np.load(os.path.join(HERE, name, e["file"]))
    L, H, hd, d = sizes(cfg)
    ids = list(a["ids"])
    n = len(ids)
    f32 = e["dtype"] == "float32"
    t = cfg["model_type"]
    check(ids == e["ids"], f"{where}: ids differ from manifest.json")
    check(a["ids"].dtype == np.int64, f"{where}: ids are {a['ids'].dtype}, not int64")
    for key, shape in (("scores", (L, H, n, n)), ("weights", (L, H, n, n)),
                       ("context", (L, H, n, hd)), ("hidden", (L + 1, n, d))):
        if not check(a[key].shape == shape, f"{where}: {key} shape {a[key].shape}, want {shape}"):
            return
        check(a[key].dtype == (np.float32 if f32 else np.float64), f"{where}: {key} dtype")
    w = a["weights"].astype(np.float64)
    mask = hidden_mask(cfg, n)
    check(np.all(w[np.broadcast_to(mask[:, None], w.shape)] == 0), f"{where}: masked weights are not exactly 0")
    layers = sliding(cfg)
    if any(layers) and not all(layers) and n > cfg["sliding_window"]:
        far = np.arange(n)[None, :] <= np.arange(n)[:, None] - cfg["sliding_window"]  # j <= i - W
        for l in range(L):
            if not layers[l]:
                check(w[l][:, far].max() > 1e-3, f"{where}: global layer {l} ignores keys outside the window")
    if cfg.get("attn_logit_softcapping") and t == "gemma2":
        check(np.abs(a["scores"]).max() < cfg["attn_logit_softcapping"], f"{where}: scores above the cap")
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
    pos = a["positions"].astype(np.float64)
    tol = 1e-6 if f32 else 1e-12
    if t in ("gpt2", "bert"):
        table = "wpe.weight" if t == "gpt2" else "bert.embeddings.position_embeddings.weight"
        check(np.array_equal(pos, tensors[table][:n].astype(np.float64)), f"{where}: positions")
        if t == "gpt2":
            h0 = tensors["wte.weight"][ids].astype(np.float64) + tensors["wpe.weight"][:n]
            check(np.abs(h0 - a["hidden"][0]).max() < 1e-6, f"{where}: hidden[0] != wte + wpe")
    elif t in LLAMA_LIKE or t == "gpt_neox":
        for key, local in (("positions", False), ("positions_local", True)):
            if local and t != "gemma3_text":
                check(key not in a.files, f"{where}: {key} for a model without local RoPE")
                continue
            want = np.arange(n)[:, None] * rope_inv_freq(cfg, hd, n, local)[0][None, :]
            got = a[key].astype(np.float64)
            check(got.shape == want.shape and np.abs(got - want).max() <= 1e-6 * max(1.0, np.abs(want).max()),
                  f"{where}: {key}, the RoPE angles")
        if t == "gpt_neox":
            h0 = tensors["gpt_neox.embed_in.weight"][ids].astype(np.float64)
        else:
            h0 = tensors["model.embed_tokens.weight"][ids].astype(np.float64)
        if t in ("gemma2", "gemma3_text"):  # times sqrt(hidden) rounded to the dtype
            h0 = h0 * (np.float32(math.sqrt(d)) if f32 else math.sqrt(d))
        check(np.abs(h0 - a["hidden"][0]).max() <= (1e-6 if f32 else 1e-14) * np.abs(h0).max(),
              f"{where}: hidden[0] is not the family's embedding")
    elif t == "bloom":
        want = alibi_slopes(H)[:, None, None] * np.arange(n)[None, None, :] * np.ones((1, n, 1))
        check(np.abs(pos - want).max() < tol, f"{where}: alibi m_h * j")
    elif t == "t5":
        toeplitz = all(np.array_equal(np.diagonal(pos[h], o), np.full(n - abs(o), pos[h].diagonal(o)[0]))
                       for h in range(H) for o in range(-(n - 1), n))
        check(toeplitz, f"{where}: T5 bias is not a function of j - i")
        check(np.array_equal(tensors["shared.weight"][ids], a["hidden"][0]), f"{where}: hidden[0]")
    if t in CAUSAL | {"t5"}:
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
    check(families >= FAMILIES, f"families missing: {sorted(FAMILIES - families)}")
    for copy, (base, kind) in COPIES.items():
        if copy not in loaded or base not in loaded:
            check(False, f"{copy} or {base} missing")
            continue
        for k, v in loaded[base].items():
            if k.endswith(BUFFERS):
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
