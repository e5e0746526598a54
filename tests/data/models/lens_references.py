"""Writes the lens and value-vector references beside each checkpoint's expected files:
`lens_n<N>_<dtype>.npz` for every entry of its manifest.json, holding `ids`, `value_norms`
(layers, heads, n, n), `value_weights` (layers, n, n), `value_rollout` (n, n) and, for the
models with an LM head, `lens` (layers, n, vocab): the full softmax of each block's output through
the final norm and the unembedding, from which the top K and the next token's probability are
read. The forwards are hf_reference.py's and hf_reference_more.py's (the same code as the
expected files), on the weights as stored (widened), in the entry's dtype.

Run: /usr/bin/python3 tests/data/models/lens_references.py [NAME ...]"""
import json
import os
import sys

import numpy as np
import torch

import make_references as mr
import safetensors_numpy

KEYS = ("lens", "value_norms", "value_weights", "value_rollout")


def main():
    torch.set_num_threads(1)
    names = set(sys.argv[1:])
    for name, _builder, _stored, prefix, _special in mr.CHECKPOINTS:
        folder = os.path.join(mr.HERE, name)
        if (names and name not in names) or not os.path.exists(os.path.join(folder, "manifest.json")):
            continue
        cfg = json.load(open(os.path.join(folder, "config.json")))
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        tensors, _ = safetensors_numpy.read(os.path.join(folder, "model.safetensors"))
        for entry in manifest["expected"]:
            dtype = torch.float32 if entry["dtype"] == "float32" else torch.float64
            W = {k: torch.from_numpy(v).to(dtype) for k, v in mr.strip(tensors, prefix).items()}
            out = mr.FORWARDS[cfg["model_type"]](cfg, W, torch.tensor(entry["ids"]))
            arrays = {"ids": np.array(entry["ids"], np.int64)}
            arrays.update({k: out[k] for k in KEYS if k in out})
            np.savez(os.path.join(folder, entry["file"].replace("expected_", "lens_")), **arrays)
        print(name, "lens" if "lens" in out else "values only")


if __name__ == "__main__":
    main()
