#!/usr/bin/env bash
# Many prompts on several threads give the serial run's numbers bit for bit: `attn heads
# --prompts` and `attn attend --prompts --show head_stats,offsets` with --threads 1 and
# --threads 2 write identical files; each prompt run alone (its own process, its forward on 2
# threads) and merged in order equals the run over all of them, and so do shards run with
# --partial on 2 threads. The checkpoint is a random GPT-2 wide enough
# (256) that OpenBLAS splits a 2-thread forward's products over both threads.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
unset OPENBLAS_NUM_THREADS  # the 2-thread forwards split their products over both threads
G=$WORK/gpt2
mkdir -p "$G"
"$PYTHON" - "$G" "$ATTN_TEST_DATA/models" <<'PY'
import json, sys
import numpy as np
folder = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import safetensors_numpy
d, L, H, V, P = 256, 2, 4, 512, 64
json.dump({"model_type": "gpt2", "n_embd": d, "n_layer": L, "n_head": H, "vocab_size": V,
           "n_positions": P, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5},
          open(f"{folder}/config.json", "w"))
shapes = {"wte.weight": (V, d), "wpe.weight": (P, d), "ln_f.weight": (d,), "ln_f.bias": (d,)}
for i in range(L):
    p = f"h.{i}."
    shapes.update({p + "ln_1.weight": (d,), p + "ln_1.bias": (d,),
                   p + "attn.c_attn.weight": (d, 3 * d), p + "attn.c_attn.bias": (3 * d,),
                   p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
                   p + "ln_2.weight": (d,), p + "ln_2.bias": (d,),
                   p + "mlp.c_fc.weight": (d, 4 * d), p + "mlp.c_fc.bias": (4 * d,),
                   p + "mlp.c_proj.weight": (4 * d, d), p + "mlp.c_proj.bias": (d,)})
rng = np.random.default_rng(3)
safetensors_numpy.write(f"{folder}/model.safetensors",
                        {k: (0.3 * rng.standard_normal(s)).astype(np.float32)
                         for k, s in shapes.items()})
lengths = [40, 7, 33, 1, 25, 48, 12, 19, 30]
with open(f"{folder}/p.jsonl", "w") as f:
    for n in lengths:
        f.write(json.dumps({"ids": rng.integers(0, V, n).tolist()}) + "\n")
PY
P=$G/p.jsonl

# same_file A B WHAT: A and B byte for byte
same_file() {
    checks=$((checks + 1))
    cmp -s "$1" "$2" || fail "$3: $(basename "$1") and $(basename "$2") differ"
}

for t in 1 2; do
    expect_status 0 "$ATTN" heads --model "$G" --prompts "$P" --threads $t --show scores,prompts \
        -o "$WORK/heads$t.npz"
    expect_status 0 "$ATTN" heads --model "$G" --prompts "$P" --threads $t --measure mul \
        --exclude-bos -f csv -o "$WORK/heads$t.csv"
    expect_status 0 "$ATTN" attend --model "$G" --prompts "$P" --threads $t \
        --show head_stats,offsets -o "$WORK/attend$t.npz"
    expect_status 0 "$ATTN" attend --model "$G" --prompts "$P" --threads $t --dtype float64 \
        --show head_stats,offsets -f json -o "$WORK/attend64_$t.json"
done
same_file "$WORK/heads1.npz" "$WORK/heads2.npz" "heads --threads 1 and 2"
same_file "$WORK/heads1.csv" "$WORK/heads2.csv" "heads --measure mul --threads 1 and 2"
same_file "$WORK/attend1.npz" "$WORK/attend2.npz" "attend --prompts --threads 1 and 2"
same_file "$WORK/attend64_1.json" "$WORK/attend64_2.json" "attend --prompts --dtype float64"
# the files hold numbers (a run that wrote nothing would pass the comparisons)
checks=$((checks + 1))
"$PYTHON" - "$WORK/heads2.npz" "$WORK/attend2.npz" <<'PY' || fail "the outputs hold no scores"
import sys, numpy as np
h, a = np.load(sys.argv[1]), np.load(sys.argv[2])
assert np.isfinite(h["entropy"]).all() and h["entropy"].size == 8 and (h["entropy"] > 0).all()
assert a["head_stats"].shape == (8, 7) and a["offsets"].shape == (2, 4, 95)
assert (a["head_stats"][:, 2] > 0).all()
PY

# each prompt alone, on 2 threads, merged in file order = one run
k=0
while read -r line; do
    k=$((k + 1))
    ids=$("$PYTHON" -c 'import json, sys; print(",".join(map(str, json.loads(sys.argv[1])["ids"])))' "$line")
    "$ATTN" heads --model "$G" --ids "$ids" --threads 2 --partial -o "$WORK/alone$k.npz" ||
        fail "prompt $k alone"
done <"$P"
expect_status 0 "$ATTN" merge $(for i in $(seq $k); do echo "$WORK/alone$i.npz"; done) \
    --show scores,prompts -o "$WORK/merged_alone.npz"
same_file "$WORK/heads1.npz" "$WORK/merged_alone.npz" "each prompt alone, merged"

# shards on 2 threads, merged = the serial run, exactly where the merge adds in the serial
# run's order: prompts 1-6 in one shard (the pipeline), then 7, 8 and 9 one a shard (their
# single forward with the 2 threads)
head -n 6 "$P" >"$WORK/s1.jsonl"
for s in 2 3 4; do sed -n "$((s + 5))p" "$P" >"$WORK/s$s.jsonl"; done
for s in 1 2 3 4; do
    expect_status 0 "$ATTN" heads --model "$G" --prompts "$WORK/s$s.jsonl" --threads 2 --partial \
        -o "$WORK/part$s.npz"
done
expect_status 0 "$ATTN" merge "$WORK/part1.npz" "$WORK/part2.npz" "$WORK/part3.npz" \
    "$WORK/part4.npz" --show scores,prompts -o "$WORK/merged.npz"
same_file "$WORK/heads1.npz" "$WORK/merged.npz" "shards on 2 threads, merged"

# a bad prompt after good ones: the serial run's error, whatever the threads
printf '{"ids": [1, 2]}\n{"ids": [3]}\n{"ids": [4, 900]}\n{"ids": [5]}\n' >"$WORK/bad.jsonl"
expect_usage_error "line 3" "$ATTN" heads --model "$G" --prompts "$WORK/bad.jsonl" --threads 2
expect_usage_error "line 3" "$ATTN" attend --model "$G" --prompts "$WORK/bad.jsonl" --threads 2
finish
