"""The forward passes of the families added after the first seven, in plain PyTorch, written from
transformers' modeling_gpt_neox, modeling_gemma2, modeling_gemma3 (Gemma3ForCausalLM, the text
model), modeling_qwen3, modeling_phi3, modeling_olmo2 and modeling_rope_utils (yarn, longrope):
the eager attention path with output_attentions=True. Same calling convention and returned
arrays as hf_reference.py, plus, for Gemma 3, `positions_local` (the sliding layers' angles).

RoPE here may rotate only the first `rot` dims of each head (partial rotary: GPT-NeoX's
rotary_pct, Phi-3's partial_rotary_factor): q = [q_rot * cos + rotate_half(q_rot) * sin, q_pass],
cos and sin (n, rot) being cat(angles, angles) times the scaling's attention factor (yarn and
longrope; 1 otherwise). `positions` is the angles i * inv_freq (n, rot / 2), without the factor.
"""
import math

import torch

from hf_reference import _Record, _causal, _heads, _layer_norm, _linear, _merge, _rms_norm, _rotate_half

__all__ = ["FORWARDS", "rope_parameters", "sliding_layers"]


def _yarn(cfg, s, dim, dtype):
    """_compute_yarn_parameters: inv_freq blends 1/(factor b^(2i/dim)) and 1/b^(2i/dim) with a
    ramp between the correction dims of beta_fast and beta_slow rotations over the original
    context; attention factor given, else mscale(factor, mscale) / mscale(factor, mscale_all_dim)
    when both are set, else 0.1 ln(factor) + 1."""
    base = float(cfg["rope_theta"])
    factor = s["factor"]
    if "original_max_position_embeddings" in s:
        original = s["original_max_position_embeddings"]
        factor = cfg["max_position_embeddings"] / original
    else:
        original = cfg["max_position_embeddings"]

    def mscale(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    factor_att = s.get("attention_factor")
    if factor_att is None:
        if s.get("mscale") and s.get("mscale_all_dim"):
            factor_att = float(mscale(factor, s["mscale"]) / mscale(factor, s["mscale_all_dim"]))
        else:
            factor_att = mscale(factor)
    beta_fast, beta_slow = s.get("beta_fast") or 32, s.get("beta_slow") or 1

    def correction_dim(rotations):
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if s.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=dtype) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype) / dim)
    extrapolation = 1 - ramp
    inv_freq = (1.0 / (factor * pos_freqs)) * (1 - extrapolation) + (1.0 / pos_freqs) * extrapolation
    return inv_freq, factor_att


def _longrope(cfg, s, dim, n, dtype):
    """_compute_longrope_parameters with longrope_frequency_update: long_factor when the input
    (n tokens from position 0) is longer than original_max_position_embeddings, else
    short_factor; inv_freq = 1 / (ext * b^(2i/dim)); attention factor given, else
    sqrt(1 + ln(f) / ln(original)), f = max_position_embeddings / original."""
    base = float(cfg["rope_theta"])
    factor = s.get("factor")
    if "original_max_position_embeddings" in cfg:
        original = cfg["original_max_position_embeddings"]
        factor = cfg["max_position_embeddings"] / original
    else:
        original = cfg["max_position_embeddings"]
    factor_att = s.get("attention_factor")
    if factor_att is None:
        factor_att = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    ext = torch.tensor(s["long_factor"] if n > original else s["short_factor"], dtype=dtype)
    shape = torch.arange(0, dim, 2, dtype=torch.int64).to(dtype) / dim
    return 1.0 / (ext * base ** shape), factor_att


def rope_parameters(cfg, dim, n, dtype):
    """(inv_freq (dim/2), attention factor) of the config's rope_theta and rope_scaling for a
    rotary part of dim dims and an input of n tokens, in dtype (float32 as Hugging Face). A
    newer file's rope_parameters ({rope_type, rope_theta, the scaling's keys}) stands for both."""
    if "rope_parameters" in cfg and "rope_theta" not in cfg:
        rp = cfg["rope_parameters"]
        scaling = {k: v for k, v in rp.items() if k != "rope_theta"}
        cfg = dict(cfg, rope_theta=rp["rope_theta"],
                   rope_scaling=None if rp.get("rope_type", "default") == "default" else scaling)
    base = float(cfg.get("rope_theta", 10000.0))
    s = cfg.get("rope_scaling") or {}
    kind = s.get("rope_type", s.get("type", "default"))
    if kind == "yarn":
        return _yarn(cfg, s, dim, dtype)
    if kind == "longrope":
        return _longrope(cfg, s, dim, n, dtype)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype) / dim))
    if kind == "linear":
        inv_freq = inv_freq / s["factor"]
    elif kind != "default":
        raise ValueError("rope_scaling type not made here: " + kind)
    return inv_freq, 1.0


