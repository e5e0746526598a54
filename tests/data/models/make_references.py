#!/usr/bin/python3
"""Tiny random checkpoints of the model families, in Hugging Face's naming and layout, and the
expected values of their forward passes (hf_reference.py, hf_reference_more.py) for a few fixed
id sequences. The builders of the first seven families are here, the later ones in
more_checkpoints.py.

Run once from anywhere with Debian's PyTorch:
    /usr/bin/python3 tests/data/models/make_references.py [NAME ...]
It rewrites every folder listed in CHECKPOINTS (or only the NAMEs given) under
tests/data/models/ (config.json, model.safetensors, expected_n<N>_<dtype>.npz, manifest.json).
README.md there says what each holds. Deterministic: each checkpoint draws from torch.Generator
seeded with SEED + its index; the float32 values may differ in their last bits on another CPU
(its BLAS kernels), so a folder added later is made by naming it.
"""
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_reference  # noqa: E402
import hf_reference_more  # noqa: E402
import more_checkpoints as more  # noqa: E402
import safetensors_numpy  # noqa: E402

SEED = 2020
QK_GAIN = 1.8  # q and k weights are this many times a unit-gain init: peaked attention


class Draw:
    """Random tensors from one seeded generator (float32 numpy arrays)."""

    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def normal(self, shape, std):
        return (torch.randn(shape, generator=self.g) * std).numpy()

    def linear(self, out, inp, gain=1.0):
        """An nn.Linear weight (out, in), std gain / sqrt(in)."""
        return self.normal((out, inp), gain / math.sqrt(inp))

    def norm(self, d):
        """A norm weight far from ones: 1 + 0.3 N(0, 1)."""
        return 1.0 + self.normal((d,), 0.3)

    def bias(self, d, std=0.1):
        return self.normal((d,), std)


# --------------------------------------------------------------------------------------------
# Checkpoint builders: (config, tensors) with the names as the file holds them.

def build_gpt2(r):
    d, H, L, V, P = 32, 4, 3, 96, 32
    cfg = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
           "attn_pdrop": 0.0, "bos_token_id": V - 1, "embd_pdrop": 0.0, "eos_token_id": V - 1,
           "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
           "n_ctx": P, "n_embd": d, "n_head": H, "n_inner": None, "n_layer": L,
           "n_positions": P, "resid_pdrop": 0.0, "scale_attn_weights": True,
           "torch_dtype": "float32", "vocab_size": V}
    t = {"wte.weight": r.normal((V, d), 1.0), "wpe.weight": r.normal((P, d), 1.0)}
    for l in range(L):
        p = f"h.{l}."
        t[p + "ln_1.weight"], t[p + "ln_1.bias"] = r.norm(d), r.bias(d)
        # Conv1D: stored (in, out); columns [q | k | v]
        qkv = np.concatenate([r.linear(d, d, QK_GAIN), r.linear(d, d, QK_GAIN), r.linear(d, d)]).T
        t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"] = np.ascontiguousarray(qkv), r.bias(3 * d)
        t[p + "attn.c_proj.weight"], t[p + "attn.c_proj.bias"] = r.linear(d, d).T.copy(), r.bias(d)
        t[p + "ln_2.weight"], t[p + "ln_2.bias"] = r.norm(d), r.bias(d)
        t[p + "mlp.c_fc.weight"], t[p + "mlp.c_fc.bias"] = r.linear(4 * d, d).T.copy(), r.bias(4 * d)
        t[p + "mlp.c_proj.weight"], t[p + "mlp.c_proj.bias"] = r.linear(d, 4 * d).T.copy(), r.bias(d)
        # the causal-mask buffer old GPT-2 checkpoints carry (not a weight: ignored by readers)
        t[p + "attn.bias"] = np.tril(np.ones((P, P), np.float32))[None, None]
    t["ln_f.weight"], t["ln_f.bias"] = r.norm(d), r.bias(d)
    return cfg, t


