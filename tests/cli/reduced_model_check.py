"""attn attend --model M --dtype bfloat16|float16 against PyTorch's forward with the model cast
to that dtype (tests/data/reduced/model_*.npz, made by make_attend_model.py): the ulps of the
dtype between attn's and PyTorch's weights, scores and hidden states, counted exactly on the
bit patterns, per layer. Prints them; with --bounds FILE.json asserts each checkpoint's limits.
Usage: reduced_model_check.py ATTN DATA_DIR MODELS_DIR WORK_DIR [--bounds FILE]"""
import glob
import json
import os
import subprocess
import sys

import numpy as np

attn, data, models, work = sys.argv[1:5]
bounds = json.load(open(sys.argv[6])) if len(sys.argv) > 6 and sys.argv[5] == "--bounds" else None


def order(v, dtype):
    """Each value's bit pattern as an integer counting ulps (negatives mirrored)."""
    if dtype == "bfloat16":
        bits = v.astype(np.float32).view(np.uint32)
        assert not np.any(bits & 0xFFFF), "a bfloat16 array holds a value that is not bfloat16"
        bits = (bits >> 16).astype(np.int64)
    else:
        bits = v.astype(np.float16).view(np.uint16).astype(np.int64)
    return np.where(bits >> 15 == 1, -(bits & 0x7FFF), bits)


failed = False
files = sorted(glob.glob(os.path.join(data, "model_*_*.npz")))
assert len(files) == 42, f"reference files missing in {data}"
for path in files:
    base = os.path.basename(path)[len("model_"):-4]
    name, dtype = base.rsplit("_", 1)
    ref = np.load(path)
    out = os.path.join(work, base + ".npz")
    ids = ",".join(str(i) for i in ref["ids"])
    subprocess.run([attn, "attend", "--model", os.path.join(models, name), "--ids", ids,
                    "--dtype", dtype, "--show", "weights,scores,hidden", "-o", out], check=True)
    got = np.load(out)
    line = []
    worst = {}
    for key in ("weights", "scores", "hidden"):
        a, b = got[key], ref[key]
        if a.dtype != (np.float16 if dtype == "float16" else np.float32) or a.shape != b.shape:
            print(f"{base} {key}: {a.dtype} {a.shape}, want {b.shape}")
            failed = True
            continue
        u = np.abs(order(a, dtype) - order(b, dtype))
        per_layer = [int(u[k].max()) for k in range(u.shape[0])]
        worst[key] = per_layer
        line.append(f"{key} {per_layer}")
    print(f"{base}: max ulps per layer: " + "; ".join(line))
    if bounds is not None:
        for key, per_layer in worst.items():
            limit = bounds[name][dtype][key]
            for k, v in enumerate(per_layer):
                if v > limit[min(k, len(limit) - 1)]:
                    print(f"FAIL {base} {key} layer {k}: {v} ulps, bound {limit}")
                    failed = True
sys.exit(1 if failed else 0)
