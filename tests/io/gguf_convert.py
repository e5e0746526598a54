"""llama.cpp's convert_hf_to_gguf.py for the tests' tiny checkpoints (tests/data/models), written
by ggml's own writer and quantized by ggml's own quantizer through tests/io/ggml_reference.py
(which needs $ATTN_GGML_LIBDIR): its tensor names from gguf-py's tensor_mapping, its `<arch>.*`
keys, GPT-2's Conv1D weights transposed, `llama` q and k rows permuted for interleaved RoPE and
its llama3 scaling written as rope_freqs, Gemma's norms stored + 1, 1-D tensors kept F32; a
matrix whose rows are not whole blocks of a quantized type stays F16, as llama-quantize falls
back. Used by tests/io/gguf_model_check.py and gguf_llama_logits_check.py.
"""
import json
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "data", "models"))
from ggml_reference import ggml_quantize_chunk, to_float, write  # noqa: E402
import safetensors_numpy  # noqa: E402

F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K = 0, 1, 2, 3, 6, 7, 8, 12, 13, 14
# ggml-common.h: values and bytes per block
BLOCK = {Q4_0: (32, 18), Q4_1: (32, 20), Q5_0: (32, 22), Q5_1: (32, 24), Q8_0: (32, 34),
         Q4_K: (256, 144), Q5_K: (256, 176), Q6_K: (256, 210)}
U32, F32V, STR = 4, 6, 8

# gguf-py's tensor_mapping for these families: HF name (prefix dropped) -> GGUF name
COMMON = {"embed_tokens": "token_embd", "norm": "output_norm", "lm_head": "output",
          "layers.{}.input_layernorm": "blk.{}.attn_norm",
          "layers.{}.self_attn.q_proj": "blk.{}.attn_q", "layers.{}.self_attn.k_proj": "blk.{}.attn_k",
          "layers.{}.self_attn.v_proj": "blk.{}.attn_v",
          "layers.{}.self_attn.o_proj": "blk.{}.attn_output",
          "layers.{}.self_attn.q_norm": "blk.{}.attn_q_norm",
          "layers.{}.self_attn.k_norm": "blk.{}.attn_k_norm",
          "layers.{}.self_attn.qkv_proj": "blk.{}.attn_qkv",
          "layers.{}.mlp.gate_proj": "blk.{}.ffn_gate", "layers.{}.mlp.up_proj": "blk.{}.ffn_up",
          "layers.{}.mlp.gate_up_proj": "blk.{}.ffn_up",
          "layers.{}.mlp.down_proj": "blk.{}.ffn_down",
          "layers.{}.post_attention_layernorm": "blk.{}.ffn_norm"}
GEMMA = dict(COMMON, **{"layers.{}.post_attention_layernorm": "blk.{}.post_attention_norm",
                        "layers.{}.pre_feedforward_layernorm": "blk.{}.ffn_norm",
                        "layers.{}.post_feedforward_layernorm": "blk.{}.post_ffw_norm"})
GPT2 = {"wte": "token_embd", "wpe": "position_embd", "ln_f": "output_norm",
        "h.{}.ln_1": "blk.{}.attn_norm", "h.{}.attn.c_attn": "blk.{}.attn_qkv",
        "h.{}.attn.c_proj": "blk.{}.attn_output", "h.{}.ln_2": "blk.{}.ffn_norm",
        "h.{}.mlp.c_fc": "blk.{}.ffn_up", "h.{}.mlp.c_proj": "blk.{}.ffn_down"}
ARCH = {"gpt2": ("gpt2", GPT2), "llama": ("llama", COMMON), "qwen2": ("qwen2", COMMON),
        "qwen3": ("qwen3", COMMON), "gemma2": ("gemma2", GEMMA), "gemma3_text": ("gemma3", GEMMA),
        "phi3": ("phi3", COMMON),
        # MistralForCausalLM is converted by LlamaModel: a llama file, its sliding window dropped
        "mistral": ("llama", COMMON)}


def gguf_name(table, hf):
    for prefix in ("model.", "transformer.", ""):
        if not hf.startswith(prefix):
            continue
        stem, _, suffix = hf[len(prefix):].rpartition(".")
        parts = stem.split(".")
        layer = next((p for p in parts if p.isdigit()), None)
        key = ".".join("{}" if p == layer else p for p in parts)
        if key in table:
            return table[key].replace("{}", layer or "") + "." + suffix
    raise KeyError(hf)