def build_bert(r):
    d, H, L, V, P, F = 32, 4, 2, 96, 32, 64
    cfg = {"architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.0,
           "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
           "hidden_size": d, "initializer_range": 0.02, "intermediate_size": F,
           "layer_norm_eps": 1e-12, "max_position_embeddings": P, "model_type": "bert",
           "num_attention_heads": H, "num_hidden_layers": L, "pad_token_id": 0,
           "position_embedding_type": "absolute", "torch_dtype": "float32", "type_vocab_size": 2,
           "use_cache": True, "vocab_size": V}
    t = {"embeddings.word_embeddings.weight": r.normal((V, d), 1.0),
         "embeddings.position_embeddings.weight": r.normal((P, d), 1.0),
         "embeddings.token_type_embeddings.weight": r.normal((2, d), 1.0),
         "embeddings.LayerNorm.gamma": r.norm(d), "embeddings.LayerNorm.beta": r.bias(d)}
    for l in range(L):
        p = f"encoder.layer.{l}."
        for name, gain in (("query", QK_GAIN), ("key", QK_GAIN), ("value", 1.0)):
            t[p + f"attention.self.{name}.weight"] = r.linear(d, d, gain)
            t[p + f"attention.self.{name}.bias"] = r.bias(d)
        t[p + "attention.output.dense.weight"], t[p + "attention.output.dense.bias"] = r.linear(d, d), r.bias(d)
        t[p + "attention.output.LayerNorm.gamma"] = r.norm(d)
        t[p + "attention.output.LayerNorm.beta"] = r.bias(d)
        t[p + "intermediate.dense.weight"], t[p + "intermediate.dense.bias"] = r.linear(F, d), r.bias(F)
        t[p + "output.dense.weight"], t[p + "output.dense.bias"] = r.linear(d, F), r.bias(d)
        t[p + "output.LayerNorm.gamma"], t[p + "output.LayerNorm.beta"] = r.norm(d), r.bias(d)
    t["pooler.dense.weight"], t["pooler.dense.bias"] = r.linear(d, d), r.bias(d)
    t = {"bert." + k: v for k, v in t.items()}  # BertForMaskedLM's prefix, legacy gamma/beta
    t["cls.predictions.bias"] = r.bias(V)  # a head attn does not use
    return cfg, t


def _llama_like(r, cfg, biases=False, tied=False):
    d, H, L, V = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["vocab_size"]
    KV, F = cfg["num_key_value_heads"], cfg["intermediate_size"]
    hd = cfg.get("head_dim") or d // H
    t = {"model.embed_tokens.weight": r.normal((V, d), 1.0)}
    for l in range(L):
        p = f"model.layers.{l}."
        t[p + "input_layernorm.weight"] = r.norm(d)
        t[p + "self_attn.q_proj.weight"] = r.linear(H * hd, d, QK_GAIN)
        t[p + "self_attn.k_proj.weight"] = r.linear(KV * hd, d, QK_GAIN)
        t[p + "self_attn.v_proj.weight"] = r.linear(KV * hd, d)
        if biases:
            t[p + "self_attn.q_proj.bias"] = r.bias(H * hd, 0.5)
            t[p + "self_attn.k_proj.bias"] = r.bias(KV * hd, 0.5)
            t[p + "self_attn.v_proj.bias"] = r.bias(KV * hd, 0.5)
        t[p + "self_attn.o_proj.weight"] = r.linear(d, H * hd)
        t[p + "post_attention_layernorm.weight"] = r.norm(d)
        t[p + "mlp.gate_proj.weight"] = r.linear(F, d)
        t[p + "mlp.up_proj.weight"] = r.linear(F, d)
        t[p + "mlp.down_proj.weight"] = r.linear(d, F)
    t["model.norm.weight"] = r.norm(d)
    if not tied:
        t["lm_head.weight"] = r.linear(V, d)
    return t


def _llama_config(**over):
    cfg = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
           "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 64,
           "initializer_range": 0.02, "intermediate_size": 96, "max_position_embeddings": 256,
           "mlp_bias": False, "model_type": "llama", "num_attention_heads": 4,
           "num_hidden_layers": 2, "num_key_value_heads": 2, "pretraining_tp": 1,
           "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 10000.0,
           "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True,
           "vocab_size": 96}
    cfg.update(over)
    return cfg


