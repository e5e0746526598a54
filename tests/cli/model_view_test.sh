#!/usr/bin/env bash
# The model view: attend --model with several layers draws one row of head panels per layer
# (-o grid.svg), on one 0..1 colour bar, and -f heatmap keeps each band of panels within one
# layer. Checked on the 3-layer, 4-head test checkpoint and on a 12 x 12 GPT-2-small-shaped one
# (random F32, written by tests/data/models/safetensors_numpy.py): panel count, panel
# positions, the colour of known cells (query 0 puts weight 1 on key 0 under the causal mask:
# the colour bar's top; weight 0 above the diagonal: its bottom).
. "$(dirname "$0")/lib.sh"
numpy_or_skip
for tool in xmllint rsvg-convert; do
    if ! command -v "$tool" >/dev/null; then
        echo "skipped: $tool is not installed (Debian: libxml2-utils, librsvg2-bin)" >&2
        exit 77
    fi
done
M=$ATTN_TEST_DATA/models/gpt2

# panel_at SVG P: "X Y W H" of <g id="cells-P">'s transform translate(X Y) scale(W H).
panel_at() {
    sed -n "s/.*<g id=\"cells-$2\" transform=\"translate(\([0-9.]*\) \([0-9.]*\)) scale(\([0-9.]*\) \([0-9.]*\))\".*/\1 \2 \3 \4/p" "$1"
}

# expect_cell_color SVG P ROW COL #rrggbb: the rendered colour of cell (ROW, COL) of panel P.
expect_cell_color() {
    local png=${1%.svg}.png at got
    [ -e "$png" ] || rsvg-convert "$1" -o "$png" || { fail "rsvg-convert $1 failed"; return; }
    at=$(panel_at "$1" "$2" | awk -v i="$3" -v j="$4" '{ printf "%d,%d\n", $1 + (j + 0.5) * $3, $2 + (i + 0.5) * $4 }')
    got=$("$PYTHON" "$(dirname "$0")/png_pixel.py" "$png" "$at")
    checks=$((checks + 1))
    [ "$got" = "$5" ] || fail "$1: panel $2 cell ($3, $4) at $at is $got, want $5"
}

