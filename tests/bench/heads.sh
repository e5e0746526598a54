#!/usr/bin/env bash
# Benchmark (not a test): many prompts through a model in one process, against one process per
# prompt. A GPT-2-small-shaped checkpoint (lib.sh: 12 layers, 768 wide, 12 heads, vocabulary
# 50257, random float32 weights written here), PROMPTS prompts of N random ids (default 200 of
# 20; the issue's figure is 1000), all 144 heads:
#   heads     `attn heads --model DIR --prompts P.jsonl -f npz` (every head scored);
#   attend    `attn attend --model DIR --prompts P.jsonl --show head_stats,offsets -f npz`;
#   ceiling   the machine's float32 FMA peak (lib.sh's fma_ceiling) with the same threads,
#             measured just before and just after each of the two runs: their mean;
#   per prompt `attn heads --model DIR --ids ...` once per prompt for the first SINGLE prompts
#             (default 10): prompts per wall second and per CPU second.
# Each one-process run gives prompts per wall second and per CPU second (user + system), the
# forward's GFLOP per wall second and per CPU second and their fraction of the ceiling's (per
# prompt and block: 2 n d (12 d) for the projections and MLP, 2 n (n + 1) d for q k^T and w v
# under the causal mask), and the peak RSS (/usr/bin/time): run PROMPTS=200 and PROMPTS=1000 to
# see it flat. Give `uptime` with the figures: other processes sharing the cores stretch wall
# times (CPU seconds much less).
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

source "$HERE/lib.sh"
write_gpt2_small "$WORK"
"$PY" - "$WORK" "$PROMPTS" "$N" <<'PY'
import json, sys
import numpy as np
folder, prompts, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ids = np.random.default_rng(1).integers(0, 50257, (prompts, n))
with open(f"{folder}/prompts.jsonl", "w") as f:
    for row in ids:
        f.write(json.dumps({"ids": row.tolist()}) + "\n")
PY

seconds() { "$PY" -c 'import time; print(time.monotonic())'; }
# one_process NAME ATTN-ARGS...: the run timed, the ceiling measured just before and after it
one_process() {
    local name=$1
    shift
    local before after start end
    before=$(fma_ceiling "$THREADS")
    start=$(seconds)
    /usr/bin/time -f '%U %S %M' -o "$WORK/cpu" "$ATTN" "$@" --model "$WORK" \
        --prompts "$WORK/prompts.jsonl" --threads "$THREADS" -f npz -o "$WORK/$name.npz"
    end=$(seconds)
    after=$(fma_ceiling "$THREADS")
    "$PY" - "$name" "$start" "$end" "$(cat "$WORK/cpu")" "$PROMPTS" "$N" "$before" "$after" <<'PY'
import sys
name, start, end, cpu, prompts, n, before, after = sys.argv[1:]
start, end, prompts, n = float(start), float(end), int(prompts), int(n)
user, system, rss = cpu.split()
(bw, bc), (aw, ac) = (map(float, c.split()) for c in (before, after))
peak_wall, peak_cpu = (bw + aw) / 2, (bc + ac) / 2
wall, cpu = end - start, float(user) + float(system)
d, L = 768, 12
gflop = prompts * L * (2 * n * d * 12 * d + 2 * n * (n + 1) * d) / 1e9
print(f"{name}, one process: {prompts} prompts of {n} tokens in {wall:.2f} s wall, {cpu:.2f} s "
      f"CPU: {prompts / wall:.1f} prompts/s wall, {prompts / cpu:.1f} prompts/s CPU; "
      f"{gflop / wall:.1f} GFLOP/s wall = {gflop / wall / peak_wall:.2f} of the FMA peak "
      f"{peak_wall:.1f} (before {bw:.1f}, after {aw:.1f}), {gflop / cpu:.1f} GFLOP per CPU "
      f"second = {gflop / cpu / peak_cpu:.2f} of {peak_cpu:.1f}; peak RSS {int(rss) / 1024:.0f} MiB")
PY
}
one_process heads heads
one_process attend attend --show head_stats,offsets

start=$(seconds)
head -n "$SINGLE" "$WORK/prompts.jsonl" | while read -r line; do
    ids=$(echo "$line" | "$PY" -c 'import json, sys; print(",".join(map(str, json.load(sys.stdin)["ids"])))')
    /usr/bin/time -f '%U %S' -a -o "$WORK/single_cpu" "$ATTN" heads --model "$WORK" \
        --ids "$ids" --threads "$THREADS" -f csv >/dev/null
done
end=$(seconds)
cpu=$(awk '{s += $1 + $2} END {print s}' "$WORK/single_cpu")
"$PY" -c "print(f'heads, one process per prompt: {$SINGLE} prompts in {$end - $start:.2f} s wall, {$cpu:.2f} s CPU: {$SINGLE / ($end - $start):.1f} prompts/s wall, {$SINGLE / $cpu:.1f} prompts/s CPU (each process starts and maps the checkpoint again)')"
uptime