def build_llama(r):
    """Llama 3.1's rope scaling (factor 8, low 1, high 4, original 8192) with theta 500000 and
    head_dim 16: frequencies 0-3 kept, 4 smoothed, 5-7 divided by 8."""
    cfg = _llama_config(rope_theta=500000.0, rope_scaling={
        "factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"})
    return cfg, _llama_like(r, cfg)


def build_llama_plain(r):
    """No rope scaling, theta 10000, tied embeddings: llama2.c's own model (with Hugging Face's
    q/k permutation) computes the same logits. intermediate_size 96 is llama2.c's
    multiple_of=32 rule for dim 32."""
    cfg = _llama_config(hidden_size=32, intermediate_size=96, tie_word_embeddings=True)
    return cfg, _llama_like(r, cfg, tied=True)


def build_mistral(r):
    """sliding_window 6 < the 16-token sequence; head_dim 12 differs from hidden / heads = 8."""
    cfg = {"architectures": ["MistralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
           "eos_token_id": 2, "head_dim": 12, "hidden_act": "silu", "hidden_size": 32,
           "initializer_range": 0.02, "intermediate_size": 64, "max_position_embeddings": 256,
           "model_type": "mistral", "num_attention_heads": 4, "num_hidden_layers": 2,
           "num_key_value_heads": 2, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
           "sliding_window": 6, "tie_word_embeddings": False, "torch_dtype": "float32",
           "use_cache": True, "vocab_size": 96}
    return cfg, _llama_like(r, cfg)


def build_qwen2(r):
    """q/k/v biases, linear rope scaling (factor 2), theta 1e6, tied embeddings; its
    sliding_window is off (use_sliding_window false), as in Qwen2's own configs."""
    cfg = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 94,
           "eos_token_id": 95, "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02,
           "intermediate_size": 64, "max_position_embeddings": 256, "max_window_layers": 2,
           "model_type": "qwen2", "num_attention_heads": 4, "num_hidden_layers": 2,
           "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
           "rope_scaling": {"factor": 2.0, "rope_type": "linear"}, "rope_theta": 1000000.0,
           "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "float32",
           "use_cache": True, "use_sliding_window": False, "vocab_size": 96}
    return cfg, _llama_like(r, cfg, biases=True, tied=True)


def build_bloom(r):
    """6 heads (not a power of two: slopes 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1, 2^-3). The config
    spells its sizes as bigscience/bloom-560m's does (n_embed, num_attention_heads, n_layer)."""
    d, H, L, V = 48, 6, 2, 96
    cfg = {"apply_residual_connection_post_layernorm": False, "architectures": ["BloomForCausalLM"],
           "attention_dropout": 0.0, "attention_softmax_in_fp32": True, "bos_token_id": 1,
           "eos_token_id": 2, "hidden_dropout": 0.0, "initializer_range": 0.02,
           "layer_norm_epsilon": 1e-05, "masked_softmax_fusion": True, "model_type": "bloom",
           "n_embed": d, "n_inner": None, "n_layer": L, "num_attention_heads": H,
           "pad_token_id": 3, "pretraining_tp": 1, "slow_but_exact": False,
           "torch_dtype": "float32", "unk_token_id": 0, "use_cache": True, "vocab_size": V}
    hd = d // H
    t = {"word_embeddings.weight": r.normal((V, d), 1.0),
         "word_embeddings_layernorm.weight": r.norm(d), "word_embeddings_layernorm.bias": r.bias(d)}
    for l in range(L):
        p = f"h.{l}."
        t[p + "input_layernorm.weight"], t[p + "input_layernorm.bias"] = r.norm(d), r.bias(d)
        # fused rows: for each head h, its q rows, then its k rows, then its v rows (hd each)
        q, k, v = r.linear(d, d, QK_GAIN), r.linear(d, d, QK_GAIN), r.linear(d, d)
        fused = np.stack([q.reshape(H, hd, d), k.reshape(H, hd, d), v.reshape(H, hd, d)], axis=1)
        t[p + "self_attention.query_key_value.weight"] = fused.reshape(3 * d, d)
        t[p + "self_attention.query_key_value.bias"] = r.bias(3 * d)
        t[p + "self_attention.dense.weight"], t[p + "self_attention.dense.bias"] = r.linear(d, d), r.bias(d)
        t[p + "post_attention_layernorm.weight"] = r.norm(d)
        t[p + "post_attention_layernorm.bias"] = r.bias(d)
        t[p + "mlp.dense_h_to_4h.weight"], t[p + "mlp.dense_h_to_4h.bias"] = r.linear(4 * d, d), r.bias(4 * d)
        t[p + "mlp.dense_4h_to_h.weight"], t[p + "mlp.dense_4h_to_h.bias"] = r.linear(d, 4 * d), r.bias(d)
    t["ln_f.weight"], t["ln_f.bias"] = r.norm(d), r.bias(d)
    return cfg, {"transformer." + k: v for k, v in t.items()}  # BloomForCausalLM, tied head


