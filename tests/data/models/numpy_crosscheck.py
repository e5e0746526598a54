#!/usr/bin/python3
"""An independent float64 forward, in numpy, of the checkpoints added after the first seven
(gpt-neox, gemma2, gemma3, qwen3, phi3, olmo2 and their variants), against their expected
files: prints, per folder, the largest difference of the attention weights and of the ten
next-token probabilities from the float64 and float32 references, and whether the next ids
agree. Run once when the files were made (README.md gives the figures); not part of the suite.

It shares nothing with hf_reference*.py: it reads the files with safetensors_numpy, writes
each family's block from its description (design.md, Hugging Face's model cards), rotates the
pairs (j, j + rot/2) by explicit angles, loops over heads, and takes the inverse frequencies
(yarn, longrope, linear) from check_references.rope_inv_freq, the numpy rewrite of
modeling_rope_utils that the suite also uses.
    /usr/bin/python3 tests/data/models/numpy_crosscheck.py
"""
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_references  # noqa: E402
import safetensors_numpy  # noqa: E402

FOLDERS = ["gpt-neox", "gpt-neox-seq", "gemma2", "gemma2-bf16", "gemma3", "qwen3", "qwen3-yarn",
           "phi3", "olmo2", "olmo2-yarn", "gemma2-layer-types"]
ERF = np.vectorize(math.erf)


def rms(x, w, eps, one_plus=False):
    scale = w + 1.0 if one_plus else w
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * scale


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def rotate(x, theta, factor):
    """x (n, hd): pairs (j, j + rot/2), rot = 2 theta.shape[1], turned by theta (n, rot/2) and
    scaled by factor; dims from rot on kept."""
    half = theta.shape[1]
    a, b = x[:, :half], x[:, half:2 * half]
    c, s = np.cos(theta) * factor, np.sin(theta) * factor
    return np.concatenate([a * c - b * s, b * c + a * s, x[:, 2 * half:]], axis=1)


def window_layers(cfg, L):
    t, W = cfg["model_type"], cfg.get("sliding_window")
    if W is None or t in ("qwen3", "olmo2", "gpt_neox"):
        return [None] * L
    if cfg.get("layer_types"):
        return [W if kind == "sliding_attention" else None for kind in cfg["layer_types"]]
    if t == "gemma2":
        return [W if l % 2 == 0 else None for l in range(L)]
    if t == "gemma3_text":
        return [W if (l + 1) % cfg["sliding_window_pattern"] else None for l in range(L)]
    return [W] * L  # phi3


