# attend --model's memory: a BF16 Llama-shaped checkpoint of about 250 MB, written here with
# random weights, runs (every layer, and the next token through the tied embedding) in less
# peak resident memory than its file's size, mapped pages included (/usr/bin/time's maximum
# resident set): weights stay mapped, are widened one layer at a time, and a finished layer's
# pages are handed back. --max-memory below one layer's widened weights is refused before any
# weight is read.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
gnu_time_or_skip

MODEL=$WORK/llama-bf16-large
mkdir "$MODEL"
"$PYTHON" - "$MODEL" <<'PY' || fail "writing the checkpoint"
import json, struct, sys
import numpy as np
folder = sys.argv[1]
d, inter, layers, heads, kv, vocab = 1024, 2816, 8, 16, 4, 32000
hd = d // heads
config = {"model_type": "llama", "hidden_size": d, "intermediate_size": inter,
          "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv,
          "vocab_size": vocab, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
          "max_position_embeddings": 4096, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
json.dump(config, open(f"{folder}/config.json", "w"))
shapes = {"model.embed_tokens.weight": (vocab, d)}
for i in range(layers):
    p = f"model.layers.{i}."
    shapes.update({p + "input_layernorm.weight": (d,), p + "self_attn.q_proj.weight": (d, d),
                   p + "self_attn.k_proj.weight": (kv * hd, d),
                   p + "self_attn.v_proj.weight": (kv * hd, d),
                   p + "self_attn.o_proj.weight": (d, d),
                   p + "post_attention_layernorm.weight": (d,),
                   p + "mlp.gate_proj.weight": (inter, d), p + "mlp.up_proj.weight": (inter, d),
                   p + "mlp.down_proj.weight": (d, inter)})
shapes["model.norm.weight"] = (d,)
header, offset = {}, 0
for name, shape in shapes.items():
    size = int(np.prod(shape)) * 2
    header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + size]}
    offset += size
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
rng = np.random.default_rng(7)
with open(f"{folder}/model.safetensors", "wb") as out:
    out.write(struct.pack("<Q", len(text)))
    out.write(text)
    for name, shape in shapes.items():
        count = int(np.prod(shape))
        if len(shape) == 1:  # norm weights: 1.0
            out.write(np.full(count, 0x3F80, np.uint16).tobytes())
            continue
        # sign, exponent 2^-8 .. 2^-5, random mantissa: small finite bfloat16 values
        bits = (rng.integers(0, 2, count, dtype=np.uint16) << 15) | \
               (rng.integers(119, 123, count, dtype=np.uint16) << 7) | \
               rng.integers(0, 128, count, dtype=np.uint16)
        out.write(bits.astype(np.uint16).tobytes())
PY
size_kb=$(( $(stat -c %s "$MODEL/model.safetensors") / 1024 ))
IDS=$(seq -s, 1 64)

/usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend --model "$MODEL" --ids "$IDS" \
    --show weights,next -o "$WORK/out.npz" || fail "the BF16 checkpoint did not run"
"$PYTHON" - "$WORK/out.npz" <<'PY' || fail "output of the BF16 run"
import sys, numpy as np
z = np.load(sys.argv[1])
assert z["weights"].shape == (8, 16, 64, 64), z["weights"].shape
assert np.allclose(z["weights"].sum(-1), 1, atol=1e-5)
assert np.all(np.triu(z["weights"], 1) == 0)
assert z["next"].shape == (10, 3) and abs(z["next"][:, 2].sum()) <= 1
PY
rss_kb=$(tail -1 "$WORK/rss")
checks=$((checks + 1))
echo "peak resident memory ${rss_kb} KiB for a ${size_kb} KiB BF16 checkpoint"
if [ "${ATTN_SANITIZED:-OFF}" != ON ]; then
    [ "$rss_kb" -lt "$size_kb" ] || fail "peak RSS $rss_kb KiB is not below the file's $size_kb KiB"
fi

# Refused before reading a weight: one block widened alone needs about 44 MiB.
/usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend --model "$MODEL" --ids "$IDS" \
    --max-memory 16M -o "$WORK/refused.npz" 2>"$ERR"
status=$?
checks=$((checks + 1))
[ "$status" -eq 2 ] || fail "--max-memory 16M: exit $status, want 2"
expect_grep 'max-memory' "$ERR"
[ ! -e "$WORK/refused.npz" ] || fail "--max-memory refusal left an output"
if [ "${ATTN_SANITIZED:-OFF}" != ON ]; then
    refused_kb=$(tail -1 "$WORK/rss")
    [ "$refused_kb" -lt 40000 ] || fail "the refusal used $refused_kb KiB: it read weights first"
fi
rm -rf "$MODEL"
finish
