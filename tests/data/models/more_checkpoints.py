"""Builders of the tiny checkpoints of the families added after the first seven (GPT-NeoX,
Gemma 2, Gemma 3, Qwen3, Phi-3, OLMo 2), used by make_references.py: each takes a Draw and
returns (config, tensors) with the names and layouts of Hugging Face's files. The configs carry
the keys those models' own config.json files carry (EleutherAI/pythia-*, google/gemma-2-*,
google/gemma-3-1b-*, Qwen/Qwen3-*, microsoft/Phi-3-*-128k, allenai/OLMo-2-*)."""
import numpy as np

QK_GAIN = 1.8  # as make_references.QK_GAIN: q and k weights 1.8 times a unit-gain init
V = 96  # every vocabulary


def _neox(r, d, H, L, pct, parallel, P=64):
    F = 4 * d
    hd = d // H
    rot = int(hd * pct)
    cfg = {"architectures": ["GPTNeoXForCausalLM"], "attention_bias": True,
           "attention_dropout": 0.0, "bos_token_id": 0, "classifier_dropout": 0.1,
           "eos_token_id": 0, "hidden_act": "gelu", "hidden_dropout": 0.0, "hidden_size": d,
           "initializer_range": 0.02, "intermediate_size": F, "layer_norm_eps": 1e-05,
           "max_position_embeddings": P, "model_type": "gpt_neox", "num_attention_heads": H,
           "num_hidden_layers": L, "rope_scaling": None, "rotary_emb_base": 10000,
           "rotary_pct": pct, "tie_word_embeddings": False, "torch_dtype": "float32",
           "use_cache": True, "use_parallel_residual": parallel, "vocab_size": V}
    t = {"gpt_neox.embed_in.weight": r.normal((V, d), 1.0)}
    for l in range(L):
        p = f"gpt_neox.layers.{l}."
        t[p + "input_layernorm.weight"], t[p + "input_layernorm.bias"] = r.norm(d), r.bias(d)
        t[p + "post_attention_layernorm.weight"] = r.norm(d)
        t[p + "post_attention_layernorm.bias"] = r.bias(d)
        # the buffers Pythia's files carry (not weights): the causal mask (BOOL), the masked
        # value, RoPE's inverse frequencies
        t[p + "attention.bias"] = np.tril(np.ones((P, P), bool))[None, None]
        t[p + "attention.masked_bias"] = np.array(-1e9, np.float32)
        t[p + "attention.rotary_emb.inv_freq"] = (
            1.0 / 10000 ** (np.arange(0, rot, 2) / rot)).astype(np.float32)
        # fused rows: for each head h, its q rows, then its k rows, then its v rows
        q, k, v = r.linear(d, d, QK_GAIN), r.linear(d, d, QK_GAIN), r.linear(d, d)
        fused = np.stack([q.reshape(H, hd, d), k.reshape(H, hd, d), v.reshape(H, hd, d)], axis=1)
        t[p + "attention.query_key_value.weight"] = fused.reshape(3 * d, d)
        t[p + "attention.query_key_value.bias"] = r.bias(3 * d)
        t[p + "attention.dense.weight"], t[p + "attention.dense.bias"] = r.linear(d, d), r.bias(d)
        t[p + "mlp.dense_h_to_4h.weight"], t[p + "mlp.dense_h_to_4h.bias"] = r.linear(F, d), r.bias(F)
        t[p + "mlp.dense_4h_to_h.weight"], t[p + "mlp.dense_4h_to_h.bias"] = r.linear(d, F), r.bias(d)
    t["gpt_neox.final_layer_norm.weight"] = r.norm(d)
    t["gpt_neox.final_layer_norm.bias"] = r.bias(d)
    t["embed_out.weight"] = r.linear(V, d)
    return cfg, t


def build_gpt_neox(r):
    """Pythia's layout: 2 heads of 16 dims, rotary_pct 0.25 (dims 0-3 rotated, 4-15 not),
    parallel residual."""
    return _neox(r, d=32, H=2, L=2, pct=0.25, parallel=True)


def build_gpt_neox_seq(r):
    """use_parallel_residual false (x + attn, then + mlp), 4 heads of 8 dims, rotary_pct 0.5."""
    return _neox(r, d=32, H=4, L=2, pct=0.5, parallel=False)


