# attend --dtype bfloat16|float16: every array of the random model within one ulp of the dtype
# of PyTorch doing the same in that dtype (tests/data/reduced/attend_*.npz; the notebook, heads,
# rope, alibi, sinusoidal, masks, biases, W_o, --input rows), the npy dtypes, the text's
# shortest digits, and the tiled path refused.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
HERE=$(dirname "$0")
DATA=$ATTN_TEST_DATA/reduced

"$PYTHON" "$HERE/reduced_attend_check.py" "$ATTN" "$DATA" "$WORK" || fail "within 1 ulp of PyTorch"
checks=$((checks + 1))

# csv prints each value's shortest form that reads back to the same bfloat16 / float16 value.
S="Life is short, eat dessert first"
for t in bfloat16 float16; do
    expect_status 0 "$ATTN" attend "$S" --dtype $t --show queries,weights,context -f json
    "$PYTHON" - "$OUT" $t <<'PY' || fail "$t json digits"
import json, re, sys, numpy as np
dtype = sys.argv[2]
text = open(sys.argv[1]).read()
def as_dtype(s):
    if dtype == "float16":
        return np.float16(float(s))  # numpy rounds a double to float16 once
    d = float(s)  # bfloat16: the nearest of the three neighbours, ties to even
    lo = np.float32(d).view(np.uint32) & 0xFFFF0000
    cands = [np.uint32(lo).view(np.float32), np.uint32(lo + 0x10000).view(np.float32),
             np.uint32(lo - 0x10000).view(np.float32)]
    return min(cands, key=lambda c: (abs(float(c) - d), int(c.view(np.uint32)) >> 16 & 1))
count = 0
for name, arr in json.loads(text).items():
    for s in re.findall(r"-?[0-9.]+(?:e-?[0-9]+)?", json.dumps(arr["data"])):
        v = as_dtype(s)
        digits = len(re.sub(r"e.*", "", s).replace("-", "").replace(".", "").lstrip("0"))
        for k in range(1, digits):  # no shorter decimal reads back to the same value
            assert as_dtype("%.*g" % (k, float(v))) != v, (s, k)
        assert as_dtype(repr(float(v))) == v
        count += 1
assert count > 30, count
PY
    checks=$((checks + 1))
done

# Token ids stay exact integers (float16 holds integers only to 2048, bfloat16 to 256).
words=$(seq -f 'w%04g' 0 2099 | tr '\n' ' ')
expect_status 0 "$ATTN" attend "$words" --dtype float16 --show ids -o "$WORK/ids.npy"
"$PYTHON" -c "import numpy as np, sys; a = np.load(sys.argv[1]).ravel()
assert a.dtype == np.int64 and a[2099] == 2099 and a[2049] == 2049, (a.dtype, a[2045:2052])" \
    "$WORK/ids.npy" || fail "float16 token ids"
checks=$((checks + 1))

# The fused kernel computes in float32: --attention tiled is refused with a reduced dtype.
expect_usage_error --attention "$ATTN" attend "$S" --dtype bfloat16 --attention tiled
expect_status 0 "$ATTN" attend "$S" --dtype float16 --attention auto --show context -f csv
finish
