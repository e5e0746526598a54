#!/usr/bin/env bash
# Benchmark (not a test): `attn heads` over a data set of prompts in one process, against one
# process per prompt. A GPT-2-small-shaped checkpoint (12 layers, 768 wide, 12 heads, vocabulary
# 50257, random float32 weights written here), PROMPTS prompts of N random ids (default 200 of
# 20; the issue's figure is 1000), all 144 heads scored:
#   one process   `attn heads --model DIR --prompts P.jsonl -f csv`: prompts per wall second and
#                 per CPU second (user + system), and the forward's GFLOP/s (per prompt and
#                 block 2 n d (12 d) for the projections and MLP, 2 n (n + 1) d for q k^T and
#                 w v under the causal mask);
#   per prompt    `attn heads --model DIR --ids ...` once per prompt for the first SINGLE
#                 prompts (default 10): prompts per wall second.
# Give `uptime` with the figures: other processes sharing the cores stretch wall times.
# Usage: tests/bench/heads.sh [path/to/attn]   Environment: PROMPTS=200 N=20 SINGLE=10 THREADS=2
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ATTN=${1:-$HERE/../../build/release/attn}
PROMPTS=${PROMPTS:-200}
N=${N:-20}
SINGLE=${SINGLE:-10}
THREADS=${THREADS:-2}
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$PY" - "$WORK" "$HERE/../data/models" "$PROMPTS" "$N" <<'PY'
import json, sys
import numpy as np
folder, prompts, n = sys.argv[1], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, sys.argv[2])
import safetensors_numpy  # the tests' writer of safetensors files
d, L, H, V, P = 768, 12, 12, 50257, 1024
json.dump({"model_type": "gpt2", "n_embd": d, "n_layer": L, "n_head": H, "vocab_size": V,
           "n_positions": P, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
           "bos_token_id": 50256}, open(f"{folder}/config.json", "w"))
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
ids = np.random.default_rng(1).integers(0, V, (prompts, n))
with open(f"{folder}/prompts.jsonl", "w") as f:
    for row in ids:
        f.write(json.dumps({"ids": row.tolist()}) + "\n")
PY

seconds() { "$PY" -c 'import time; print(time.monotonic())'; }
/usr/bin/time -f '%U %S' -o "$WORK/cpu" "$ATTN" heads --model "$WORK" \
    --prompts "$WORK/prompts.jsonl" --threads "$THREADS" -f csv -o "$WORK/heads.csv" &
start=$(seconds)
wait $!
end=$(seconds)
"$PY" - "$start" "$end" "$(cat "$WORK/cpu")" "$PROMPTS" "$N" <<'PY'
import sys
start, end, cpu, prompts, n = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
user, system = map(float, cpu.split())
wall, cpu = end - start, user + system
d, L = 768, 12
flops = prompts * L * (2 * n * d * 12 * d + 2 * n * (n + 1) * d)
print(f"one process: {prompts} prompts of {n} tokens in {wall:.2f} s wall, {cpu:.2f} s CPU: "
      f"{prompts / wall:.1f} prompts/s wall, {prompts / cpu:.1f} prompts/s CPU, "
      f"{flops / wall / 1e9:.2f} GFLOP/s wall")
PY
start=$(seconds)
head -n "$SINGLE" "$WORK/prompts.jsonl" | while read -r line; do
    ids=$(echo "$line" | "$PY" -c 'import json, sys; print(",".join(map(str, json.load(sys.stdin)["ids"])))')
    "$ATTN" heads --model "$WORK" --ids "$ids" --threads "$THREADS" -f csv >/dev/null
done
end=$(seconds)
"$PY" -c "print(f'one process per prompt: {$SINGLE} prompts in {$end - $start:.2f} s: {$SINGLE / ($end - $start):.1f} prompts/s (each process starts and maps the checkpoint again)')"
uptime
