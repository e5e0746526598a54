"""attn's --model FILE.gguf and ollama:NAME against the safetensors checkpoints they come from
(tests/cli/gguf_model_test.sh).

    gguf_model_check.py LIBDIR ATTN MODELS WORK

The tiny checkpoints of MODELS (tests/data/models) are converted to GGUF here as llama.cpp's
convert_hf_to_gguf.py does (its tensor names from gguf-py's tensor_mapping, its `<arch>.*` keys,
GPT-2's Conv1D weights transposed, `llama` q and k rows permuted for interleaved RoPE and its
llama3 scaling written as rope_freqs, Gemma's norms stored + 1, 1-D tensors kept F32), written
by ggml's own writer and quantized by ggml's own quantizer (ggml_quantize_chunk; a matrix whose
rows are not whole blocks stays F16, as llama-quantize falls back), through
tests/io/ggml_reference.py. Where the converter does not carry a feature of the checkpoint
(longrope's factors, Qwen2's linear scaling, Gemma 2's query_pre_attn_scalar other than
head_dim), the checkpoint's config.json is changed to what the GGUF file says (a folder of WORK
beside a link to its safetensors). Checks,
for each family, `attend --model --ids ... --show weights,hidden`:
  1. F32: equal to the checkpoint's run (weights 1e-5, hidden 1e-5 of max(1, |h|)).
  2. F16, Q8_0, Q4_0: equal to the run on ggml's dequantization of the same file (to_float,
     the converter's layouts undone) written as safetensors; gpt2-f16 in F16 equals its
     checkpoint's run.
  3. An ollama store laid out as ollama does under $OLLAMA_MODELS: ollama:NAME and NAME:TAG give
     the file's run; a model not there exits 1 naming the manifests folder and `ollama pull`.
  4. A truncated file exits 2 naming the first tensor past the end.
  5. Every other quantized type, Q4_1 Q5_0 Q5_1 Q4_K Q5_K Q6_K, on the Llama-shaped checkpoint
     of long_llama.py, whose rows (512 and 1536) are whole blocks of 256 for the K-quants: equal
     to the run on ggml's dequantization, as 2.
"""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np

LIBDIR, ATTN, MODELS, WORK = sys.argv[1:5]
os.environ["ATTN_GGML_LIBDIR"] = LIBDIR
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "data", "models"))
from ggml_reference import ggml_quantize_chunk, ggml_read, to_float, write  # noqa: E402
import safetensors_numpy  # noqa: E402

F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K = 0, 1, 2, 3, 6, 7, 8, 12, 13, 14
# ggml-common.h: values and bytes per block
BLOCK = {Q4_0: (32, 18), Q4_1: (32, 20), Q5_0: (32, 22), Q5_1: (32, 24), Q8_0: (32, 34),
         Q4_K: (256, 144), Q5_K: (256, 176), Q6_K: (256, 210)}
U32, F32V, STR = 4, 6, 8
IDS = "47,34,48,83,54,50,67,51,86,69,83,44"

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
        "phi3": ("phi3", COMMON)}
# what each test checkpoint's config must say for the GGUF file to hold the same model
CHANGES = {"qwen2": {"rope_scaling": None}, "phi3": {"rope_scaling": None},
           "gemma2": {"query_pre_attn_scalar": 12}}


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


def convert(folder, out, qtype):
    """folder's checkpoint -> the GGUF file `out` of qtype (F32, F16 or a quantized type), and
    ggml's dequantization of it under the checkpoint's names: {hf: float32}."""
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
    write(out, written, meta + metadata(arch, c), [])
    return back


