"""attn's --model FILE.gguf and ollama:NAME against the safetensors checkpoints they come from
(tests/cli/gguf_model_test.sh).

    gguf_model_check.py LIBDIR ATTN MODELS WORK

The tiny checkpoints of MODELS (tests/data/models) are converted to GGUF as llama.cpp's
convert_hf_to_gguf.py does by tests/io/gguf_convert.py (ggml's own writer and quantizer). Where the converter does not carry a feature of the checkpoint
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
from ggml_reference import ggml_read  # noqa: E402
from gguf_convert import (F16, F32, Q4_0, Q4_1, Q4_K, Q5_0, Q5_1, Q5_K, Q6_K, Q8_0,  # noqa: E402
                          convert)
import safetensors_numpy  # noqa: E402

IDS = "47,34,48,83,54,50,67,51,86,69,83,44"

# what each test checkpoint's config must say for the GGUF file to hold the same model
CHANGES = {"qwen2": {"rope_scaling": None}, "phi3": {"rope_scaling": None},
           "gemma2": {"query_pre_attn_scalar": 12}}


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
