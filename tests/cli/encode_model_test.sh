# attn encode --model: tiny random checkpoints of the seven families made here by
# tests/support/tiny_checkpoint.py (numpy only), in F32, F16 and BF16, sharded, with and
# without the classes' prefixes, and inside a fake Hugging Face cache tree. The values are
# compared with numpy: P equals the stored table widened exactly, RoPE and ALiBi equal
# `encode --scheme rope|alibi` with the config's parameters, T5's bias equals the stored
# layer-0 table looked up by attn's own buckets.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

W=$WORK
TINY=$ATTN_SOURCE_DIR/tests/support/tiny_checkpoint.py
ok() { "$@" || fail "$*"; }
make_model() { "$PYTHON" "$TINY" "$@" >/dev/null || fail "tiny_checkpoint.py $*"; }

for dtype in F32 F16 BF16; do
    make_model gpt2 "$W/gpt2-$dtype" --dtype "$dtype" --dump "$W/gpt2-$dtype.npz"
    ok "$ATTN" encode --model "$W/gpt2-$dtype" -n 32 --dtype float64 -o "$W/P-gpt2-$dtype.npy"
done
make_model gpt2 "$W/gpt2-prefixed" --prefix --shards 3 --dump "$W/gpt2-prefixed.npz"
ok "$ATTN" encode --model "$W/gpt2-prefixed" -n 5 --start 20 --dtype float64 -o "$W/P-prefixed.npy"
make_model bert "$W/bert" --prefix --dtype BF16 --dump "$W/bert.npz"
ok "$ATTN" encode --model "$W/bert" -n 24 --dtype float64 -o "$W/P-bert.npy"

# The RoPE families against encode --scheme rope with their configs' parameters.
make_model llama "$W/llama" --dtype BF16
make_model mistral "$W/mistral" --shards 2
make_model qwen2 "$W/qwen2" --prefix
ok "$ATTN" encode --model "$W/llama" -n 9 --show all --dtype float64 -o "$W/llama.npz"
ok "$ATTN" encode --scheme rope -d 4 --base 10000 -n 9 --show all --dtype float64 -o "$W/rope-llama.npz"
ok "$ATTN" encode --model "$W/mistral" -n 7 --start 3 --show all --dtype float64 -o "$W/mistral.npz"
ok "$ATTN" encode --scheme rope -d 8 --base 1000000 -n 7 --start 3 --show all --dtype float64 \
    -o "$W/rope-mistral.npz"
ok "$ATTN" encode --model "$W/qwen2" -n 40 --show all --dtype float64 -o "$W/qwen2.npz"
ok "$ATTN" encode --scheme rope -d 4 --base 1000000 -n 40 --rope-scaling yarn --factor 4 \
    --original-max-positions 32 --show all --dtype float64 -o "$W/rope-qwen2.npz"
"$PYTHON" -c "import numpy as np; np.save('$W/X.npy', np.arange(24.0).reshape(6, 4))"
ok "$ATTN" encode --model "$W/llama" --apply "$W/X.npy" --dtype float64 -o "$W/rot-llama.npy"
ok "$ATTN" encode --scheme rope -d 4 --apply "$W/X.npy" --dtype float64 -o "$W/rot-rope.npy"

# BLOOM's ALiBi with its 6 heads; T5's learned bias by bucket.
make_model bloom "$W/bloom" --dtype F16
ok "$ATTN" encode --model "$W/bloom" -n 5 --show all --dtype float64 -o "$W/bloom.npz"
ok "$ATTN" encode --scheme alibi --heads 6 -n 5 --show all --dtype float64 -o "$W/alibi6.npz"
make_model t5 "$W/t5" --dtype BF16 --dump "$W/t5.npz"
ok "$ATTN" encode --model "$W/t5" -n 30 --show all --dtype float64 -o "$W/t5-model.npz"
ok "$ATTN" encode --scheme t5 --buckets 8 --max-distance 20 -n 30 -o "$W/t5-buckets.npy"

"$PYTHON" - "$W" <<'PY' || fail "numpy checks"
import sys
import numpy as np
w = sys.argv[1]
def same(a, b, what):
    if a.shape != b.shape or not np.array_equal(a, b):
        raise SystemExit("%s differs: %s vs %s, max %s" % (what, a.shape, b.shape,
                         np.max(np.abs(a - b)) if a.shape == b.shape else "-"))
for dtype in ("F32", "F16", "BF16"):
    stored = np.load("%s/gpt2-%s.npz" % (w, dtype))["wpe.weight"]
    same(np.load("%s/P-gpt2-%s.npy" % (w, dtype)), stored, "gpt2 P " + dtype)
same(np.load(w + "/P-prefixed.npy"),
     np.load(w + "/gpt2-prefixed.npz")["transformer.wpe.weight"][20:25], "prefixed rows 20..24")
same(np.load(w + "/P-bert.npy"), np.load(w + "/bert.npz")["bert.embeddings.position_embeddings.weight"],
     "bert P (BF16)")