def _rotary(cfg, rot, n, dtype):
    """cos and sin (n, rot) times the attention factor, and the angles (n, rot/2)."""
    inv_freq, factor = rope_parameters(cfg, rot, n, dtype)
    angles = torch.arange(n, dtype=dtype)[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    return emb.cos() * factor, emb.sin() * factor, angles


def _rope(x, cos, sin):
    """x (H, n, hd): its first rot = cos.shape[-1] dims rotated (split halves), the rest kept."""
    rot = cos.shape[-1]
    r, rest = x[..., :rot], x[..., rot:]
    return torch.cat((r * cos + _rotate_half(r) * sin, rest), dim=-1)


def _attend(q, k, v, scale, softcap, mask):
    """scores = q k^T * scale, then (Gemma 2) cap * tanh(scores / cap), before the mask."""
    scores = (q @ k.transpose(-1, -2)) * scale
    if softcap:
        scores = torch.tanh(scores / softcap) * softcap
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return scores, weights, weights @ v


# ---------------------------------------------------------------------------------------------
def gpt_neox(cfg, W, ids):
    """GPT-NeoX / Pythia: fused query_key_value with rows per head (q_h, k_h, v_h), RoPE on the
    first rotary_pct of each head, parallel residual x + attn(ln1 x) + mlp(ln2 x) or the
    sequential form, LayerNorms with bias, erf GELU, untied embed_out."""
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    hd = d // H
    eps = cfg["layer_norm_eps"]
    n = len(ids)
    dtype = W["embed_in.weight"].dtype
    rot = int(hd * cfg.get("rotary_pct", cfg.get("partial_rotary_factor", 1.0)))
    rope_cfg = dict(cfg, rope_theta=cfg.get("rotary_emb_base", cfg.get("rope_theta", 10000.0)))
    cos, sin, angles = _rotary(rope_cfg, rot, n, dtype)
    x = W["embed_in.weight"][ids]
    rec = _Record()
    rec.hidden.append(x)
    mask = _causal(n)
    for l in range(L):
        p = f"layers.{l}."
        h = _layer_norm(x, W[p + "input_layernorm.weight"], W[p + "input_layernorm.bias"], eps)
        fused = _linear(h, W[p + "attention.query_key_value.weight"], W[p + "attention.query_key_value.bias"])
        fused = fused.view(n, H, 3, hd)  # per head: its q, then k, then v
        q, k, v = (fused[:, :, t, :].transpose(0, 1) for t in range(3))
        q, k = _rope(q, cos, sin), _rope(k, cos, sin)
        s, w, c = _attend(q, k, v, hd ** -0.5, None, mask)
        rec.layer(s, w, c)
        rec.value(w, v, W[p + "attention.dense.weight"].t())
        a = _linear(_merge(c), W[p + "attention.dense.weight"], W[p + "attention.dense.bias"])

        def mlp(y):
            y = _layer_norm(y, W[p + "post_attention_layernorm.weight"],
                            W[p + "post_attention_layernorm.bias"], eps)
            y = torch.nn.functional.gelu(_linear(y, W[p + "mlp.dense_h_to_4h.weight"],
                                                 W[p + "mlp.dense_h_to_4h.bias"]))
            return _linear(y, W[p + "mlp.dense_4h_to_h.weight"], W[p + "mlp.dense_4h_to_h.bias"])

        if cfg.get("use_parallel_residual", True):
            x = mlp(x) + a + x
        else:
            a = a + x
            x = mlp(a) + a
        rec.hidden.append(x)
    rec.head = lambda y: _linear(_layer_norm(y, W["final_layer_norm.weight"],
                                             W["final_layer_norm.bias"], eps), W["embed_out.weight"])
    return rec.result(angles, rec.head(x))


# ---------------------------------------------------------------------------------------------
def _gemma_norm(x, w, eps):
    """Gemma's RMSNorm: x / sqrt(mean(x^2) + eps) * (1 + w)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + w)


def _olmo2_norm(x, w, eps):
    """Olmo2RMSNorm: Llama's, but the weight multiplied before the cast back to the dtype (the
    same values in float32 and float64)."""
    return _rms_norm(x, w, eps)


def sliding_layers(cfg):
    """Which layers attend through the sliding window: layer_types when given; else Gemma 2
    even layers, Gemma 3 all but every sliding_window_pattern-th (layer l global when
    (l + 1) % pattern == 0), Phi-3 every layer when sliding_window is set."""
    L, t = cfg["num_hidden_layers"], cfg["model_type"]
    if cfg.get("layer_types"):
        return [kind == "sliding_attention" for kind in cfg["layer_types"]]
    if t == "gemma2":
        return [l % 2 == 0 for l in range(L)]
    if t == "gemma3_text":
        pattern = cfg.get("sliding_window_pattern", 6)
        return [(l + 1) % pattern != 0 for l in range(L)]
    if t == "phi3":
        return [cfg.get("sliding_window") is not None] * L
    if t == "qwen3" and cfg.get("use_sliding_window"):
        raise ValueError("Qwen3 sliding window not made here")
    return [False] * L


def decoder(cfg, W, ids):
    """Gemma 2, Gemma 3 (text), Qwen3, Phi-3 and OLMo 2: RMSNorm (Gemma's x (1 + w)), RoPE,
    grouped K/V, a gated MLP; each family's q/k norms, fused projections and norm placement."""
    t = cfg["model_type"]
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    KV = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or d // H
    eps = cfg["rms_norm_eps"]
    gemma = t in ("gemma2", "gemma3_text")
    norm = _gemma_norm if gemma else _olmo2_norm if t == "olmo2" else _rms_norm
    n = len(ids)
    dtype = W["embed_tokens.weight"].dtype
    rot = int(hd * cfg.get("partial_rotary_factor", 1.0))
    cos, sin, angles = _rotary(cfg, rot, n, dtype)
    local = None
    if t == "gemma3_text":  # sliding layers: rope_local_base_freq, no scaling
        local = _rotary(dict(cfg, rope_theta=cfg["rope_local_base_freq"], rope_scaling=None), rot, n, dtype)
    scale = cfg["query_pre_attn_scalar"] ** -0.5 if gemma else hd ** -0.5
    softcap = cfg.get("attn_logit_softcapping") if gemma else None
    sliding = sliding_layers(cfg)
    x = W["embed_tokens.weight"][ids]
    if gemma:  # times sqrt(hidden), the factor rounded to the compute dtype
        x = x * torch.tensor(d ** 0.5, dtype=dtype)
    rec = _Record()
    rec.hidden.append(x)
    for l in range(L):
        p = f"layers.{l}."
        mask = _causal(n, cfg["sliding_window"] if sliding[l] else None)
        h = x if t == "olmo2" else norm(x, W[p + "input_layernorm.weight"], eps)
        if t == "phi3":  # rows [Q; K; V]
            q, k, v = _linear(h, W[p + "self_attn.qkv_proj.weight"]).split([H * hd, KV * hd, KV * hd], dim=-1)
        else:
            q, k, v = (_linear(h, W[p + f"self_attn.{m}_proj.weight"], W.get(p + f"self_attn.{m}_proj.bias"))
                       for m in "qkv")
        if t == "olmo2":  # over the whole projection (heads x head_dim)
            q = _olmo2_norm(q, W[p + "self_attn.q_norm.weight"], eps)
            k = _olmo2_norm(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k, v = _heads(q, H, hd), _heads(k, KV, hd), _heads(v, KV, hd)
        if t in ("qwen3", "gemma3_text"):  # per head, over head_dim, before RoPE
            q = norm(q, W[p + "self_attn.q_norm.weight"], eps)
            k = norm(k, W[p + "self_attn.k_norm.weight"], eps)
        c_, s_ = (local[0], local[1]) if local is not None and sliding[l] else (cos, sin)
        q, k = _rope(q, c_, s_), _rope(k, c_, s_)
        k = k.repeat_interleave(H // KV, dim=0)  # query head h uses K/V head h // (H / KV)
        v = v.repeat_interleave(H // KV, dim=0)
        s, w, c = _attend(q, k, v, scale, softcap, mask)
        rec.layer(s, w, c)
        rec.value(w, v, W[p + "self_attn.o_proj.weight"].t())
        a = _linear(_merge(c), W[p + "self_attn.o_proj.weight"])
        if gemma:
            x = x + norm(a, W[p + "post_attention_layernorm.weight"], eps)
            h = norm(x, W[p + "pre_feedforward_layernorm.weight"], eps)
        elif t == "olmo2":
            x = x + _olmo2_norm(a, W[p + "post_attention_layernorm.weight"], eps)
            h = x
        else:
            x = x + a
            h = _rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        if t == "phi3":  # gate_up_proj rows [gate; up]
            gate, up = _linear(h, W[p + "mlp.gate_up_proj.weight"]).chunk(2, dim=-1)
        else:
            gate, up = _linear(h, W[p + "mlp.gate_proj.weight"]), _linear(h, W[p + "mlp.up_proj.weight"])
        act = (torch.nn.functional.gelu(gate, approximate="tanh") if gemma
               else torch.nn.functional.silu(gate))
        m = _linear(act * up, W[p + "mlp.down_proj.weight"])
        if gemma:
            m = norm(m, W[p + "post_feedforward_layernorm.weight"], eps)
        elif t == "olmo2":
            m = _olmo2_norm(m, W[p + "post_feedforward_layernorm.weight"], eps)
        x = x + m
        rec.hidden.append(x)
    head = W["lm_head.weight"] if "lm_head.weight" in W else W["embed_tokens.weight"]
    cap = cfg.get("final_logit_softcapping") if gemma else None

    def lm_head(y):
        logits = _linear(norm(y, W["norm.weight"], eps), head)
        return torch.tanh(logits / cap) * cap if cap else logits
    rec.head = lm_head
    out = rec.result(angles, rec.head(x))
    if local is not None:
        out["positions_local"] = local[2].numpy()
    return out


FORWARDS = {"gpt_neox": gpt_neox, "gemma2": decoder, "gemma3_text": decoder, "qwen3": decoder,
            "phi3": decoder, "olmo2": decoder}