def _decoder_tensors(r, cfg, qk_norm=None, post_norms=False, gemma=False, fused=False,
                     tied=True, norm_gain=1.0):
    """Llama-like tensors. qk_norm: 'head' (q_norm/k_norm over head_dim) or 'whole' (over
    heads x head_dim); post_norms: OLMo 2's post_attention/post_feedforward norms; gemma: four
    norms per block, norm weights w of x (1 + w); fused: Phi-3's qkv_proj and gate_up_proj."""
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    KV, F = cfg["num_key_value_heads"], cfg["intermediate_size"]
    hd = cfg.get("head_dim") or d // H

    def norm(n, gain=1.0):  # a weight w with (1 + w) or w far from ones
        w = r.norm(n) * gain
        return w - 1.0 if gemma else w

    t = {"model.embed_tokens.weight": r.normal((V, d), 1.0)}
    for l in range(L):
        p = f"model.layers.{l}."
        if not post_norms:  # OLMo 2 has no norm before attention or MLP
            t[p + "input_layernorm.weight"] = norm(d)
        q, k, v = r.linear(H * hd, d, QK_GAIN), r.linear(KV * hd, d, QK_GAIN), r.linear(KV * hd, d)
        if fused:
            t[p + "self_attn.qkv_proj.weight"] = np.concatenate([q, k, v])
        else:
            t[p + "self_attn.q_proj.weight"] = q
            t[p + "self_attn.k_proj.weight"] = k
            t[p + "self_attn.v_proj.weight"] = v
        t[p + "self_attn.o_proj.weight"] = r.linear(d, H * hd)
        if qk_norm == "head":
            t[p + "self_attn.q_norm.weight"] = norm(hd, norm_gain)
            t[p + "self_attn.k_norm.weight"] = norm(hd, norm_gain)
        elif qk_norm == "whole":
            t[p + "self_attn.q_norm.weight"] = norm(H * hd, norm_gain)
            t[p + "self_attn.k_norm.weight"] = norm(KV * hd, norm_gain)
        t[p + "post_attention_layernorm.weight"] = norm(d)
        if gemma:
            t[p + "pre_feedforward_layernorm.weight"] = norm(d)
        gate, up = r.linear(F, d), r.linear(F, d)
        if fused:
            t[p + "mlp.gate_up_proj.weight"] = np.concatenate([gate, up])
        else:
            t[p + "mlp.gate_proj.weight"], t[p + "mlp.up_proj.weight"] = gate, up
        t[p + "mlp.down_proj.weight"] = r.linear(d, F)
        if gemma or post_norms:
            t[p + "post_feedforward_layernorm.weight"] = norm(d)
    t["model.norm.weight"] = norm(d)
    if not tied:
        t["lm_head.weight"] = r.linear(V, d)
    return t


def build_gemma2(r):
    """query_pre_attn_scalar 24 != head_dim 12; scores capped at 10 (tanh) before the mask;
    final logits capped at 8; sliding_window 4 on layers 0 and 2 (no layer_types: Gemma 2's
    alternation), layer 1 global; grouped K/V (4 query heads, 2 K/V)."""
    cfg = {"architectures": ["Gemma2ForCausalLM"], "attention_bias": False,
           "attention_dropout": 0.0, "attn_logit_softcapping": 10.0, "bos_token_id": 2,
           "cache_implementation": "hybrid", "eos_token_id": 1, "final_logit_softcapping": 8.0,
           "head_dim": 12, "hidden_act": "gelu_pytorch_tanh",
           "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 32,
           "initializer_range": 0.02, "intermediate_size": 48, "max_position_embeddings": 256,
           "model_type": "gemma2", "num_attention_heads": 4, "num_hidden_layers": 3,
           "num_key_value_heads": 2, "pad_token_id": 0, "query_pre_attn_scalar": 24,
           "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4,
           "torch_dtype": "float32", "use_cache": True, "vocab_size": V}
    return cfg, _decoder_tensors(r, cfg, gemma=True)


def build_gemma2_layer_types(r):
    """gemma2 with layer_types, as newer files carry them, unlike Gemma 2's default alternation:
    layer 0 global, layers 1 and 2 sliding (layer_types wins over the pattern)."""
    cfg, t = build_gemma2(r)
    return dict(cfg, layer_types=["full_attention", "sliding_attention", "sliding_attention"]), t


def build_gemma3(r):
    """gemma3_text as google/gemma-3-1b's config: one K/V head, q_norm/k_norm per head,
    sliding_window_pattern 3 over 4 layers (layers 0, 1, 3 sliding with window 4 and
    rope_local_base_freq 10000; layer 2 global with rope_theta 1e6 and linear scaling 2), no
    soft-caps."""
    cfg = {"architectures": ["Gemma3ForCausalLM"], "attention_bias": False,
           "attention_dropout": 0.0, "attn_logit_softcapping": None, "bos_token_id": 2,
           "cache_implementation": "hybrid", "eos_token_id": [1, 106],
           "final_logit_softcapping": None, "head_dim": 8,
           "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 32,
           "initializer_range": 0.02, "intermediate_size": 32, "max_position_embeddings": 256,
           "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 4,
           "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 8,
           "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0,
           "rope_scaling": {"factor": 2.0, "rope_type": "linear"}, "rope_theta": 1000000.0,
           "sliding_window": 4, "sliding_window_pattern": 3, "torch_dtype": "float32",
           "use_cache": True, "vocab_size": V}
    return cfg, _decoder_tensors(r, cfg, qk_norm="head", gemma=True, norm_gain=2.0)


