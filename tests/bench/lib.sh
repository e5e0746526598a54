# What the benchmarks share (sourced; not a test). Needs WORK (a scratch folder) and HERE (this
# folder).
#   fma_ceiling THREADS     the machine's float32 FMA peak (fma_peak.cpp): "GFLOP/s-per-wall
#                           GFLOP/s-per-CPU-second"
#   write_gpt2_small DIR    a GPT-2-small-shaped checkpoint (12 layers, 768 wide, 12 heads,
#                           vocabulary 50257, 1024 positions; random float32 weights, LayerNorm
#                           weights 1) as DIR/config.json and DIR/model.safetensors
#   median                  the median of the numbers on standard input, one a line

fma_ceiling() {
    [ -x "$WORK/fma" ] || g++ -O2 -pthread "$HERE/fma_peak.cpp" -o "$WORK/fma"
    "$WORK/fma" "$1"
}

write_gpt2_small() {
    /usr/bin/python3 - "$1" "$HERE/../data/models" <<'PY'
import json, sys
import numpy as np
folder = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import safetensors_numpy  # the tests' writer of safetensors files
d, L, H, V, P = 768, 12, 12, 50257, 1024
json.dump({"model_type": "gpt2", "n_embd": d, "n_layer": L, "n_head": H, "vocab_size": V,
           "n_positions": P, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5},
          open(f"{folder}/config.json", "w"))
shapes = {"wte.weight": (V, d), "wpe.weight": (P, d)}
for i in range(L):
    p = f"h.{i}."
    shapes.update({p + "ln_1.weight": (d,), p + "ln_1.bias": (d,),
                   p + "attn.c_attn.weight": (d, 3 * d), p + "attn.c_attn.bias": (3 * d,),
                   p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
                   p + "ln_2.weight": (d,), p + "ln_2.bias": (d,),
                   p + "mlp.c_fc.weight": (d, 4 * d), p + "mlp.c_fc.bias": (4 * d,),
                   p + "mlp.c_proj.weight": (4 * d, d), p + "mlp.c_proj.bias": (d,)})
shapes.update({"ln_f.weight": (d,), "ln_f.bias": (d,)})
rng = np.random.default_rng(0)
tensors = {name: np.ones(shape, np.float32)
           if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight"))
           else (0.02 * rng.standard_normal(shape)).astype(np.float32)
           for name, shape in shapes.items()}
safetensors_numpy.write(f"{folder}/model.safetensors", tensors)
PY
}

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
