# -f svg as a user runs it: well-formed XML, and pixels of the rendered picture where
# known cells are (P[0,1] = cos 0 = 1 is the top of the colour map; zeros are its bottom).
. "$(dirname "$0")/lib.sh"
PYTHON=/usr/bin/python3
for tool in xmllint rsvg-convert "$PYTHON"; do
    if ! command -v "$tool" >/dev/null; then
        echo "skipped: $tool is not installed (Debian: libxml2-utils, librsvg2-bin, python3)" >&2
        exit 77
    fi
done

# cell_pixel SVG ROW COL: a pixel of grid cell (ROW, COL), from the transform of
# <g id="cells">: translate(X Y) scale(W H); across its middle, a fifth of the way down,
# above the value written in an annotated cell.
cell_pixel() {
    sed -n 's/.*<g id="cells" transform="translate(\([0-9.]*\) \([0-9.]*\)) scale(\([0-9.]*\) \([0-9.]*\))".*/\1 \2 \3 \4/p' "$1" |
        awk -v i="$2" -v j="$3" '{ printf "%d,%d\n", $1 + (j + 0.5) * $3, $2 + (i + 0.2) * $4 }'
}

# expect_colors SVG "ROW COL #rrggbb" ...: renders SVG and checks each cell's colour.
expect_colors() {
    local svg=$1 png=${1%.svg}.png
    shift
    rsvg-convert "$svg" -o "$png" || { fail "rsvg-convert $svg failed"; return; }
    for spec in "$@"; do
        set -- $spec
        checks=$((checks + 1))
        local at got
        at=$(cell_pixel "$svg" "$1" "$2")
        got=$("$PYTHON" "$(dirname "$0")/png_pixel.py" "$png" "$at")
        [ "$got" = "$3" ] || fail "$svg: cell ($1, $2) at pixel $at is $got, want $3"
    done
}

xml_ok() {
    checks=$((checks + 1))
    xmllint --noout "$1" 2>"$ERR" || fail "$1 is not well-formed XML: $(head -c 300 "$ERR")"
}

# P: both signs -> rdbu by default; P[0,1] = 1 is the map's top, P[0,0] = 0 its middle.
expect_status 0 "$ATTN" encode -n 60 -d 32 -o "$WORK/P.svg"
xml_ok "$WORK/P.svg"
expect_grep '<title>positional encoding P, base 10000, interleaved \(60 x 32, float32\)</title>' "$WORK/P.svg"
expect_grep '<desc>colour map rdbu, range \[-1, 1\]</desc>' "$WORK/P.svg"
expect_colors "$WORK/P.svg" "0 1 #053061" "0 0 #f7f7f7" "0 3 #053061"
# The book's blues, and viridis: the top of each map.
expect_status 0 "$ATTN" encode -n 60 -d 32 --cmap blues -f svg -o "$WORK/Pb.svg"
expect_colors "$WORK/Pb.svg" "0 1 #08306b" "0 31 #08306b"
expect_status 0 "$ATTN" encode -n 60 -d 32 --cmap viridis -o "$WORK/Pv.svg"
expect_colors "$WORK/Pv.svg" "0 1 #fde725"

# A 0/1 matrix with zeros above the diagonal (bits of 0..3): zeros are the background
# colour of blues (the default for data of one sign), ones its darkest.
expect_status 0 "$ATTN" bits -n 4 -o "$WORK/bits.svg"
xml_ok "$WORK/bits.svg"
expect_colors "$WORK/bits.svg" "0 1 #f7fbff" "0 0 #f7fbff" "1 1 #08306b" "3 0 #08306b"

# Causal attention weights: every cell above the diagonal is the background (weight 0),
# query 0 sees only itself (weight 1, the darkest blue).
expect_status 0 "$ATTN" attend "Life is short, eat dessert first" --show weights --causal -o "$WORK/W.svg"
xml_ok "$WORK/W.svg"
expect_colors "$WORK/W.svg" "0 0 #08306b" "0 1 #f7fbff" "0 5 #f7fbff" "2 3 #f7fbff" "4 5 #f7fbff"
expect_grep '>Key</text>' "$WORK/W.svg"
expect_grep '>dessert</text>' "$WORK/W.svg"
# 6 x 6: each cell carries its value with two decimals, white on the dark blue of 1.
expect_grep '<g id="values" font-size="10" text-anchor="middle">' "$WORK/W.svg"
expect_grep 'fill="#ffffff">1.00</text>' "$WORK/W.svg"
checks=$((checks + 1))
[ "$(grep -c '">[0-9]\.[0-9][0-9]</text>' "$WORK/W.svg")" -eq 36 ] || fail "W.svg: not 36 cell values"
# 60 x 32 is too large for values.
checks=$((checks + 1))
! grep -q '<g id="values"' "$WORK/P.svg" || fail "P.svg: 60 x 32 cells carry values"

# Lines: the book's figure, four curves with a legend.
expect_status 0 "$ATTN" encode -n 60 -d 32 --columns 6:10 --plot lines -o "$WORK/cols.svg"
xml_ok "$WORK/cols.svg"
checks=$((checks + 1))
[ "$(grep -c '<polyline ' "$WORK/cols.svg")" -eq 4 ] || fail "lines: not 4 curves"
for c in 6 7 8 9; do expect_grep ">Col $c</text>" "$WORK/cols.svg"; done
rsvg-convert "$WORK/cols.svg" -o "$WORK/cols.png" || fail "rsvg-convert cols.svg failed"

# Large: averaged in blocks, the title says so; same input, same bytes.
expect_status 0 "$ATTN" encode -n 100000 -d 64 -f svg -o "$WORK/big.svg"
xml_ok "$WORK/big.svg"
expect_grep '\(100000 x 64, float32\), averaged in 32 x 1 blocks</title>' "$WORK/big.svg"
"$ATTN" encode -n 100000 -d 64 -f svg >"$WORK/big2.svg"
checks=$((checks + 1))
cmp -s "$WORK/big.svg" "$WORK/big2.svg" || fail "two runs gave different svg bytes"

# Errors: svg holds one array; lines only as svg; unknown colour maps.
expect_usage_error "holds one array" "$ATTN" bits -n 4 --show all -f svg
expect_usage_error "--plot lines" "$ATTN" encode -n 4 -d 4 --plot lines -f csv
expect_usage_error "--cmap" "$ATTN" encode --cmap jet -f svg
expect_usage_error "--plot lines" "$ATTN" encode -n 4 -d 40 --plot lines -f svg
finish
