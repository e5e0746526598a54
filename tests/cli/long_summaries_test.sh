# head_stats and offsets of attend --model streamed from the fused kernel (no n x n array:
# each head's weights made again a row block at a time and reduced as they are made) equal
# those reduced from the whole weights (`--show weights` with them runs the direct path),
# within 1e-5 relative: the Llama-shaped checkpoint of tests/data/models/long_llama.py at
# n = 2,048 (causal, grouped K/V), the same as Mistral with a sliding window of 512, and the
# tiny checkpoints of Gemma 2 (soft-capping, sliding layers), BERT (bidirectional) and T5
# (bidirectional, relative bias) at their lengths.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
M=$ATTN_TEST_DATA/models
"$PYTHON" "$ATTN_SOURCE_DIR/tests/data/models/long_llama.py" "$WORK/llama" ||
    fail "writing the checkpoint"
"$PYTHON" "$ATTN_SOURCE_DIR/tests/data/models/long_llama.py" "$WORK/mistral" 2 512 ||
    fail "writing the sliding checkpoint"
ids() { "$PYTHON" -c "import numpy as np; print(','.join(map(str, np.random.default_rng(2).integers(0, $2, $1))))"; }

# One layer at a time: the layers before it run on the fused kernel in both runs, so the layer
# compared reads the same input (across layers, the forward's two paths differ by rounding).
compare() {  # NAME MODEL IDS LAYER
    local name=$1-$4 model=$2 ids=$3
    expect_status 0 "$ATTN" attend --model "$model" --ids "$ids" --layer "$4" \
        --show head_stats,offsets -o "$WORK/$name-streamed.npz"
    expect_status 0 "$ATTN" attend --model "$model" --ids "$ids" --layer "$4" \
        --show weights,head_stats,offsets -o "$WORK/$name-whole.npz"
    checks=$((checks + 1))
    "$PYTHON" - "$WORK/$name-streamed.npz" "$WORK/$name-whole.npz" <<'PY' || fail "$name: streamed summaries differ"
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
for key in ("head_stats", "offsets"):
    x, y = a[key], b[key]
    assert x.shape == y.shape, (key, x.shape, y.shape)
    if x.dtype.names:  # a table: its numeric columns
        x = np.stack([x[c] for c in x.dtype.names if x[c].dtype.kind == "f"])
        y = np.stack([y[c] for c in y.dtype.names if y[c].dtype.kind == "f"])
    x, y = x.astype(float), y.astype(float)
    assert np.all(np.isfinite(x)), key
    err = np.abs(x - y) / np.maximum(np.abs(y), 1e-30)
    # relative, where a value is not a sum of underflowed weights (1e-12 of the largest)
    big = np.abs(y) > 1e-12 * np.abs(y).max()
    assert err[big].max() <= 1e-5, (key, err[big].max())
    assert np.abs(x - y)[~big].max(initial=0) <= 1e-12, key
PY
}
for layer in 0 -1; do
    compare llama "$WORK/llama" "$(ids 2048 256)" $layer
    compare mistral "$WORK/mistral" "$(ids 2048 256)" $layer
    compare gemma2 "$M/gemma2" "$(ids 256 96)" $layer
    compare bert "$M/bert" "$(ids 32 96)" $layer
    compare t5 "$M/t5" "$(ids 64 96)" $layer
done
finish