def _qwen3_config(**over):
    cfg = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False,
           "attention_dropout": 0.0, "bos_token_id": 94, "eos_token_id": 95, "head_dim": 16,
           "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02,
           "intermediate_size": 64, "max_position_embeddings": 256, "max_window_layers": 2,
           "model_type": "qwen3", "num_attention_heads": 4, "num_hidden_layers": 2,
           "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_scaling": None,
           "rope_theta": 1000000.0, "sliding_window": None, "tie_word_embeddings": True,
           "torch_dtype": "float32", "use_cache": True, "use_sliding_window": False,
           "vocab_size": V}
    cfg.update(over)
    return cfg


def build_qwen3(r):
    """q_norm/k_norm per head before RoPE; head_dim 16 != 32 / 4; 2 K/V heads; tied."""
    cfg = _qwen3_config()
    return cfg, _decoder_tensors(r, cfg, qk_norm="head", norm_gain=2.0)


def build_qwen3_yarn(r):
    """Qwen3 with rope_scaling yarn: factor 4 over an original context of 256 (max positions
    1024 = 4 x 256), theta 10000, head_dim 16: correction range dims 0..4, so frequency 0 kept,
    1-3 blended (ramp 0.25, 0.5, 0.75), 4-7 divided by 4; attention_factor 1.25 given (cos and
    sin times 1.25: scores times 1.5625)."""
    cfg = _qwen3_config(max_position_embeddings=1024, rope_theta=10000.0, rope_scaling={
        "attention_factor": 1.25, "beta_fast": 32.0, "beta_slow": 1.0, "factor": 4.0,
        "original_max_position_embeddings": 256, "rope_type": "yarn"})
    return cfg, _decoder_tensors(r, cfg, qk_norm="head", norm_gain=2.0)


def build_phi3(r):
    """Phi-3 (the 128k configs' layout): fused qkv_proj [Q; K; V] (4 query heads, 2 K/V heads of
    8), fused gate_up_proj (gate rows first), partial_rotary_factor 0.75 (6 of 8 dims rotated),
    longrope with original_max_position_embeddings 8 and max_position_embeddings 32 (factor 4:
    attention factor sqrt(1 + ln 4 / ln 8)): the 16-token input uses long_factor, the 1- and
    7-token ones short_factor; sliding_window 6; untied."""
    cfg = {"architectures": ["Phi3ForCausalLM"], "attention_bias": False,
           "attention_dropout": 0.0, "bos_token_id": 1, "embd_pdrop": 0.0, "eos_token_id": 32000,
           "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02,
           "intermediate_size": 64, "max_position_embeddings": 32, "model_type": "phi3",
           "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
           "original_max_position_embeddings": 8, "pad_token_id": 32000,
           "partial_rotary_factor": 0.75, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05,
           "rope_scaling": {"long_factor": [1.25, 3.5, 9.0], "short_factor": [1.0, 1.5, 2.25],
                            "type": "longrope"},
           "rope_theta": 10000.0, "sliding_window": 6, "tie_word_embeddings": False,
           "torch_dtype": "float32", "use_cache": True, "vocab_size": V}
    return cfg, _decoder_tensors(r, cfg, fused=True, tied=False)


def _olmo2_config(**over):
    cfg = {"architectures": ["Olmo2ForCausalLM"], "attention_bias": False,
           "attention_dropout": 0.0, "bos_token_id": None, "eos_token_id": 95,
           "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02,
           "intermediate_size": 64, "max_position_embeddings": 256, "model_type": "olmo2",
           "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
           "pad_token_id": 94, "rms_norm_eps": 1e-06, "rope_scaling": None,
           "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "float32",
           "use_cache": True, "vocab_size": V}
    cfg.update(over)
    return {k: v for k, v in cfg.items() if v != "absent"}


def build_olmo2(r):
    """q_norm/k_norm over the whole projection (32 and 16 wide: 4 heads, 2 K/V heads of 8), no
    norm before attention or MLP, norms after both: x + norm(attn(x)), x + norm(mlp(x)); untied."""
    cfg = _olmo2_config()
    return cfg, _decoder_tensors(r, cfg, qk_norm="whole", post_norms=True, tied=False, norm_gain=2.0)


def build_olmo2_yarn(r):
    """OLMo 2 with its RoPE in the newer files' form, rope_parameters (no rope_theta, no
    rope_scaling): yarn with theta 10000, factor 8 over an original context of 64 (max positions
    512), head_dim 8: correction dims 0..2, frequency 0 kept, 1 blended (ramp 0.5), 2-3 divided by
    8; no attention_factor, so mscale 1 and mscale_all_dim 0.5 give it: (0.1 ln 8 + 1) /
    (0.05 ln 8 + 1) = 1.0942."""
    cfg = _olmo2_config(max_position_embeddings=512, rope_scaling="absent", rope_theta="absent",
                        rope_parameters={"beta_fast": 32.0, "beta_slow": 1.0, "factor": 8.0,
                                         "mscale": 1.0, "mscale_all_dim": 0.5,
                                         "original_max_position_embeddings": 64,
                                         "rope_theta": 10000.0, "rope_type": "yarn"})
    return cfg, _decoder_tensors(r, cfg, qk_norm="whole", post_norms=True, tied=False, norm_gain=2.0)
