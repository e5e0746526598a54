"""Compares `attn attend --model --show lens,lens_next,value_norms,value_weights,value_rollout`
on the tiny checkpoints of tests/data/models with the references beside them (lens_*.npz, made
by lens_references.py from the PyTorch forwards of hf_reference*.py). Usage:
attend_lens_compare.py ATTN MODELS_DIR TMPDIR.

Bounds: lens probabilities within 1e-5 and the same ids where the reference's probabilities are
not tied; lens_next 1e-5; value_norms 1e-5 relative to each layer's largest; value_weights and
value_rollout 1e-5. The last layer's lens at the last position equals next (--top 10). BERT's
lens (bert-mlm: BertForMaskedLM's head) is compared too; `bert` (no cls.predictions.transform)
and T5's encoder give the value arrays only."""
import json
import os
import subprocess
import sys

import numpy as np

attn, models, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
TOP = 4
failures = []
checked = 0


def run(folder, entry, shows, *extra):
    out = os.path.join(tmp, "lens.npz")
    cmd = [attn, "attend", "--model", os.path.join(models, folder), "--ids",
           ",".join(str(i) for i in entry["ids"]), "--show", shows, "--dtype", entry["dtype"],
           "-o", out, *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{folder} {entry['file']} ({shows}): exit {r.returncode}: {r.stderr}")
        return None
    got = dict(np.load(out))
    os.remove(out)
    return got


def check_top(label, rows, probs, positions):
    """rows: (layer index, position, rank, id, probability) of attn; probs (L, n, V) reference."""
    L = probs.shape[0]
    K = TOP if rows.shape[0] == L * len(positions) * TOP else rows.shape[0] // (L * len(positions))
    rows = rows.reshape(L, len(positions), K, -1)
    for l in range(L):
        for k, p in enumerate(positions):
            ref = probs[l, p]
            order = sorted(range(len(ref)), key=lambda v: (-ref[v], v))[:K]
            got_ids = rows[l, k, :, 3].astype(np.int64)
            got_p = rows[l, k, :, 4]
            if not np.all(rows[l, k, :, 1] == p) or not np.array_equal(rows[l, k, :, 2], np.arange(1, K + 1)):
                failures.append(f"{label}: layer {l} position {p}: position or rank columns wrong")
            err = np.abs(got_p - ref[order]).max()
            if not err <= 1e-5:
                failures.append(f"{label}: layer {l} position {p}: probabilities off by {err:.3g}")
            for r in range(K):  # an id may differ only where the reference ties it
                if got_ids[r] != order[r] and abs(ref[got_ids[r]] - ref[order[r]]) > 1e-6:
                    failures.append(f"{label}: layer {l} position {p} rank {r + 1}: id {got_ids[r]} != {order[r]}")


for folder in sorted(os.listdir(models)):
    manifest_path = os.path.join(models, folder, "manifest.json")
    if not os.path.exists(manifest_path):
        continue
    manifest = json.load(open(manifest_path))
    for entry in manifest["expected"]:
        lens_file = os.path.join(models, folder, entry["file"].replace("expected_", "lens_"))
        if not os.path.exists(lens_file):
            continue
        ref = np.load(lens_file)
        n = len(entry["ids"])
        label = f"{folder} {entry['file']}"
        has_lens = "lens" in ref
        shows = "value_norms,value_weights,value_rollout"
        if has_lens:
            shows += ",lens" + (",lens_next" if n > 1 else "")
        got = run(folder, entry, shows, *(["--top", str(TOP)] if has_lens else []))
        if got is None:
            continue
        checked += 1
        vn, rvn = got["value_norms"].astype(np.float64), ref["value_norms"]
        for l in range(rvn.shape[0]):
            err = np.abs(vn[l] - rvn[l]).max() / max(np.abs(rvn[l]).max(), 1e-30)
            if not err <= 1e-5:
                failures.append(f"{label}: value_norms layer {l} off by {err:.3g} of its largest")
        for name in ("value_weights", "value_rollout"):
            err = np.abs(got[name] - ref[name]).max()
            if not err <= 1e-5:
                failures.append(f"{label}: {name} off by {err:.3g}")
        if not has_lens:
            continue
        check_top(label, got["lens"], ref["lens"], range(n))
        if n > 1:
            ids = np.array(entry["ids"])
            want = ref["lens"][:, np.arange(n - 1), ids[1:]]
            err = np.abs(got["lens_next"] - want).max()
            if got["lens_next"].shape != want.shape or not err <= 1e-5:
                failures.append(f"{label}: lens_next off by {err:.3g} {got['lens_next'].shape}")
        # one position, the last layer: the rows of next (causal LMs; BERT's lens has no next)
        if "next_ids" not in np.load(os.path.join(models, folder, entry["file"])):
            continue
        last = run(folder, entry, "lens,next", "--top", "10", "--position", "-1", "--layer", "-1")
        if last is not None:
            checked += 1
            check_top(label + " --position -1", last["lens"],
                      ref["lens"][-1:], [n - 1])
            nxt = last["next"]
            err = np.abs(last["lens"][:, 4] - nxt[:, 2]).max()
            if not err <= 1e-6 or not np.array_equal(last["lens"][:, 3], nxt[:, 1]):
                failures.append(f"{label}: the last layer's lens at the last position is not next ({err:.3g})")

if checked == 0:
    failures.append("no lens references found under " + models)
for f in failures:
    print("FAIL", f)
print(f"{checked} runs compared, {len(failures)} failures")
sys.exit(1 if failures else 0)
