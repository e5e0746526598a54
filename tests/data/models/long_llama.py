"""Writes a 2-layer Llama-shaped checkpoint for the long-input tests and benchmark: width 512,
8 query heads and 2 key/value heads of 64, intermediate 1536, vocabulary 256, RoPE base 10000,
max_position_embeddings 131072, float32 random weights (about 12 MB), into the folder given.
Usage: long_llama.py FOLDER [LAYERS] [SLIDING_WINDOW]"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_numpy  # noqa: E402

folder = sys.argv[1]
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
window = int(sys.argv[3]) if len(sys.argv) > 3 else 0
d, inter, heads, kv, vocab = 512, 1536, 8, 2, 256
hd = d // heads
config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": d,
          "intermediate_size": inter, "num_hidden_layers": layers, "num_attention_heads": heads,
          "num_key_value_heads": kv, "vocab_size": vocab, "rms_norm_eps": 1e-5,
          "rope_theta": 10000.0, "max_position_embeddings": 131072, "hidden_act": "silu",
          "tie_word_embeddings": False, "torch_dtype": "float32"}
if window:  # Mistral's key: every layer slides
    config["model_type"] = "mistral"
    config["architectures"] = ["MistralForCausalLM"]
    config["sliding_window"] = window
os.makedirs(folder, exist_ok=True)
with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump(config, f)
rng = np.random.default_rng(41)


def linear(out, inp, gain=1.0):
    return (gain * rng.standard_normal((out, inp)) / np.sqrt(inp)).astype(np.float32)


t = {"model.embed_tokens.weight": rng.standard_normal((vocab, d)).astype(np.float32)}
for i in range(layers):
    p = f"model.layers.{i}."
    t[p + "input_layernorm.weight"] = np.ones(d, np.float32)
    t[p + "self_attn.q_proj.weight"] = linear(d, d, 1.8)
    t[p + "self_attn.k_proj.weight"] = linear(kv * hd, d, 1.8)
    t[p + "self_attn.v_proj.weight"] = linear(kv * hd, d)
    t[p + "self_attn.o_proj.weight"] = linear(d, d)
    t[p + "post_attention_layernorm.weight"] = np.ones(d, np.float32)
    t[p + "mlp.gate_proj.weight"] = linear(inter, d)
    t[p + "mlp.up_proj.weight"] = linear(inter, d)
    t[p + "mlp.down_proj.weight"] = linear(d, inter)
t["model.norm.weight"] = np.ones(d, np.float32)
t["lm_head.weight"] = linear(vocab, d)
safetensors_numpy.write(os.path.join(folder, "model.safetensors"), t)