def permute(w, heads):
    """convert_hf_to_gguf's LlamaModel.permute: within each head, rows [0, hd/2) and [hd/2, hd)
    interleaved."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute(w, heads):
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def llama3_factors(c, s):
    """LlamaModel.generate_extra_tensors: the divisor of each inverse frequency (float32)."""
    dim = c.get("head_dim", c["hidden_size"] // c["num_attention_heads"])
    base = np.float32(c.get("rope_theta", 10000.0))
    freqs = np.float32(1) / base ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim))
    factor, low, high = s.get("factor", 8.0), s.get("low_freq_factor", 1.0), s.get("high_freq_factor", 4.0)
    old = s.get("original_max_position_embeddings", 8192)
    out = []
    for freq in freqs:
        wavelen = 2 * np.pi / float(freq)
        if wavelen < old / high:
            out.append(1)
        elif wavelen > old / low:
            out.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def metadata(arch, c):
    """The converter's `<arch>.*` keys for a config c (set_gguf_parameters)."""
    a, kv = arch, []
    def u(k, v): kv.append((f"{a}.{k}", U32, int(v)))
    def f(k, v): kv.append((f"{a}.{k}", F32V, float(v)))
    if arch == "gpt2":
        u("block_count", c["n_layer"]); u("context_length", c["n_ctx"])
        u("embedding_length", c["n_embd"]); u("feed_forward_length", 4 * c["n_embd"])
        u("attention.head_count", c["n_head"]); f("attention.layer_norm_epsilon", c["layer_norm_epsilon"])
        return kv
    u("block_count", c["num_hidden_layers"]); u("context_length", c["max_position_embeddings"])
    u("embedding_length", c["hidden_size"]); u("feed_forward_length", c["intermediate_size"])
    u("attention.head_count", c["num_attention_heads"])
    u("attention.head_count_kv", c.get("num_key_value_heads", c["num_attention_heads"]))
    f("attention.layer_norm_rms_epsilon", c["rms_norm_eps"])
    if arch != "gemma2":
        f("rope.freq_base", c.get("rope_theta", 10000.0))
    hd = c.get("head_dim", c["hidden_size"] // c["num_attention_heads"])
    if "head_dim" in c:
        u("attention.key_length", hd); u("attention.value_length", hd)
    if arch == "llama":
        u("vocab_size", c["vocab_size"]); u("rope.dimension_count", hd)
        scaling = c.get("rope_scaling") or {}
        if scaling.get("type") == "linear":
            kv.append((f"{a}.rope.scaling.type", STR, "linear")); f("rope.scaling.factor", scaling["factor"])
    if arch in ("gemma2", "gemma3"):
        u("attention.sliding_window", c["sliding_window"])
    if arch == "gemma2":
        f("attn_logit_softcapping", c["attn_logit_softcapping"])
        f("final_logit_softcapping", c["final_logit_softcapping"])
    if arch == "gemma3":
        u("attention.sliding_window_pattern", c.get("sliding_window_pattern", 6))
        if c.get("rope_scaling"):
            kv.append((f"{a}.rope.scaling.type", STR, "linear"))
            f("rope.scaling.factor", c["rope_scaling"]["factor"])
    if arch == "phi3":
        u("rope.scaling.original_context_length", c["original_max_position_embeddings"])
        u("rope.dimension_count", int(c.get("partial_rotary_factor", 1.0) * hd))
        u("attention.sliding_window", c["sliding_window"])
    return kv


def convert(folder, out, qtype, vocab=None):
    """folder's checkpoint -> the GGUF file `out` of qtype (F32, F16 or a quantized type), and
    ggml's dequantization of it under the checkpoint's names: {hf: float32}. vocab: the
    tokenizer's (metadata, arrays) to write too (tiny_vocab)."""
    c = json.load(open(os.path.join(folder, "config.json")))
    arch, table = ARCH[c["model_type"]]
    tensors, _ = safetensors_numpy.read(os.path.join(folder, "model.safetensors"))
    heads, kv_heads = c.get("num_attention_heads"), c.get("num_key_value_heads")
    written, back = [], {}
    for hf, w in tensors.items():
        if hf.endswith((".attn.bias", ".attn.masked_bias")):
            continue
        name = gguf_name(table, hf)
        data = w.astype(np.float32)
        if arch == "gpt2" and hf.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight")):
            data = data.T
        if arch == "llama" and hf.endswith(("q_proj.weight", "q_proj.bias")):
            data = permute(data, heads)
        if arch == "llama" and hf.endswith(("k_proj.weight", "k_proj.bias")):
            data = permute(data, kv_heads or heads)
        if arch.startswith("gemma") and hf.endswith("norm.weight"):
            data = data + np.float32(1)
        data = np.ascontiguousarray(data, dtype=np.float32)
        t = F32 if data.ndim == 1 or qtype == F32 else F16
        if qtype in BLOCK and data.ndim == 2 and data.shape[1] % BLOCK[qtype][0] == 0:
            t = qtype
        if t == F32:
            raw = data.view(np.uint8)
        elif t == F16:
            raw = data.astype(np.float16).view(np.uint8)
        else:
            rows, cols = data.shape
            raw = np.zeros(rows * cols // BLOCK[t][0] * BLOCK[t][1], dtype=np.uint8)
            ggml_quantize_chunk(t, data.ctypes.data, raw.ctypes.data, 0, rows, cols, None)
        written.append((name, t, list(reversed(data.shape)), raw))
        if name == "token_embd.weight" and arch == "gpt2":  # the converter's tied output
            written.append(("output.weight", t, list(reversed(data.shape)), raw))
        d = to_float(t, raw, data.size).reshape(data.shape)
        if arch == "gpt2" and hf.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight")):
            d = d.T
        if arch == "llama" and hf.endswith(("q_proj.weight", "q_proj.bias")):
            d = unpermute(d, heads)
        if arch == "llama" and hf.endswith(("k_proj.weight", "k_proj.bias")):
            d = unpermute(d, kv_heads or heads)
        if arch.startswith("gemma") and hf.endswith("norm.weight"):
            d = d - np.float32(1)
        back[hf] = np.ascontiguousarray(d, dtype=np.float32)
    scaling = c.get("rope_scaling") or {}
    if arch == "llama" and scaling.get("rope_type") == "llama3":  # generate_extra_tensors
        factors = llama3_factors(c, scaling)
        written.append(("rope_freqs.weight", F32, [factors.size], factors.view(np.uint8)))
    meta = [("general.architecture", STR, arch), ("general.name", STR, "tiny " + arch)]
    vocab_meta, vocab_arrays = vocab or ([], [])
    write(out, written, meta + metadata(arch, c) + vocab_meta, vocab_arrays)
    return back


def tiny_vocab(folder):
    """A tokenizer for a tiny checkpoint, so that llama.cpp loads its file (it needs
    tokenizer.ggml.* with one token per row of token_embd): for llama, Gemma and Phi-3 a
    SentencePiece vocabulary (<unk> <s> </s>, Phi-3's <|endoftext|>, then one character per
    token: llama.cpp looks those up by name in a model named phi3), for the others a byte-level
    BPE one (printable ASCII, Ġ, Ċ ...; no merges) with the pre-tokenizer its converter names."""
    c = json.load(open(os.path.join(folder, "config.json")))
    arch, n = ARCH[c["model_type"]][0], c["vocab_size"]
    chars = [chr(i) for i in range(33, 127)] + [chr(i) for i in range(0x100, 0x100 + n)]
    if arch in ("llama", "gemma2", "gemma3", "phi3"):
        control = ["<s>", "</s>"] + (["<|endoftext|>"] if arch == "phi3" else [])
        tokens = ["<unk>"] + control + chars[:n - 1 - len(control)]
        types = [2] + [3] * len(control) + [1] * (n - 1 - len(control))
        return ([("tokenizer.ggml.model", STR, "llama"), ("tokenizer.ggml.pre", STR, "default")],
                [("tokenizer.ggml.tokens", STR, tokens), ("tokenizer.ggml.scores", F32V, [0.0] * n),
                 ("tokenizer.ggml.token_type", 5, types)])
    pre = "qwen2" if arch.startswith("qwen") else "gpt-2"
    return ([("tokenizer.ggml.model", STR, "gpt2"), ("tokenizer.ggml.pre", STR, pre)],
            [("tokenizer.ggml.tokens", STR, chars[:n]), ("tokenizer.ggml.token_type", 5, [1] * n),
             ("tokenizer.ggml.merges", STR, [])])