def attention(q, k, v, scale, window, cap=None):
    """One head: q (n, hd), k, v (n, hd) -> weights (n, n), context (n, hd)."""
    n = q.shape[0]
    s = q @ k.T * scale
    if cap:
        s = cap * np.tanh(s / cap)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    hidden = (j > i) | ((j <= i - window) if window else False)
    s = np.where(hidden, -np.inf, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    return w, w @ v


def neox(cfg, T, ids):
    d, H, L, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["layer_norm_eps"]
    hd, n = d // H, len(ids)
    inv, factor = check_references.rope_inv_freq(cfg, hd, n)
    theta = np.arange(n)[:, None] * inv[None, :]
    x = T["gpt_neox.embed_in.weight"][ids]
    weights = []
    for l in range(L):
        g = lambda name: T[f"gpt_neox.layers.{l}.{name}"]  # noqa: E731
        h = layer_norm(x, g("input_layernorm.weight"), g("input_layernorm.bias"), eps)
        qkv = h @ g("attention.query_key_value.weight").T + g("attention.query_key_value.bias")
        ctx = np.zeros((n, d))
        layer = []
        for head in range(H):
            block = qkv[:, head * 3 * hd:(head + 1) * 3 * hd]  # this head's q, k, v
            q, k, v = (rotate(block[:, :hd], theta, factor), rotate(block[:, hd:2 * hd], theta, factor),
                       block[:, 2 * hd:])
            w, c = attention(q, k, v, 1 / math.sqrt(hd), None)
            layer.append(w)
            ctx[:, head * hd:(head + 1) * hd] = c
        weights.append(layer)
        a = ctx @ g("attention.dense.weight").T + g("attention.dense.bias")

        def mlp(y):
            y = layer_norm(y, g("post_attention_layernorm.weight"), g("post_attention_layernorm.bias"), eps)
            y = y @ g("mlp.dense_h_to_4h.weight").T + g("mlp.dense_h_to_4h.bias")
            y = 0.5 * y * (1 + ERF(y / math.sqrt(2)))
            return y @ g("mlp.dense_4h_to_h.weight").T + g("mlp.dense_4h_to_h.bias")
        x = x + a + mlp(x) if cfg["use_parallel_residual"] else (x + a) + mlp(x + a)
    h = layer_norm(x, T["gpt_neox.final_layer_norm.weight"], T["gpt_neox.final_layer_norm.bias"], eps)
    return np.array(weights), h[-1] @ T["embed_out.weight"].T


def decoder(cfg, T, ids):
    t = cfg["model_type"]
    d, H, L, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["rms_norm_eps"]
    KV, hd, n = cfg["num_key_value_heads"], cfg.get("head_dim") or d // H, len(ids)
    gemma = t.startswith("gemma")
    inv, factor = check_references.rope_inv_freq(cfg, hd, n)
    theta = np.arange(n)[:, None] * inv[None, :]
    if t == "gemma3_text":
        inv_local, _ = check_references.rope_inv_freq(cfg, hd, n, local=True)
        theta_local = np.arange(n)[:, None] * inv_local[None, :]
    scale = cfg["query_pre_attn_scalar"] ** -0.5 if gemma else hd ** -0.5
    x = T["model.embed_tokens.weight"][ids] * (math.sqrt(d) if gemma else 1.0)
    windows = window_layers(cfg, L)
    weights = []
    for l in range(L):
        g = lambda name: T[f"model.layers.{l}.{name}"]  # noqa: E731
        h = x if t == "olmo2" else rms(x, g("input_layernorm.weight"), eps, gemma)
        if t == "phi3":
            qkv = h @ g("self_attn.qkv_proj.weight").T
            q, k, v = qkv[:, :H * hd], qkv[:, H * hd:(H + KV) * hd], qkv[:, (H + KV) * hd:]
        else:
            q, k, v = (h @ g(f"self_attn.{m}_proj.weight").T for m in "qkv")
        if t == "olmo2":
            q, k = rms(q, g("self_attn.q_norm.weight"), eps), rms(k, g("self_attn.k_norm.weight"), eps)
        ang = theta_local if t == "gemma3_text" and windows[l] else theta
        ctx = np.zeros((n, H * hd))
        layer = []
        for head in range(H):
            kv = head // (H // KV)
            qh, kh, vh = q[:, head * hd:(head + 1) * hd], k[:, kv * hd:(kv + 1) * hd], v[:, kv * hd:(kv + 1) * hd]
            if t in ("qwen3", "gemma3_text"):
                qh = rms(qh, g("self_attn.q_norm.weight"), eps, gemma)
                kh = rms(kh, g("self_attn.k_norm.weight"), eps, gemma)
            w, c = attention(rotate(qh, ang, factor), rotate(kh, ang, factor), vh, scale, windows[l],
                             cfg.get("attn_logit_softcapping") if gemma else None)
            layer.append(w)
            ctx[:, head * hd:(head + 1) * hd] = c
        weights.append(layer)
        a = ctx @ g("self_attn.o_proj.weight").T
        if gemma:
            x = x + rms(a, g("post_attention_layernorm.weight"), eps, True)
            h = rms(x, g("pre_feedforward_layernorm.weight"), eps, True)
        elif t == "olmo2":
            x = x + rms(a, g("post_attention_layernorm.weight"), eps)
            h = x
        else:
            x = x + a
            h = rms(x, g("post_attention_layernorm.weight"), eps)
        if t == "phi3":
            both = h @ g("mlp.gate_up_proj.weight").T
            gate, up = both[:, :both.shape[1] // 2], both[:, both.shape[1] // 2:]
        else:
            gate, up = h @ g("mlp.gate_proj.weight").T, h @ g("mlp.up_proj.weight").T
        if gemma:  # GELU, tanh form
            act = 0.5 * gate * (1 + np.tanh(math.sqrt(2 / math.pi) * (gate + 0.044715 * gate ** 3)))
        else:
            act = gate / (1 + np.exp(-gate))
        m = (act * up) @ g("mlp.down_proj.weight").T
        if gemma or t == "olmo2":
            m = rms(m, g("post_feedforward_layernorm.weight"), eps, gemma)
        x = x + m
    head = T.get("lm_head.weight", T["model.embed_tokens.weight"])
    logits = rms(x, T["model.norm.weight"], eps, gemma)[-1] @ head.T
    cap = cfg.get("final_logit_softcapping") if gemma else None
    return np.array(weights), cap * np.tanh(logits / cap) if cap else logits


def main():
    worst = {}
    for name in FOLDERS:
        cfg = json.load(open(os.path.join(HERE, name, "config.json")))
        manifest = json.load(open(os.path.join(HERE, name, "manifest.json")))
        tensors, _ = safetensors_numpy.read(os.path.join(HERE, name, "model.safetensors"))
        T = {k: v.astype(np.float64) for k, v in tensors.items()}
        for e in manifest["expected"]:
            ref = np.load(os.path.join(HERE, name, e["file"]))
            forward = neox if cfg["model_type"] == "gpt_neox" else decoder
            weights, logits = forward(cfg, T, np.array(e["ids"]))
            p = np.exp(logits - logits.max())
            p /= p.sum()
            top = np.argsort(-p, kind="stable")[:10]
            dw = np.abs(weights - ref["weights"]).max()
            dp = np.abs(p[ref["next_ids"]] - ref["next_probs"]).max()
            same = np.array_equal(top, ref["next_ids"])
            w0, p0, s0 = worst.get((name, e["dtype"]), (0.0, 0.0, True))
            worst[(name, e["dtype"])] = (max(w0, dw), max(p0, dp), s0 and same)
    for (name, dtype), (dw, dp, same) in worst.items():
        print(f"{name:13s} {dtype}: weights {dw:.1e}, next probabilities {dp:.1e}, "
              f"next ids {'equal' if same else 'DIFFER'}")
    by = {dt: max(v[0] for k, v in worst.items() if k[1] == dt) for dt in ("float32", "float64")}
    print("largest weight difference: float64 files %.1e, float32 files %.1e" % (by["float64"], by["float32"]))
    by = {dt: max(v[1] for k, v in worst.items() if k[1] == dt) for dt in ("float32", "float64")}
    print("largest next-probability difference: float64 files %.1e, float32 files %.1e" % (by["float64"], by["float32"]))
    return 0 if all(v[2] for v in worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