def build_t5(r):
    """T5 v1.1 style encoder: gated-gelu, d_kv 8 x 6 heads = 48 != d_model 32, 16 buckets with
    max_distance 12 (so a 16-token sequence reaches the clamped last bucket), 3 layers of which
    only the first holds the bias table. The decoder is left out (attn reads the encoder)."""
    d, H, hd, L, V, F, B = 32, 6, 8, 3, 96, 48, 16
    cfg = {"architectures": ["T5EncoderModel"], "d_ff": F, "d_kv": hd, "d_model": d,
           "decoder_start_token_id": 0, "dense_act_fn": "gelu_new", "dropout_rate": 0.0,
           "eos_token_id": 1, "feed_forward_proj": "gated-gelu", "initializer_factor": 1.0,
           "is_encoder_decoder": True, "is_gated_act": True, "layer_norm_epsilon": 1e-06,
           "model_type": "t5", "num_decoder_layers": L, "num_heads": H, "num_layers": L,
           "pad_token_id": 0, "relative_attention_max_distance": 12,
           "relative_attention_num_buckets": B, "tie_word_embeddings": False,
           "torch_dtype": "float32", "use_cache": True, "vocab_size": V}
    t = {"shared.weight": r.normal((V, d), 1.0)}
    for l in range(L):
        p = f"encoder.block.{l}.layer."
        t[p + "0.SelfAttention.q.weight"] = r.linear(H * hd, d, QK_GAIN / math.sqrt(math.sqrt(hd)))
        t[p + "0.SelfAttention.k.weight"] = r.linear(H * hd, d, QK_GAIN / math.sqrt(math.sqrt(hd)))
        t[p + "0.SelfAttention.v.weight"] = r.linear(H * hd, d)
        t[p + "0.SelfAttention.o.weight"] = r.linear(d, H * hd)
        if l == 0:
            t[p + "0.SelfAttention.relative_attention_bias.weight"] = r.normal((B, H), 2.0)
        t[p + "0.layer_norm.weight"] = r.norm(d)
        t[p + "1.DenseReluDense.wi_0.weight"] = r.linear(F, d)
        t[p + "1.DenseReluDense.wi_1.weight"] = r.linear(F, d)
        t[p + "1.DenseReluDense.wo.weight"] = r.linear(d, F)
        t[p + "1.layer_norm.weight"] = r.norm(d)
    t["encoder.final_layer_norm.weight"] = r.norm(d)
    t["lm_head.weight"] = r.linear(V, d)  # the decoder's head: not used by the encoder
    return cfg, t


def build_bert_mlm(r):
    """`bert` with BertForMaskedLM's head: cls.predictions.transform (dense, erf GELU, LayerNorm
    in the legacy gamma/beta names), the decoder tied to the word embeddings, and its bias."""
    cfg, t = build_bert(r)
    d, V = cfg["hidden_size"], cfg["vocab_size"]
    t["cls.predictions.transform.dense.weight"] = r.linear(d, d)
    t["cls.predictions.transform.dense.bias"] = r.bias(d)
    t["cls.predictions.transform.LayerNorm.gamma"] = r.norm(d)
    t["cls.predictions.transform.LayerNorm.beta"] = r.bias(d)
    return cfg, t


