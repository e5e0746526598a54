"""Tiny random checkpoints of the seven families in Hugging Face's naming and layout, written
with numpy alone (tests/support/safetensors.py), for the reader's tests.

    /usr/bin/python3 tiny_checkpoint.py FAMILY DIR [--dtype F32|F16|BF16] [--shards K]
        [--prefix] [--set KEY=JSON ...] [--hub HUB --repo ORG/NAME]

writes DIR/config.json and DIR/model.safetensors (or K shards and the index); with --hub, the
files go into a fake cache tree HUB/models--ORG--NAME instead (DIR is then only a staging
folder). --prefix names the tensors as the *ForCausalLM / *ForMaskedLM classes save them
(transformer., bert., model.). --set overrides a config key (e.g. --set n_positions=64).
Names and shapes follow transformers' modeling_<family>.py (nn.Linear (out, in), GPT-2's Conv1D
(in, out)); the tensor names are written here independently of attn's own list.
"""

import argparse
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors as st  # noqa: E402

CONFIGS = {
    "gpt2": {"model_type": "gpt2", "vocab_size": 50, "n_embd": 16, "n_layer": 2, "n_head": 4,
             "n_positions": 32, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"},
    "bert": {"model_type": "bert", "vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2,
             "num_attention_heads": 4, "intermediate_size": 24, "max_position_embeddings": 24,
             "type_vocab_size": 2},
    "llama": {"model_type": "llama", "vocab_size": 48, "hidden_size": 16,
              "intermediate_size": 40, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "max_position_embeddings": 64, "rope_theta": 10000.0,
              "tie_word_embeddings": False},
    "mistral": {"model_type": "mistral", "vocab_size": 48, "hidden_size": 16,
                "intermediate_size": 40, "num_hidden_layers": 2, "num_attention_heads": 4,
                "num_key_value_heads": 2, "head_dim": 8, "sliding_window": 4,
                "rope_theta": 1000000.0, "tie_word_embeddings": False},
    "qwen2": {"model_type": "qwen2", "vocab_size": 48, "hidden_size": 16,
              "intermediate_size": 40, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 1, "rope_theta": 1000000.0, "tie_word_embeddings": True,
              "rope_scaling": {"type": "yarn", "factor": 4.0,
                               "original_max_position_embeddings": 32}},
    "bloom": {"model_type": "bloom", "vocab_size": 40, "hidden_size": 24, "n_layer": 2,
              "n_head": 6},
    "t5": {"model_type": "t5", "vocab_size": 40, "d_model": 16, "d_kv": 6, "d_ff": 24,
           "num_layers": 2, "num_heads": 3, "relative_attention_num_buckets": 8,
           "relative_attention_max_distance": 20, "feed_forward_proj": "gated-gelu"},
}

PREFIX = {"gpt2": "transformer.", "bert": "bert.", "llama": "model.", "mistral": "model.",
          "qwen2": "model.", "bloom": "transformer.", "t5": ""}


def shapes(family, c):
    """name -> shape of every tensor the family's base model holds, in save order."""
    out = {}
    if family == "gpt2":
        d, inner = c["n_embd"], c.get("n_inner") or 4 * c["n_embd"]
        out["wte.weight"] = (c["vocab_size"], d)
        out["wpe.weight"] = (c["n_positions"], d)
        for i in range(c["n_layer"]):
            h = "h.%d." % i
            out[h + "ln_1.weight"] = out[h + "ln_1.bias"] = (d,)
            out[h + "attn.bias"] = (1, 1, c["n_positions"], c["n_positions"])  # unused buffer
            out[h + "attn.c_attn.weight"], out[h + "attn.c_attn.bias"] = (d, 3 * d), (3 * d,)
            out[h + "attn.c_proj.weight"], out[h + "attn.c_proj.bias"] = (d, d), (d,)
            out[h + "ln_2.weight"] = out[h + "ln_2.bias"] = (d,)
            out[h + "mlp.c_fc.weight"], out[h + "mlp.c_fc.bias"] = (d, inner), (inner,)
            out[h + "mlp.c_proj.weight"], out[h + "mlp.c_proj.bias"] = (inner, d), (d,)
        out["ln_f.weight"] = out["ln_f.bias"] = (d,)
    elif family == "bert":
        d, inner = c["hidden_size"], c["intermediate_size"]
        out["embeddings.word_embeddings.weight"] = (c["vocab_size"], d)
        out["embeddings.position_embeddings.weight"] = (c["max_position_embeddings"], d)
        out["embeddings.token_type_embeddings.weight"] = (c["type_vocab_size"], d)
        out["embeddings.LayerNorm.gamma"] = out["embeddings.LayerNorm.beta"] = (d,)
        for i in range(c["num_hidden_layers"]):
            l = "encoder.layer.%d." % i
            for p in ("query", "key", "value"):
                out[l + "attention.self.%s.weight" % p] = (d, d)
                out[l + "attention.self.%s.bias" % p] = (d,)
            out[l + "attention.output.dense.weight"] = (d, d)
            out[l + "attention.output.dense.bias"] = (d,)
            out[l + "attention.output.LayerNorm.weight"] = (d,)
            out[l + "attention.output.LayerNorm.bias"] = (d,)
            out[l + "intermediate.dense.weight"] = (inner, d)
            out[l + "intermediate.dense.bias"] = (inner,)
            out[l + "output.dense.weight"], out[l + "output.dense.bias"] = (d, inner), (d,)
            out[l + "output.LayerNorm.weight"] = out[l + "output.LayerNorm.bias"] = (d,)
        out["pooler.dense.weight"], out["pooler.dense.bias"] = (d, d), (d,)  # unused
    elif family in ("llama", "mistral", "qwen2"):
        d, inner = c["hidden_size"], c["intermediate_size"]
        heads = c["num_attention_heads"]
        hd = c.get("head_dim") or d // heads
        kv = c.get("num_key_value_heads", heads)
        out["embed_tokens.weight"] = (c["vocab_size"], d)
        for i in range(c["num_hidden_layers"]):
            l = "layers.%d." % i
            out[l + "input_layernorm.weight"] = (d,)
            out[l + "self_attn.q_proj.weight"] = (heads * hd, d)
            out[l + "self_attn.k_proj.weight"] = (kv * hd, d)
            out[l + "self_attn.v_proj.weight"] = (kv * hd, d)
            if family == "qwen2":
                out[l + "self_attn.q_proj.bias"] = (heads * hd,)
                out[l + "self_attn.k_proj.bias"] = (kv * hd,)
                out[l + "self_attn.v_proj.bias"] = (kv * hd,)
            out[l + "self_attn.o_proj.weight"] = (d, heads * hd)
            out[l + "post_attention_layernorm.weight"] = (d,)
            out[l + "mlp.gate_proj.weight"] = out[l + "mlp.up_proj.weight"] = (inner, d)
            out[l + "mlp.down_proj.weight"] = (d, inner)
        out["norm.weight"] = (d,)
    elif family == "bloom":
        d = c["hidden_size"]
        out["word_embeddings.weight"] = (c["vocab_size"], d)
        out["word_embeddings_layernorm.weight"] = out["word_embeddings_layernorm.bias"] = (d,)
        for i in range(c["n_layer"]):
            h = "h.%d." % i
            out[h + "input_layernorm.weight"] = out[h + "input_layernorm.bias"] = (d,)
            out[h + "self_attention.query_key_value.weight"] = (3 * d, d)
            out[h + "self_attention.query_key_value.bias"] = (3 * d,)
            out[h + "self_attention.dense.weight"], out[h + "self_attention.dense.bias"] = (d, d), (d,)
            out[h + "post_attention_layernorm.weight"] = (d,)
            out[h + "post_attention_layernorm.bias"] = (d,)
            out[h + "mlp.dense_h_to_4h.weight"], out[h + "mlp.dense_h_to_4h.bias"] = (4 * d, d), (4 * d,)
            out[h + "mlp.dense_4h_to_h.weight"], out[h + "mlp.dense_4h_to_h.bias"] = (d, 4 * d), (d,)
        out["ln_f.weight"] = out["ln_f.bias"] = (d,)
    elif family == "t5":
        d, hd, inner = c["d_model"], c["num_heads"] * c["d_kv"], c["d_ff"]
        out["shared.weight"] = (c["vocab_size"], d)
        for i in range(c["num_layers"]):
            b = "encoder.block.%d.layer." % i
            for p in "qkv":
                out[b + "0.SelfAttention.%s.weight" % p] = (hd, d)
            out[b + "0.SelfAttention.o.weight"] = (d, hd)
            if i == 0:
                out[b + "0.SelfAttention.relative_attention_bias.weight"] = (
                    c["relative_attention_num_buckets"], c["num_heads"])
            out[b + "0.layer_norm.weight"] = (d,)
            if c["feed_forward_proj"].startswith("gated-"):
                out[b + "1.DenseReluDense.wi_0.weight"] = (inner, d)
                out[b + "1.DenseReluDense.wi_1.weight"] = (inner, d)
            else:
                out[b + "1.DenseReluDense.wi.weight"] = (inner, d)
            out[b + "1.DenseReluDense.wo.weight"] = (d, inner)
            out[b + "1.layer_norm.weight"] = (d,)
        out["encoder.final_layer_norm.weight"] = (d,)
    else:
        raise ValueError("family " + family)
    return out


def tensors(family, config, prefix=False, seed=0):
    """name -> float32 array with random values (normal, scale 0.5), Hugging Face's names."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in shapes(family, config).items():
        full = (PREFIX[family] if prefix else "") + name
        out[full] = (0.5 * rng.standard_normal(shape)).astype(np.float32)
    if family in ("llama", "mistral") and not config.get("tie_word_embeddings", True):
        out["lm_head.weight"] = (0.5 * rng.standard_normal(
            (config["vocab_size"], config["hidden_size"]))).astype(np.float32)
    return out


def write(family, folder, dtype="F32", shards=1, prefix=False, overrides=None):
    """config.json and the weights in folder; returns (config, {name: stored values})."""
    config = dict(CONFIGS[family])
    config.update(overrides or {})
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as out:
        json.dump(config, out, indent=2)
    arrays = tensors(family, config, prefix)
    if shards > 1:
        values = st.write_shards(folder, arrays, dtype, shards)
    else:
        values = st.write_file(os.path.join(folder, "model.safetensors"), arrays, dtype)
    return config, values


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("family", choices=sorted(CONFIGS))
    p.add_argument("folder")
    p.add_argument("--dtype", default="F32")
    p.add_argument("--shards", type=int, default=1)
    p.add_argument("--prefix", action="store_true")
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--hub")
    p.add_argument("--repo")
    p.add_argument("--dump", help="write the stored values as an .npz here")
    a = p.parse_args()
    overrides = {}
    for item in a.set:
        key, value = item.split("=", 1)
        overrides[key] = json.loads(value)
    _, values = write(a.family, a.folder, a.dtype, a.shards, a.prefix, overrides)
    if a.dump:
        np.savez(a.dump, **values)
    if a.hub:
        st.fake_cache(a.hub, a.repo, st.folder_files(a.folder))
        shutil.rmtree(a.folder)


if __name__ == "__main__":
    main()
