#!/usr/bin/env bash
# attend --model --show head_stats,offsets,rollout reduces each layer's weights as they stream:
# peak resident memory (GNU time's %M, mapped pages included) with 24 layers is that with 2
# layers of the same width, although the 24-layer file is 22 layers (about 70 MB) larger.
# The checkpoints are GPT-2-shaped, random F32, written by numpy (tests/data/models/
# safetensors_numpy.py).
. "$(dirname "$0")/lib.sh"
numpy_or_skip
gnu_time_or_skip
if [ "${ATTN_SANITIZED:-OFF}" = ON ]; then
    echo "skipped: AddressSanitizer's quarantine grows with the memory freed" >&2
    exit 77
fi

# write_gpt2 FOLDER LAYERS: width 256, 8 heads, 64 positions, a vocabulary of 64.
write_gpt2() {
    mkdir -p "$1"
    "$PYTHON" - "$ATTN_TEST_DATA/models" "$1" "$2" <<'PY' || fail "writing the $2-layer checkpoint"
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import safetensors_numpy
folder, layers = sys.argv[2], int(sys.argv[3])
d, heads, positions, vocab = 256, 8, 64, 64
json.dump({"model_type": "gpt2", "n_embd": d, "n_head": heads, "n_layer": layers,
           "n_positions": positions, "vocab_size": vocab, "layer_norm_epsilon": 1e-5,
           "activation_function": "gelu_new"}, open(f"{folder}/config.json", "w"))
shapes = {"wte.weight": (vocab, d), "wpe.weight": (positions, d)}
for i in range(layers):
    p = f"h.{i}."
    shapes.update({p + "ln_1.weight": (d,), p + "ln_1.bias": (d,),
                   p + "attn.c_attn.weight": (d, 3 * d), p + "attn.c_attn.bias": (3 * d,),
                   p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
                   p + "ln_2.weight": (d,), p + "ln_2.bias": (d,),
                   p + "mlp.c_fc.weight": (d, 4 * d), p + "mlp.c_fc.bias": (4 * d,),
                   p + "mlp.c_proj.weight": (4 * d, d), p + "mlp.c_proj.bias": (d,)})
shapes.update({"ln_f.weight": (d,), "ln_f.bias": (d,)})
rng = np.random.default_rng(layers)
norm = lambda name: name.endswith(("ln_1.weight", "ln_2.weight")) or name == "ln_f.weight"
safetensors_numpy.write(f"{folder}/model.safetensors",
                        {name: np.ones(shape) if norm(name) else rng.normal(0, 0.2, shape)
                         for name, shape in shapes.items()})
PY
}

# peak_kb FOLDER: peak resident KB of the summaries of 64 tokens, written as npz.
peak_kb() {
    /usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend --model "$1" --ids "$(seq -s, 0 63)" \
        --show head_stats,offsets,rollout -o "$WORK/summaries.npz" ||
        fail "attend --model $1 --show head_stats,offsets,rollout failed"
    tail -1 "$WORK/rss"
}

write_gpt2 "$WORK/two" 2
write_gpt2 "$WORK/many" 24
small=$(peak_kb "$WORK/two")
"$PYTHON" - "$WORK/summaries.npz" 2 <<'PY' || fail "the 2-layer summaries"
import sys, numpy as np
z, layers = np.load(sys.argv[1]), int(sys.argv[2])
assert z["offsets"].shape == (layers, 8, 127), z["offsets"].shape
assert z["head_stats"].shape == (layers * 8, 7), z["head_stats"].shape
assert np.allclose(z["rollout"].sum(-1), 1, atol=1e-5)
PY
large=$(peak_kb "$WORK/many")
"$PYTHON" - "$WORK/summaries.npz" 24 <<'PY' || fail "the 24-layer summaries"
import sys, numpy as np
z, layers = np.load(sys.argv[1]), int(sys.argv[2])
assert z["offsets"].shape == (layers, 8, 127), z["offsets"].shape
assert z["head_stats"].shape == (layers * 8, 7), z["head_stats"].shape
assert np.allclose(z["rollout"].sum(-1), 1, atol=1e-5)
PY
file_kb=$(($(stat -c %s "$WORK/many/model.safetensors") / 1024))
echo "peak resident memory: 2 layers ${small} KiB, 24 layers ${large} KiB (file ${file_kb} KiB)"
# 8 MiB: under 3 layers' weights (3 MiB each); holding the 22 more would cost 66 MiB.
checks=$((checks + 1))
[ "$((large - small))" -lt 8192 ] ||
    fail "peak ${small} KiB with 2 layers, ${large} KiB with 24: memory grows with the layers"
finish