# name, builder, stored dtype, prefix to strip, special ids (bos first / (cls, sep) / eos last)
CHECKPOINTS = [
    ("gpt2", build_gpt2, "F32", "", {}),
    ("gpt2-f16", build_gpt2, "F16", "", {}),
    ("bert", build_bert, "F32", "bert.", {"cls": 2, "sep": 3}),
    ("llama", build_llama, "F32", "model.", {"bos": 1}),
    ("llama-bf16", build_llama, "BF16", "model.", {"bos": 1}),
    ("llama-plain", build_llama_plain, "F32", "model.", {"bos": 1}),
    ("mistral", build_mistral, "F32", "model.", {"bos": 1}),
    ("qwen2", build_qwen2, "F32", "model.", {}),
    ("bloom", build_bloom, "F32", "transformer.", {}),
    ("t5", build_t5, "F32", "", {"eos": 1}),
    # added later: appended, so that the seeds (and bytes) of the folders above stay as they were
    ("gpt-neox", more.build_gpt_neox, "F32", "gpt_neox.", {}),
    ("gpt-neox-seq", more.build_gpt_neox_seq, "F32", "gpt_neox.", {}),
    ("gemma2", more.build_gemma2, "F32", "model.", {"bos": 2}),
    ("gemma2-bf16", more.build_gemma2, "BF16", "model.", {"bos": 2}),
    ("gemma3", more.build_gemma3, "F32", "model.", {"bos": 2}),
    ("qwen3", more.build_qwen3, "F32", "model.", {}),
    ("qwen3-yarn", more.build_qwen3_yarn, "F32", "model.", {}),
    ("phi3", more.build_phi3, "F32", "model.", {"bos": 1}),
    ("olmo2", more.build_olmo2, "F32", "model.", {}),
    ("olmo2-yarn", more.build_olmo2_yarn, "F32", "model.", {}),
    ("gemma2-layer-types", more.build_gemma2_layer_types, "F32", "model.", {"bos": 2}),
    ("bert-mlm", build_bert_mlm, "F32", "bert.", {"cls": 2, "sep": 3}),
]
LENGTHS = (1, 7, 16)  # the model's own specials included
CAUSAL = {"gpt2", "llama", "mistral", "qwen2", "bloom", "gpt_neox", "gemma2", "gemma3_text",
          "qwen3", "phi3", "olmo2"}
FORWARDS = dict(hf_reference.FORWARDS, **hf_reference_more.FORWARDS)
# buffers some files carry besides the weights, by name ending, kept in their own dtype
BUFFERS = {"attn.bias": "F32", "attention.bias": "BOOL", "attention.masked_bias": "F32",
           "rotary_emb.inv_freq": "F32"}


def sequences(vocab, special, seed):
    """Fixed id sequences of LENGTHS tokens: special tokens where the tokenizer adds them, the
    rest drawn from ids 4 .. vocab - 3 (never a special id)."""
    g = np.random.default_rng(seed)
    out = []
    for n in LENGTHS:
        body = n - ("bos" in special) - ("eos" in special) - 2 * ("cls" in special)
        if body < 0:
            body, n = 0, n + 2  # BERT: [CLS] [SEP] is the shortest
        ids = [int(v) for v in g.integers(4, vocab - 2, size=body)]
        if "bos" in special:
            ids = [special["bos"]] + ids
        if "eos" in special:
            ids = ids + [special["eos"]]
        if "cls" in special:
            ids = [special["cls"]] + ids + [special["sep"]]
        out.append(ids)
    return out


def strip(tensors, prefix):
    """The names the forward uses: the class prefix removed, BERT's legacy LayerNorm.gamma and
    .beta read as .weight and .bias (as Hugging Face's loader renames them)."""
    out = {}
    for k, v in tensors.items():
        k = k[len(prefix):] if prefix and k.startswith(prefix) else k
        if "LayerNorm." in k:
            k = k.replace(".gamma", ".weight").replace(".beta", ".bias")
        out[k] = v
    return out


def top_next(logits, k=10):
    probs = torch.softmax(torch.from_numpy(logits[-1]), dim=-1)
    values, ids = torch.topk(probs, k)
    return ids.numpy().astype(np.int64), values.numpy()