for fam in ("llama", "mistral", "qwen2"):
    got, want = np.load("%s/%s.npz" % (w, fam)), np.load("%s/rope-%s.npz" % (w, fam))
    if sorted(got.files) != sorted(want.files):
        raise SystemExit("%s arrays %s vs %s" % (fam, got.files, want.files))
    for k in want.files:
        same(got[k], want[k], fam + " " + k)
same(np.load(w + "/rot-llama.npy"), np.load(w + "/rot-rope.npy"), "llama --apply")
got, want = np.load(w + "/bloom.npz"), np.load(w + "/alibi6.npz")
for k in ("slopes", "bias"):
    same(got[k], want[k], "bloom " + k)
t5 = np.load(w + "/t5-model.npz")
buckets = np.load(w + "/t5-buckets.npy")
same(t5["buckets"], buckets, "t5 buckets")
table = np.load(w + "/t5.npz")["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
same(t5["bias"], np.transpose(table[buckets], (2, 0, 1)), "t5 bias = table[bucket(j - i), h]")
if t5["bias"].shape != (3, 30, 30):
    raise SystemExit("t5 bias shape %s" % (t5["bias"].shape,))
PY

# The same model through the cache: ORG/NAME, refs/main or --revision, files symlinked into blobs.
HUB=$W/hub
make_model gpt2 "$W/stage" --hub "$HUB" --repo tiny-org/tiny-gpt2 --dtype F16
ok test -L "$HUB/models--tiny-org--tiny-gpt2/snapshots/0123456789abcdef0123456789abcdef01234567/model.safetensors"
HF_HUB_CACHE=$HUB expect_status 0 "$ATTN" encode --model tiny-org/tiny-gpt2 -n 2 -f csv
first=$(sed -n 2p "$OUT")
HF_HUB_CACHE= HF_HOME=$W/nohome XDG_CACHE_HOME=$W expect_status 1 "$ATTN" encode --model tiny-org/tiny-gpt2 -n 2 -f csv
expect_grep "huggingface-cli download tiny-org/tiny-gpt2" "$ERR"
expect_grep "$W/nohome/hub/models--tiny-org--tiny-gpt2" "$ERR"
mkdir -p "$W/home/.cache/huggingface"
ln -s "$HUB" "$W/home/.cache/huggingface/hub"
HOME=$W/home HF_HUB_CACHE= HF_HOME= XDG_CACHE_HOME= expect_status 0 "$ATTN" encode --model tiny-org/tiny-gpt2 -n 2 -f csv
[ "$(sed -n 2p "$OUT")" = "$first" ] || fail "the model through HOME differs"
HF_HUB_CACHE=$HUB expect_status 0 "$ATTN" encode --model tiny-org/tiny-gpt2 \
    --revision 0123456789abcdef0123456789abcdef01234567 -n 2 -f csv
HF_HUB_CACHE=$HUB expect_status 1 "$ATTN" encode --model tiny-org/tiny-gpt2 --revision v9 -n 2
expect_grep "refs/v9" "$ERR"
expect_grep "huggingface-cli download tiny-org/tiny-gpt2 --revision v9" "$ERR"

# Options the config fixes, and the model's own bounds.
for opt in "--scheme rope" "--dim 8" "--base 100" "--heads 4" "--buckets 16" "--layout split" \
    "--rope-scaling linear" "--columns 0:2" "--causal"; do
    expect_usage_error "${opt%% *}" "$ATTN" encode --model "$W/llama" $opt
    expect_grep "fixes the positions" "$ERR"
done
expect_usage_error "--revision" "$ATTN" encode --model "$W/llama" --revision main
expect_usage_error "--revision" "$ATTN" encode --revision main
expect_usage_error "-n/--start" "$ATTN" encode --model "$W/gpt2-F32" -n 33
expect_grep "rows 0..31" "$ERR"
expect_usage_error "--show" "$ATTN" encode --model "$W/t5" --show angles
# --show is a list for every model: the bad name is named, repeats and all add nothing new.
expect_usage_error "--show: 'error' is not an array of a gpt2 model; it has P, all" \
    "$ATTN" encode --model "$W/gpt2-F32" -n 2 --show P,error
expect_status 0 "$ATTN" encode --model "$W/gpt2-F32" -n 2 -f json --show P,all,P
expect_grep '^"P": ' "$OUT"
expect_usage_error "--show: 'angles' is not an array of a t5 model; it has buckets, bias (default), all" \
    "$ATTN" encode --model "$W/t5" --show bias,angles
expect_usage_error "--start" "$ATTN" encode --model "$W/bloom" --start 2
expect_usage_error "--apply" "$ATTN" encode --model "$W/gpt2-F32" --apply "$W/X.npy"
"$PYTHON" -c "import numpy as np; np.save('$W/X8.npy', np.ones((3, 8)))"
expect_usage_error "--apply" "$ATTN" encode --model "$W/llama" --apply "$W/X8.npy"
finish
