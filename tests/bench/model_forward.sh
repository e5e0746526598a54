#!/usr/bin/env bash
# Benchmark (not a test): a GPT-2-small-shaped checkpoint (12 layers, 768 wide, 12 heads,
# vocabulary 50257, random float32 weights written here as model.safetensors), n tokens
# (default 1024), in one run and with the same threads:
#   attn     `attn attend --model DIR --ids ... --show next`, whole process (start, mapping,
#            every block, the tied LM head, writing the 10 rows), median of RUNS;
#   PyTorch  the same forward written from GPT-2's definition (pre-LN, fused c_attn, causal
#            softmax, gelu_new, tied head for the last position), computation alone, median;
#   ceiling  the machine's float32 FMA peak: a small program of independent FMA chains per
#            thread, 8-wide (AVX2) and, where the CPU has it, 16-wide (AVX-512), the faster of
#            the two: GFLOP/s = threads x chains x 2 x width / time.
# The forward's flops: per block 2 n d (3d + d + 8d) for the projections and MLP, plus
# 2 n (n + 1) d for q k^T and w v under the causal mask (the multiply-adds the model needs;
# PyTorch's eager forward computes the full n x n, twice that); plus 2 d V for the head.
# Each figure is given per wall second and per CPU second (user + system, every thread): five
# processes sharing two cores stretch wall times, CPU seconds much less; give `uptime` with it.
# Peak RSS from /usr/bin/time.
# Usage: tests/bench/model_forward.sh [path/to/attn]   Environment: N=1024 THREADS=2 RUNS=3
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ATTN=${1:-$HERE/../../build/release/attn}
N=${N:-1024}
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$HERE/lib.sh"
write_gpt2_small "$WORK"
IDS=$("$PY" -c "import numpy as np; print(','.join(map(str, np.random.default_rng(1).integers(0, 50257, $N))))")

CEILING=$(fma_ceiling "$THREADS")

for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M %U %S" -o "$WORK/t" "$ATTN" attend --model "$WORK" --ids "$IDS" \
        --show next --threads "$THREADS" -f csv >/dev/null
    awk '{print $1, $2, $3 + $4}' "$WORK/t"
done >"$WORK/attn_times"
ATTN_S=$(cut -d' ' -f1 "$WORK/attn_times" | median)
ATTN_RSS=$(cut -d' ' -f2 "$WORK/attn_times" | sort -g | tail -1)
ATTN_CPU=$(cut -d' ' -f3 "$WORK/attn_times" | median)

TORCH_S=$(OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" "$PY" - "$WORK" "$IDS" "$THREADS" "$RUNS" <<'PY'
import json, math, struct, sys, time
import numpy as np, torch
folder, ids, threads, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)
blob = bytearray(open(f"{folder}/model.safetensors", "rb").read())  # writable: no warning
size = struct.unpack("<Q", blob[:8])[0]
header = json.loads(blob[8:8 + size])
W = {k: torch.from_numpy(np.frombuffer(blob, np.float32, int(np.prod(v["shape"])), 8 + size + v["data_offsets"][0]).reshape(v["shape"]))
     for k, v in header.items() if k != "__metadata__"}
x_ids = torch.tensor([int(i) for i in ids.split(",")])
d, H = 768, 12
def gelu_new(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
def forward():
    n = len(x_ids)
    h = W["wte.weight"][x_ids] + W["wpe.weight"][:n]
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    for i in range(12):
        p = f"h.{i}."
        x = torch.nn.functional.layer_norm(h, (d,), W[p + "ln_1.weight"], W[p + "ln_1.bias"])
        q, k, v = (x @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]).split(d, 1)
        q, k, v = (t.view(n, H, 64).transpose(0, 1) for t in (q, k, v))
        s = (q @ k.transpose(1, 2)) / 8.0
        w = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
        c = (w @ v).transpose(0, 1).reshape(n, d)
        h = h + c @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
        x = torch.nn.functional.layer_norm(h, (d,), W[p + "ln_2.weight"], W[p + "ln_2.bias"])
        h = h + gelu_new(x @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"]) @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
    y = torch.nn.functional.layer_norm(h[-1:], (d,), W["ln_f.weight"], W["ln_f.bias"])
    return torch.softmax(y @ W["wte.weight"].T, -1).topk(10)
times, cpus = [], []
with torch.no_grad():
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        forward()
        times.append(time.perf_counter() - t0); cpus.append(time.process_time() - c0)
print(sorted(times)[len(times) // 2], sorted(cpus)[len(cpus) // 2])
PY
)
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
"$PY" - "$N" "$THREADS" "$LOAD" "$ATTN_S" "$ATTN_CPU" $TORCH_S $CEILING "$ATTN_RSS" <<'PY'
import sys
n, threads, load = int(sys.argv[1]), sys.argv[2], sys.argv[3]
attn_s, attn_cpu, torch_s, torch_cpu, ceil_wall, ceil_cpu, rss = map(float, sys.argv[4:11])
d, L, V = 768, 12, 50257
flops = L * (2 * n * d * 12 * d + 2 * n * (n + 1) * d) + 2 * d * V
print(f"GPT-2-small shape, n = {n}, {threads} threads, load average {load}")
print(f"forward: {flops / 1e9:.1f} GFLOP; FMA ceiling {ceil_wall:.1f} GFLOP/s, "
      f"{ceil_cpu:.1f} GFLOP per CPU second")
print(f"{'':30s} {'wall s':>7s} {'GFLOP/s':>8s} {'ceiling':>8s} {'CPU s':>7s} {'GFLOP/CPU s':>12s} {'ceiling':>8s}")
for name, s, c in (("attn (whole process)", attn_s, attn_cpu),
                   ("PyTorch 1.13 (compute only)", torch_s, torch_cpu)):
    g, gc = flops / s / 1e9, flops / c / 1e9
    print(f"{name:30s} {s:7.3f} {g:8.1f} {100 * g / ceil_wall:7.1f}% {c:7.3f} {gc:12.1f} "
          f"{100 * gc / ceil_cpu:7.1f}%")
print(f"attn / PyTorch: {attn_s / torch_s:.2f} wall, {attn_cpu / torch_cpu:.2f} CPU; "
      f"attn peak RSS {rss / 1024:.0f} MiB")
PY