expect_status 0 "$ATTN" attend --model "$M" --ids 1,2,3,4,5,6,7,8 -o "$WORK/grid.svg"
checks=$((checks + 1))
xmllint --noout "$WORK/grid.svg" 2>"$ERR" || fail "grid.svg is not well-formed: $(head -c 300 "$ERR")"
checks=$((checks + 1))
[ "$(grep -c '<g id="cells-' "$WORK/grid.svg")" -eq 12 ] || fail "grid.svg: not 12 panels"
expect_grep '<desc>colour map blues, range \[0, 1\]</desc>' "$WORK/grid.svg"
# Rows of panels are layers: the heads of a layer share y; layer 1 starts a new row at x of
# head 0.
read -r x0 y0 _ _ <<<"$(panel_at "$WORK/grid.svg" 0)"
read -r x3 y3 _ _ <<<"$(panel_at "$WORK/grid.svg" 3)"
read -r x4 y4 _ _ <<<"$(panel_at "$WORK/grid.svg" 4)"
read -r x8 y8 _ _ <<<"$(panel_at "$WORK/grid.svg" 8)"
checks=$((checks + 1))
[ "$y0" = "$y3" ] && [ "$x0" = "$x4" ] && [ "$x0" = "$x8" ] &&
    awk -v a="$y0" -v b="$y4" -v c="$y8" -v d="$x0" -v e="$x3" 'BEGIN { exit !(a < b && b < c && d < e) }' ||
    fail "panels not one row per layer: 0 at ($x0, $y0), 3 at ($x3, $y3), 4 at ($x4, $y4), 8 at ($x8, $y8)"
grep -q '>layer 2, head 3<' "$WORK/grid.svg" || fail "no panel titled 'layer 2, head 3'"
expect_cell_color "$WORK/grid.svg" 5 0 0 '#08306b'
expect_cell_color "$WORK/grid.svg" 11 0 1 '#f7fbff'
expect_cell_color "$WORK/grid.svg" 11 2 5 '#f7fbff'
# One layer: the head grid of before (2 x 2).
expect_status 0 "$ATTN" attend --model "$M" --ids 1,2,3,4,5,6,7,8 --layer 1 -o "$WORK/one.svg"
read -r _ y1a _ _ <<<"$(panel_at "$WORK/one.svg" 1)"
read -r _ y1b _ _ <<<"$(panel_at "$WORK/one.svg" 2)"
checks=$((checks + 1))
awk -v a="$y1a" -v b="$y1b" 'BEGIN { exit !(a < b) }' || fail "one layer: 4 heads not in 2 rows"

# 12 x 12 (GPT-2 small's grid) at 20 tokens: 144 panels, each at least 96 px wide, no values
# written in the cells, the whole at most 2000 px wide.
mkdir "$WORK/m12"
"$PYTHON" - "$ATTN_TEST_DATA/models" "$WORK/m12" <<'PY' || fail "writing the 12 x 12 checkpoint"
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import safetensors_numpy
folder, d, heads, layers, positions, vocab = sys.argv[2], 96, 12, 12, 32, 32
json.dump({"model_type": "gpt2", "n_embd": d, "n_head": heads, "n_layer": layers,
           "n_positions": positions, "vocab_size": vocab}, open(f"{folder}/config.json", "w"))
shapes = {"wte.weight": (vocab, d), "wpe.weight": (positions, d)}
for i in range(layers):
    for name, shape in (("ln_1.weight", (d,)), ("ln_1.bias", (d,)), ("attn.c_attn.weight", (d, 3 * d)),
                        ("attn.c_attn.bias", (3 * d,)), ("attn.c_proj.weight", (d, d)),
                        ("attn.c_proj.bias", (d,)), ("ln_2.weight", (d,)), ("ln_2.bias", (d,)),
                        ("mlp.c_fc.weight", (d, 4 * d)), ("mlp.c_fc.bias", (4 * d,)),
                        ("mlp.c_proj.weight", (4 * d, d)), ("mlp.c_proj.bias", (d,))):
        shapes[f"h.{i}.{name}"] = shape
shapes.update({"ln_f.weight": (d,), "ln_f.bias": (d,)})
rng = np.random.default_rng(12)
norm = lambda name: "ln_" in name and name.endswith("weight")
safetensors_numpy.write(f"{folder}/model.safetensors",
                        {name: np.ones(shape) if norm(name) else rng.normal(0, 0.2, shape)
                         for name, shape in shapes.items()})
PY
expect_status 0 "$ATTN" attend --model "$WORK/m12" --ids "$(seq -s, 0 19)" -o "$WORK/m12.svg"
checks=$((checks + 1))
xmllint --noout "$WORK/m12.svg" 2>"$ERR" || fail "m12.svg is not well-formed"
checks=$((checks + 1))
rsvg-convert "$WORK/m12.svg" -o "$WORK/m12.png" || fail "m12.svg does not render"
checks=$((checks + 1))
[ "$(grep -c '<g id="cells-' "$WORK/m12.svg")" -eq 144 ] || fail "m12.svg: not 144 panels"
read -r _ _ cw _ <<<"$(panel_at "$WORK/m12.svg" 143)"
width=$(sed -n 's/^<svg [^>]* width="\([0-9.]*\)".*/\1/p' "$WORK/m12.svg")
checks=$((checks + 1))
awk -v cw="$cw" -v w="$width" 'BEGIN { exit !(cw * 20 >= 96 && w <= 2000) }' ||
    fail "m12.svg: panels ${cw} px x 20 wide, picture $width px"
checks=$((checks + 1))
! grep -q '<g id="values-' "$WORK/m12.svg" || fail "m12.svg: 144 panels with every value written"
read -r x12 y12 _ _ <<<"$(panel_at "$WORK/m12.svg" 12)"
read -r x11 y11 _ _ <<<"$(panel_at "$WORK/m12.svg" 11)"
checks=$((checks + 1))
awk -v a="$y11" -v b="$y12" 'BEGIN { exit !(a < b) }' || fail "m12.svg: layer 1 not on a new row"

# The terminal: each band of panels holds heads of one layer, the layers one after another.
# 60 columns fit two panels of 8 tokens: bands of 2 (a divisor of 4 heads), 6 bands.
COLUMNS=60 LINES=40 NO_COLOR=1 run "$ATTN" attend --model "$M" --ids 1,2,3,4,5,6,7,8 -f heatmap
checks=$((checks + 1))
[ "$STATUS" -eq 0 ] || fail "-f heatmap exited $STATUS"
grep '^layer' "$OUT" >"$WORK/titles"
checks=$((checks + 1))
[ "$(wc -l <"$WORK/titles")" -eq 6 ] || fail "heatmap: $(wc -l <"$WORK/titles") bands, want 6: $(cat "$WORK/titles")"
checks=$((checks + 1))
awk '{ n = split($0, a, /layer /); for (k = 3; k <= n; k++) if (substr(a[k], 1, 1) != substr(a[2], 1, 1)) exit 1 }' "$WORK/titles" ||
    fail "heatmap: a band mixes layers: $(cat "$WORK/titles")"
# Every panel shows all 8 queries (one band fits the height; the layers follow as pages).
checks=$((checks + 1))
[ "$(grep -c '^7 ' "$OUT")" -eq 6 ] || fail "heatmap: query 7 not in every band"
# head_stats as a scatter: one point per head at (distance, entropy), placed by the axes that
# <desc> states; offsets as one curve per head whose points are the mean weights by offset.
expect_status 0 "$ATTN" attend --model "$M" --ids 1,2,3,4,5,6,7,8 --show head_stats -o "$WORK/stats.csv"
expect_status 0 "$ATTN" attend --model "$M" --ids 1,2,3,4,5,6,7,8 --show head_stats -o "$WORK/stats.svg"
expect_status 0 "$ATTN" attend --model "$M" --ids 1,2,3,4,5,6,7,8 --show offsets -o "$WORK/offsets.npy"
expect_status 0 "$ATTN" attend --model "$M" --ids 1,2,3,4,5,6,7,8 --show offsets -o "$WORK/offsets.svg"
for svg in stats offsets; do
    checks=$((checks + 1))
    xmllint --noout "$WORK/$svg.svg" 2>"$ERR" || fail "$svg.svg is not well-formed"
    checks=$((checks + 1))
    rsvg-convert "$WORK/$svg.svg" -o "$WORK/$svg.png" || fail "$svg.svg does not render"
done
checks=$((checks + 1))
"$PYTHON" - "$WORK/stats.csv" "$WORK/stats.svg" "$WORK/offsets.npy" "$WORK/offsets.svg" <<'PY' || fail "scatter or curves do not match the data"
import csv, re, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
svg = open(sys.argv[2]).read()
def axes(text):
    m = re.search(r"<desc>x \[(\S+), (\S+)\] -&gt; \[(\S+), (\S+)\], y \[(\S+), (\S+)\] -&gt; \[(\S+), (\S+)\]</desc>", text)
    x0, x1, px0, px1, y0, y1, py0, py1 = map(float, m.groups())
    return (lambda x: px0 + (x - x0) / (x1 - x0) * (px1 - px0)), (lambda y: py0 + (y - y0) / (y1 - y0) * (py1 - py0))
fx, fy = axes(svg)
points = re.findall(r'<circle id="point-(\d+)" cx="([\d.]+)" cy="([\d.]+)"[^>]*><title>([\d.]+)</title>', svg)
assert len(points) == 12, len(points)
for r, cx, cy, name in points:
    row = rows[int(r)]
    assert name == f"{row['layer']}.{row['head']}", (name, row)
    assert abs(float(cx) - fx(float(row["distance"]))) <= 0.006, (cx, row)
    assert abs(float(cy) - fy(float(row["entropy"]))) <= 0.006, (cy, row)
offsets = np.load(sys.argv[3]).reshape(12, 15)
svg = open(sys.argv[4]).read()
fx, fy = axes(svg)
curves = re.findall(r'<polyline id="curve-(\d+)" points="([^"]+)"', svg)
assert len(curves) == 12, len(curves)
for r, pts in curves:
    xy = np.array([[float(v) for v in p.split(",")] for p in pts.split()])
    assert np.allclose(xy[:, 0], [fx(o) for o in range(-7, 8)], atol=0.006)
    assert np.allclose(xy[:, 1], [fy(v) for v in offsets[int(r)]], atol=0.006), r
PY
finish