def make(index, name, builder, stored, prefix, special):
    folder = os.path.join(HERE, name)
    os.makedirs(folder, exist_ok=True)
    # a copy (same builder, another stored dtype) draws the weights of the first checkpoint
    seed = SEED + [c[1] for c in CHECKPOINTS].index(builder)
    cfg, tensors = builder(Draw(seed))
    cfg = dict(cfg, torch_dtype={"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[stored])
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    path = os.path.join(folder, "model.safetensors")
    dtypes = {k: next((v for end, v in BUFFERS.items() if k.endswith(end)), stored) for k in tensors}
    safetensors_numpy.write(path, tensors, dtypes)
    stored_tensors, _ = safetensors_numpy.read(path)  # the widened values, as a reader sees them
    model_type = cfg["model_type"]
    manifest = {"checkpoint": name, "model_type": model_type, "stored_dtype": stored,
                "expected": []}
    for ids in sequences(cfg["vocab_size"], special, seed):
        for dtype in (torch.float32, torch.float64):
            W = {k: torch.from_numpy(v).to(dtype) for k, v in strip(stored_tensors, prefix).items()}
            out = FORWARDS[model_type](cfg, W, torch.tensor(ids))
            arrays = {"ids": np.array(ids, np.int64)}
            arrays.update({k: v for k, v in out.items() if k != "logits"})
            if model_type in CAUSAL:
                arrays["next_ids"], arrays["next_probs"] = top_next(out["logits"])
            label = "float32" if dtype == torch.float32 else "float64"
            file = f"expected_n{len(ids)}_{label}.npz"
            np.savez(os.path.join(folder, file), **arrays)
            manifest["expected"].append({"file": file, "dtype": label, "ids": ids})
            if dtype == torch.float32:
                w = out["weights"]
                n = len(ids)
                entropy = -(np.where(w > 0, w * np.log(np.where(w > 0, w, 1)), 0)).sum(-1).mean()
                print(f"{name:12s} n={n:2d} mean row entropy {entropy:.3f} (uniform over n: "
                      f"{math.log(n):.3f}), mean max weight {w.max(-1).mean():.3f}")
            if dtype == torch.float32 and len(ids) == LENGTHS[-1]:
                effects(name, cfg, W, ids, out)
    entries = ",\n".join("  " + json.dumps(e) for e in manifest.pop("expected"))
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        f.write(json.dumps(manifest)[:-1] + ',\n "expected": [\n' + entries + "\n ]\n}\n")


def effects(name, cfg, W, ids, out):
    """Prints how much the sliding window and the soft-caps change the 16-token forward: the
    largest weight difference with each switched off (and the next-token probabilities for the
    final cap), so that a reader that ignores one of them fails the references."""
    changes = []
    for key, label in (("sliding_window", "window"), ("attn_logit_softcapping", "attention cap"),
                       ("final_logit_softcapping", "final cap")):
        if cfg.get(key) is None or (key == "sliding_window" and cfg["model_type"] in ("mistral", "qwen2")):
            continue
        other = FORWARDS[cfg["model_type"]](dict(cfg, **{key: None}), W, torch.tensor(ids))
        weights = np.abs(other["weights"] - out["weights"]).max(axis=(1, 2, 3))
        probs = np.abs(torch.softmax(torch.from_numpy(other["logits"][-1]), -1).numpy()
                       - torch.softmax(torch.from_numpy(out["logits"][-1]), -1).numpy()).max()
        changes.append(f"{label}: weights by layer " + " ".join(f"{v:.3f}" for v in weights)
                       + f", next probabilities {probs:.3f}")
    for c in changes:
        print(f"{name:12s} n={len(ids):2d} without the {c}")


def main():
    torch.set_num_threads(1)
    names = set(sys.argv[1:])
    unknown = names - {c[0] for c in CHECKPOINTS}
    if unknown:
        sys.exit("make_references.py: no checkpoint named " + ", ".join(sorted(unknown)))
    for index, spec in enumerate(CHECKPOINTS):
        if not names or spec[0] in names:
            make(index, *spec)
    print("PyTorch", torch.__version__, "numpy", np.__version__)


if __name__ == "__main__":
    main()
