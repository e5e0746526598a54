# Tables (head_stats, next, complexity's reports): json writes each as pandas' orient="split",
# {"columns": [...], "data": [[...], ...]}, read here by pandas itself and held against the npz
# of the same run; table and md print their real columns with --precision (table: 4 decimals
# without it), never 17 digits.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
if ! "$PYTHON" -c 'import pandas' 2>/dev/null; then
    echo "skipped: python3-pandas is not installed" >&2
    exit 77
fi

M=$ATTN_TEST_DATA/models
IDS=1,5,9,3,7,22,40
expect_status 0 "$ATTN" attend --model "$M/llama" --ids $IDS --show head_stats,next \
    -o "$WORK/t.json"
expect_status 0 "$ATTN" attend --model "$M/llama" --ids $IDS --show head_stats,next \
    -o "$WORK/t.npz"
expect_status 0 "$ATTN" complexity -n 4 -d 2 -k 1 -f json -o "$WORK/c.json"
"$PYTHON" - "$WORK" <<'PY' || fail "tables in json are not pandas' orient=split"
import io, json, sys
import numpy as np, pandas as pd
w = sys.argv[1]
j = json.load(open(w + "/t.json"))
z = np.load(w + "/t.npz")

def frame(t):
    # orient="split" holds columns and data (and an index, which attn leaves out)
    split = {"columns": t["columns"], "data": t["data"]}
    return pd.read_json(io.StringIO(json.dumps(split)), orient="split", dtype=False, precise_float=True)

hs = frame(j["head_stats"])
assert list(hs.columns) == ["layer", "head", "entropy", "distance", "first", "previous", "self"]
assert hs.shape == z["head_stats"].shape == (2 * 4, 7), (hs.shape, z["head_stats"].shape)
# the shortest text that reads back: the json's numbers are the npz's float64 exactly
assert (hs.to_numpy(dtype=np.float64) == z["head_stats"]).all()
assert j["head_stats"]["shape"] == [8, 7]

nx = frame(j["next"])
assert list(nx.columns) == ["rank", "id", "token", "probability"]
assert list(nx["rank"]) == list(range(1, 11))
assert (nx["id"].to_numpy() == z["next"][:, 1]).all()
assert list(nx["token"]) == list(z["next_tokens"])  # with --ids, the ids as text
assert np.abs(nx["probability"].to_numpy(dtype=np.float64) - z["next"][:, 2]).max() == 0

# complexity's report: text columns, exact counts, and inf as null
c = frame(json.load(open(w + "/c.json"))["complexity"])
assert c["layer"][3] == "self_attention"
assert list(c["path_length"].isna()) == [True, True, False, False, False], c["path_length"]
assert list(c["multiply_adds"]) == [16, 16, 32, 64, 40], list(c["multiply_adds"])
PY
checks=$((checks + 1))

# table and md: the real columns with --precision, table 4 decimals by default; csv the shortest
# round-trip text, or --precision digits. Layer 0 head 0's statistics are 0.5635933735843662,
# 1.2041519579090942, 0.46585248883638997, 0.2703376229231556, 0.4221305645353693 (streamed
# from the fused kernel; from --show weights they differ in the eighth digit).
expect_status 0 "$ATTN" attend --model "$M/llama" --ids $IDS --show head_stats -f table
expect_grep '^ +0 +0 +0\.5636 +1\.2042 +0\.4659 +0\.2703 +0\.4221$' "$OUT"
checks=$((checks + 1))
! grep -qE '[0-9]\.[0-9]{5}' "$OUT" || fail "table without --precision: more than 4 decimals"
expect_status 0 "$ATTN" attend --model "$M/llama" --ids $IDS --show head_stats,next -f table \
    --precision 3
expect_grep '^ +0 +0 +0\.564 +1\.204 +0\.466 +0\.270 +0\.422$' "$OUT"
expect_grep '^ +1 +[0-9]+ +[0-9]+ +0\.[0-9]{3}$' "$OUT"
checks=$((checks + 1))
! grep -qE '[0-9]\.[0-9]{4}' "$OUT" || fail "table --precision 3: more than 3 decimals"
expect_status 0 "$ATTN" attend --model "$M/llama" --ids $IDS --show head_stats,next -f md \
    --precision 3
expect_grep '^\| 0 \| 0 \| 0\.564 \| 1\.2 \| 0\.466 \| 0\.27 \| 0\.422 \|$' "$OUT"
expect_grep '^\| 1 \| [0-9]+ \| [0-9]+ \| 0\.[0-9]{1,4} \|$' "$OUT"
expect_status 0 "$ATTN" attend --model "$M/llama" --ids $IDS --show head_stats -f csv
expect_grep '^0,0,0\.5635933735843662,1\.2041519579090942,0\.46585248883638997,' "$OUT"
expect_status 0 "$ATTN" attend --model "$M/llama" --ids $IDS --show head_stats -f csv \
    --precision 3
expect_grep '^0,0,0\.564,1\.2,0\.466,0\.27,0\.422$' "$OUT"
finish
