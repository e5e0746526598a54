# attend --model over long inputs: the memory plan counts the n x n arrays only when the run
# keeps them. A 2-layer Llama-shaped checkpoint (width 512, 8 heads, 2 K/V heads, written here
# by tests/data/models/long_llama.py) over 4,096 tokens: `--show next` (the fused kernel, no
# n x n array) runs under --max-memory 256M in less than 256 MiB of peak resident memory,
# where 2 H n^2 float32 scores and weights alone are 1 GiB; `--show weights` is refused with
# what would fit (the tokens that fit, the same tokens without n x n arrays), before any weight
# is read and with no output. A sliding window on the fused kernel gives the direct path's
# context. Past 4,096 tokens the MLP runs on row blocks: over 5,000 tokens (blocks of 2,500)
# the first 4,000 rows of every layer's hidden state are those of a run over those 4,000 alone
# (the MLP on the whole (4000, 1536)), a causal model's rows reading no later token.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
gnu_time_or_skip
MODEL=$WORK/long-llama
"$PYTHON" "$ATTN_SOURCE_DIR/tests/data/models/long_llama.py" "$MODEL" || fail "writing the checkpoint"
ids() { "$PYTHON" -c "import numpy as np; print(','.join(map(str, np.random.default_rng(1).integers(0, 256, $1))))"; }
IDS4K=$(ids 4096)

/usr/bin/time -f %M -o "$WORK/rss" "$ATTN" attend --model "$MODEL" --ids "$IDS4K" --show next \
    --max-memory 256M -o "$WORK/next.csv" 2>"$ERR"
status=$?
checks=$((checks + 1))
[ "$status" -eq 0 ] || fail "--show next over 4096 tokens under --max-memory 256M: exit $status: $(cat "$ERR")"
[ "$(wc -l <"$WORK/next.csv")" -eq 11 ] || fail "next: not 10 rows: $(head -3 "$WORK/next.csv")"
rss_kb=$(tail -1 "$WORK/rss")
echo "--show next over 4096 tokens: peak resident memory ${rss_kb} KiB"
if [ "${ATTN_SANITIZED:-OFF}" != ON ]; then
    checks=$((checks + 1))
    [ "$rss_kb" -lt 262144 ] || fail "--show next over 4096 tokens: peak RSS $rss_kb KiB >= 256 MiB"
fi

# weights over the same tokens: 2 x 8 x 4096^2 float32 do not fit 256 MiB; the refusal says
# how many tokens would, and that the 4096 fit without n x n arrays
expect_usage_error max-memory "$ATTN" attend --model "$MODEL" --ids "$IDS4K" --show weights \
    --max-memory 256M -o "$WORK/weights.npy"
expect_grep 'tokens fit' "$ERR"
expect_grep 'the 4096 tokens need' "$ERR"
[ ! -e "$WORK/weights.npy" ] || fail "the refusal left an output"
[ "$(wc -l <"$ERR")" -le 2 ] || fail "the refusal is not one line: $(cat "$ERR")"
fits=$(sed -n 's/.*: \([0-9]*\) tokens fit.*/\1/p' "$ERR")
checks=$((checks + 1))
[ -n "$fits" ] && [ "$fits" -gt 1000 ] && [ "$fits" -lt 4096 ] || fail "tokens that fit: '$fits'"
# ... and that many tokens are accepted (refused one more)
expect_status 0 "$ATTN" attend --model "$MODEL" --ids "$(ids "$fits")" --show weights --layer 0 \
    --head 0 --max-memory 256M -o "$WORK/fits.npy"
expect_usage_error max-memory "$ATTN" attend --model "$MODEL" --ids "$(ids $((fits + 1)))" \
    --show weights --max-memory 256M -o "$WORK/more.npy"

# A sliding window on the fused kernel: a query whose window starts past a whole key tile
# (Mistral's window of 512 at positions 767 and on) has the context of the direct path.
"$PYTHON" "$ATTN_SOURCE_DIR/tests/data/models/long_llama.py" "$WORK/mistral" 2 512 ||
    fail "writing the sliding checkpoint"
IDS1K=$(ids 1024)
expect_status 0 "$ATTN" attend --model "$WORK/mistral" --ids "$IDS1K" --show context \
    -o "$WORK/fused.npy"
expect_status 0 "$ATTN" attend --model "$WORK/mistral" --ids "$IDS1K" --show weights,context \
    -o "$WORK/direct.npz"
checks=$((checks + 1))
"$PYTHON" - "$WORK/fused.npy" "$WORK/direct.npz" <<'PY' || fail "sliding window: the fused kernel's context differs"
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])["context"]
assert a.shape == b.shape == (2, 8, 1024, 64), (a.shape, b.shape)
assert np.abs(a - b).max() < 1e-4, np.abs(a - b).max()
PY

IDS5K=$(ids 5000)
expect_status 0 "$ATTN" attend --model "$MODEL" --ids "$IDS5K" --show hidden -o "$WORK/h5k.npy"
expect_status 0 "$ATTN" attend --model "$MODEL" --ids "$(echo "$IDS5K" | cut -d, -f1-4000)" \
    --show hidden -o "$WORK/h4k.npy"
checks=$((checks + 1))
"$PYTHON" - "$WORK/h5k.npy" "$WORK/h4k.npy" <<'PY' || fail "MLP row blocks: hidden states differ"
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.shape == (3, 5000, 512) and b.shape == (3, 4000, 512), (a.shape, b.shape)
err = np.abs(a[:, :4000] - b).max() / np.abs(b).max()
assert err < 1e-5, err
PY
finish
