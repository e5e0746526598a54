"""Compares `attn attend --model` on the tiny checkpoints of tests/data/models with the
expected values stored beside them (made by make_references.py from PyTorch code written from
each family's published definition), once keeping the n x n arrays (the direct path) and once
without them (the fused kernel). Usage: attend_model_compare.py ATTN MODELS_DIR TMPDIR.

Bounds (per layer, relative to max(1, max |reference|)): weights 1e-5, scores 1e-5, hidden and
context 1e-4, positions 1e-5; `next` top ids equal (ties of equal probability excepted)."""
import json
import os
import subprocess
import sys

import numpy as np

attn, models, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
BOUNDS = {"weights": 1e-5, "scores": 1e-5, "context": 1e-4, "hidden": 1e-4, "positions": 1e-5}
failures = []
checked = 0


def rel_err(got, ref):
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        return float("inf"), f"shape {got.shape} != {ref.shape}"
    worst = 0.0
    for g, r in zip(got.reshape(got.shape[0], -1), ref.reshape(ref.shape[0], -1)):
        worst = max(worst, float(np.max(np.abs(g - r))) / max(1.0, float(np.max(np.abs(r)))))
    return worst, ""


def compare(folder, entry, ref, shows):
    global checked
    label = f"{folder} {entry['file']} ({shows})"
    out = os.path.join(tmp, "out.npz")
    cmd = [attn, "attend", "--model", os.path.join(models, folder), "--ids",
           ",".join(str(i) for i in entry["ids"]), "--show", shows, "--dtype", entry["dtype"],
           "-o", out]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        failures.append(f"{label}: exit {run.returncode}: {run.stderr}")
        return
    got = np.load(out)
    os.remove(out)
    checked += 1
    if not np.array_equal(got["ids"], ref["ids"]) or got["ids"].dtype != np.int64:
        failures.append(f"{label}: ids differ")
    for name, bound in BOUNDS.items():
        if name not in shows.split(","):
            continue
        g = got[name]
        if g.dtype != np.dtype(entry["dtype"]):
            failures.append(f"{label}: {name} is {g.dtype}")
        err, why = rel_err(g, ref[name])
        if not err <= bound:
            failures.append(f"{label}: {name} off by {err:.3g} {why}")
    if folder in SLIDING and "weights" in shows.split(",") and len(entry["ids"]) == 16:
        # query 15 sees keys 12..15 on a sliding layer (window 4), every key on a global one
        w = got["weights"][:, :, 15, :12]
        for layer, sliding in enumerate(SLIDING[folder]):
            if sliding != bool(np.all(w[layer] == 0)):
                failures.append(f"{label}: layer {layer} is not {'sliding' if sliding else 'global'}")
    if "next_ids" in ref:
        nxt = got["next"]  # rank, id, probability
        ids, probs = nxt[:, 1].astype(np.int64), nxt[:, 2]
        if not np.array_equal(ids, ref["next_ids"]):
            # equal probabilities may come in either order
            same = np.allclose(np.sort(probs)[::-1], np.sort(ref["next_probs"])[::-1],
                               rtol=1e-5, atol=1e-7)
            if not same or set(ids) != set(ref["next_ids"]):
                failures.append(f"{label}: next ids {ids} != {ref['next_ids']}")
        err, _ = rel_err(probs[None], ref["next_probs"][None])
        if not err <= 1e-5:
            failures.append(f"{label}: next probabilities off by {err:.3g}")


# The layers with a sliding window of 4 keys (configs in the folders): Gemma 2 the even ones or
# layer_types', Gemma 3 all but every third (sliding_window_pattern 3).
SLIDING = {"gemma2": [True, False, True], "gemma2-layer-types": [False, True, True],
           "gemma3": [True, True, False, True]}

# The model_types attn runs: a family's folders are compared from the commit that adds the
# family to attn (the references of some are made before it is). The others are listed below.
RUNS = {"gpt2", "bert", "llama", "mistral", "qwen2", "bloom", "t5", "gpt_neox", "gemma2",
        "gemma3_text", "qwen3", "phi3", "olmo2"}
waiting = []
for folder in sorted(os.listdir(models)):
    manifest_path = os.path.join(models, folder, "manifest.json")
    if not os.path.exists(manifest_path):
        continue
    manifest = json.load(open(manifest_path))
    if manifest["model_type"] not in RUNS:
        waiting.append(folder)
        continue
    for entry in manifest["expected"]:
        ref = np.load(os.path.join(models, folder, entry["file"]))
        # The first run keeps the n x n arrays (the direct path); the second asks for none,
        # so attention runs on the fused kernel: both against the same references.
        full = "ids,scores,weights,context,hidden,positions"
        for shows in (full, "ids,context,hidden"):
            if "next_ids" in ref:
                shows += ",next"
            compare(folder, entry, ref, shows)

if checked == 0:
    failures.append("no expected files found under " + models)
for f in failures:
    print("FAIL", f)
if waiting:
    print("references of families attn does not run yet:", " ".join(waiting))
print(f"{checked} runs compared, {len(failures)} failures")
sys.exit(1 if failures else 0)