def attend(model, out, extra=()):
    r = subprocess.run([ATTN, "attend", "--model", model, "--ids", IDS, "--show", "weights,hidden",
                        "-o", out, *extra], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: attend --model {model} exited {r.returncode}: {r.stderr}")
    return np.load(out)


def close(what, got, want):
    for key, bound in (("weights", 1e-5), ("hidden", 1e-5)):
        scale = 1.0 if key == "weights" else max(1.0, float(np.abs(want[key]).max()))
        err = float(np.abs(got[key].astype(np.float64) - want[key]).max())
        if got[key].shape != want[key].shape or not err < bound * scale:
            raise SystemExit(f"FAIL: {what}: {key} differs by {err} (shape {got[key].shape})")
    print(f"ok {what}")


def variant(name):
    """The checkpoint `name`, its config changed to what a converted file holds."""
    src = os.path.join(MODELS, name)
    c = json.load(open(os.path.join(src, "config.json")))
    if c["model_type"] in CHANGES or name in CHANGES:
        c.update(CHANGES.get(name, {}))
        dst = os.path.join(WORK, name + "-gguf")
        os.makedirs(dst, exist_ok=True)
        json.dump(c, open(os.path.join(dst, "config.json"), "w"))
        link = os.path.join(dst, "model.safetensors")
        if not os.path.exists(link):
            os.symlink(os.path.abspath(os.path.join(src, "model.safetensors")), link)
        return dst
    return src


for name in ["gpt2", "llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3"]:
    folder = variant(name)
    base = attend(folder, f"{WORK}/{name}.npz")
    for label, qtype in (("F32", F32), ("F16", F16), ("Q8_0", Q8_0), ("Q4_0", Q4_0)):
        path = f"{WORK}/{name}-{label}.gguf"
        back = convert(folder, path, qtype)
        got = attend(path, f"{WORK}/{name}-{label}.npz")
        if qtype == F32:
            close(f"{name} F32 GGUF = checkpoint", got, base)
        ref = os.path.join(WORK, f"{name}-{label}-dequantized")
        os.makedirs(ref, exist_ok=True)
        json.dump(json.load(open(os.path.join(folder, "config.json"))),
                  open(os.path.join(ref, "config.json"), "w"))
        safetensors_numpy.write(os.path.join(ref, "model.safetensors"), back)
        close(f"{name} {label} GGUF = ggml's dequantization", got, attend(ref, f"{ref}.npz"))

# gpt2-f16: F16 weights are exact in an F16 file
back = convert(os.path.join(MODELS, "gpt2-f16"), f"{WORK}/gpt2-f16.gguf", F16)
close("gpt2-f16 F16 GGUF = checkpoint", attend(f"{WORK}/gpt2-f16.gguf", f"{WORK}/g16.npz"),
      attend(os.path.join(MODELS, "gpt2-f16"), f"{WORK}/g16-ref.npz"))

# 3. ollama's store: manifests/registry.ollama.ai/library/NAME/TAG, blobs/sha256-<hex>
store = os.path.join(WORK, "ollama")
blob = open(f"{WORK}/qwen3-Q8_0.gguf", "rb").read()
digest = hashlib.sha256(blob).hexdigest()
os.makedirs(os.path.join(store, "blobs"), exist_ok=True)
open(os.path.join(store, "blobs", "sha256-" + digest), "wb").write(blob)
for tag in ("latest", "q8"):
    mdir = os.path.join(store, "manifests", "registry.ollama.ai", "library", "tiny-qwen3")
    os.makedirs(mdir, exist_ok=True)
    json.dump({"schemaVersion": 2, "layers": [
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "0" * 64,
         "size": 10},
        {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + digest,
         "size": len(blob)}]}, open(os.path.join(mdir, tag), "w"))
os.environ["OLLAMA_MODELS"] = store
want = np.load(f"{WORK}/qwen3-Q8_0.npz")
close("ollama:tiny-qwen3", attend("ollama:tiny-qwen3", f"{WORK}/o1.npz"), want)
close("ollama:tiny-qwen3:q8", attend("ollama:tiny-qwen3:q8", f"{WORK}/o2.npz"), want)
r = subprocess.run([ATTN, "attend", "--model", "ollama:absent", "--ids", "1"], capture_output=True,
                   text=True)
folder = os.path.join(store, "manifests", "registry.ollama.ai", "library")
if r.returncode != 1 or folder not in r.stderr or "ollama pull absent" not in r.stderr or r.stdout:
    raise SystemExit(f"FAIL: ollama:absent exited {r.returncode}: {r.stderr}")
print("ok ollama:absent exits 1 naming the folder and `ollama pull`")

# 4. a truncated file names the first tensor, in file order, past the end
cut = f"{WORK}/cut.gguf"
whole = open(f"{WORK}/llama-F32.gguf", "rb").read()
info = ggml_read(f"{WORK}/llama-F32.gguf")
last = min((t for t in info["tensors"]
            if info["data_offset"] + t["offset"] + t["bytes"] > len(whole) - 300),
           key=lambda t: t["offset"])["name"]
open(cut, "wb").write(whole[:-300])
r = subprocess.run([ATTN, "attend", "--model", cut, "--ids", "1"], capture_output=True, text=True)
if r.returncode != 2 or f"tensor '{last}'" not in r.stderr or cut not in r.stderr or r.stdout:
    raise SystemExit(f"FAIL: a truncated file exited {r.returncode}: {r.stderr}")
print("ok a truncated GGUF exits 2 naming its tensor")

# 5. the other quantized types, on rows that are whole blocks of 256
long_llama = os.path.join(WORK, "long-llama")
subprocess.run([sys.executable, os.path.join(MODELS, "long_llama.py"), long_llama], check=True)
for label, qtype in (("Q4_1", Q4_1), ("Q5_0", Q5_0), ("Q5_1", Q5_1), ("Q4_K", Q4_K),
                     ("Q5_K", Q5_K), ("Q6_K", Q6_K)):
    path = f"{WORK}/long-llama-{label}.gguf"
    back = convert(long_llama, path, qtype)
    quantized = sum(t["type"] == qtype for t in ggml_read(path)["tensors"])
    if quantized != 16:  # the embedding, the output and each layer's 7 matrices
        raise SystemExit(f"FAIL: {label}: {quantized} tensors of the type, not 16")
    ref = os.path.join(WORK, f"long-llama-{label}-dequantized")
    os.makedirs(ref, exist_ok=True)
    json.dump(json.load(open(os.path.join(long_llama, "config.json"))),
              open(os.path.join(ref, "config.json"), "w"))
    safetensors_numpy.write(os.path.join(ref, "model.safetensors"), back)
    close(f"long-llama {label} GGUF = ggml's dequantization",
          attend(path, f"{WORK}/long-llama-{label}.npz"), attend(ref, f"{ref}.npz"))
