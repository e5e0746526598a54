#!/usr/bin/env bash
# Peak memory of a Q4_K GGUF forward against the contract's bound: the file's size plus one
# layer's weights widened to float32. A llama-architecture file of Llama-like shapes (d 1024,
# MLP 2816, 8 layers, 16 heads, 4 K/V heads, vocabulary 32000: 155 M weights), random weights
# quantized to Q4_K by ggml's own quantizer (token_embd and output too), written by ggml's
# writer; `attend --model FILE --show next` over 64 tokens under /usr/bin/time (maximum
# resident set, mapped pages included).
#   tests/bench/gguf_memory.sh [BUILD_DIR]   (ggml: tests/cli/ggml_lib.sh's package)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/../build/release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
modules=$work/ggml
mkdir -p "$modules"
cp "$here/data/gguf/package.json" "$here/data/gguf/package-lock.json" "$modules/"
(cd "$modules" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
export ATTN_GGML_LIBDIR=$modules/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
/usr/bin/python3 -B - "$here/io" "$work/q4k.gguf" <<'PY'
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from ggml_reference import ggml_quantize_chunk, write
d, inter, layers, heads, kv, vocab = 1024, 2816, 8, 16, 4, 32000
hd, Q4_K = d // heads, 12
rng = np.random.default_rng(1)
def q4k(rows, cols):
    w = rng.standard_normal((rows, cols), dtype=np.float32) * 0.02
    raw = np.zeros(rows * cols // 256 * 144, dtype=np.uint8)
    ggml_quantize_chunk(Q4_K, w.ctypes.data, raw.ctypes.data, 0, rows, cols, None)
    return (Q4_K, [cols, rows], raw)
def norm(n):
    return (0, [n], np.ones(n, dtype=np.float32).view(np.uint8))
tensors = [("token_embd.weight", *q4k(vocab, d)), ("output_norm.weight", *norm(d)),
           ("output.weight", *q4k(vocab, d))]
for i in range(layers):
    b = f"blk.{i}."
    tensors += [(b + "attn_norm.weight", *norm(d)), (b + "attn_q.weight", *q4k(d, d)),
                (b + "attn_k.weight", *q4k(kv * hd, d)), (b + "attn_v.weight", *q4k(kv * hd, d)),
                (b + "attn_output.weight", *q4k(d, d)), (b + "ffn_norm.weight", *norm(d)),
                (b + "ffn_gate.weight", *q4k(inter, d)), (b + "ffn_up.weight", *q4k(inter, d)),
                (b + "ffn_down.weight", *q4k(d, inter))]
a = "llama."
meta = [("general.architecture", 8, "llama"), (a + "block_count", 4, layers),
        (a + "context_length", 4, 4096), (a + "embedding_length", 4, d),
        (a + "feed_forward_length", 4, inter), (a + "attention.head_count", 4, heads),
        (a + "attention.head_count_kv", 4, kv), (a + "attention.layer_norm_rms_epsilon", 6, 1e-5),
        (a + "rope.freq_base", 6, 10000.0)]
write(sys.argv[2], tensors, meta, [])
PY
ids=$(seq -s, 1 64)
/usr/bin/time -f %M -o "$work/rss" "$build/attn" attend --model "$work/q4k.gguf" --ids "$ids" \
    --show next -f csv >/dev/null
file=$(stat -c %s "$work/q4k.gguf")
layer=$(((1024 * 1024 * 2 + 256 * 1024 * 2 + 2816 * 1024 * 3 + 2 * 1024) * 4))
peak=$(($(cat "$work/rss") * 1024))
echo "file $((file / 1048576)) MiB, one layer widened $((layer / 1048576)) MiB," \
    "peak resident $((peak / 1048576)) MiB (bound $(((file + layer) / 1048576)) MiB)"
[ "$peak" -lt $((file + layer)) ]
