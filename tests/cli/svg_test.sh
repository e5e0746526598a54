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

# gray_cell SVG ROW COL: the rendered cell is grey (r = g = b), neither white nor the
# lightest blue of a weight of 0.
gray_cell() {
    local png=${1%.svg}.png at got
    [ -e "$png" ] || rsvg-convert "$1" -o "$png" || { fail "rsvg-convert $1 failed"; return; }
    checks=$((checks + 1))
    at=$(cell_pixel "$1" "$2" "$3")
    got=$("$PYTHON" "$(dirname "$0")/png_pixel.py" "$png" "$at")
    case $got in
        '#ffffff' | '#f7fbff') fail "$1: masked cell ($2, $3) is $got, the colour of a weight" ;;
        \#??????)
            [ "${got:1:2}" = "${got:3:2}" ] && [ "${got:3:2}" = "${got:5:2}" ] ||
                fail "$1: masked cell ($2, $3) at pixel $at is $got, not grey" ;;
        *) fail "$1: no pixel for cell ($2, $3): $got" ;;
    esac
}

# 6 x 6 weights: each cell carries its value with two decimals (weight[1, 1] = 0.6870 is
# 0.69), white on dark blue; the colour bar runs from 0 to 1 though the largest weight is
# 0.69; axes query and key, rows and columns labelled by their tokens.
S="Life is short, eat dessert first"
expect_status 0 "$ATTN" attend "$S" --show weights -f csv
expect_grep '^1,is,0\.0386[0-9]*,0\.6870' "$OUT"
expect_status 0 "$ATTN" attend "$S" --show weights -o "$WORK/W6.svg"
xml_ok "$WORK/W6.svg"
expect_grep '<g id="values" font-size="10" text-anchor="middle">' "$WORK/W6.svg"
expect_grep '>0\.69</text>' "$WORK/W6.svg"
checks=$((checks + 1))
[ "$(grep -c '">[0-9]\.[0-9][0-9]</text>' "$WORK/W6.svg")" -eq 36 ] || fail "W6.svg: not 36 cell values"
expect_grep '<desc>colour map blues, range \[0, 1\]</desc>' "$WORK/W6.svg"
expect_grep 'text-anchor="start">1</text>' "$WORK/W6.svg"
expect_grep 'text-anchor="start">0</text>' "$WORK/W6.svg"
checks=$((checks + 1))
! grep -q '>0\.687' "$WORK/W6.svg" || fail "W6.svg: the colour bar ends at the largest weight"
expect_grep 'rotate\(-90 [0-9.]+ [0-9.]+\)">query</text>' "$WORK/W6.svg"
expect_grep 'text-anchor="middle">key</text>' "$WORK/W6.svg"
for t in Life is short eat dessert first; do
    expect_grep "rotate\(-90 [0-9.]+ [0-9.]+\)\">$t</text>" "$WORK/W6.svg"
    expect_grep "text-anchor=\"end\">[0-9] $t</text>" "$WORK/W6.svg"
done
# --annotate never: no values; always: even 60 x 32 cells carry them.
expect_status 0 "$ATTN" attend "$S" --show weights --annotate never -o "$WORK/W6n.svg"
checks=$((checks + 1))
! grep -q '<g id="values"' "$WORK/W6n.svg" || fail "--annotate never wrote values"
expect_status 0 "$ATTN" encode -n 24 -d 24 --annotate always -o "$WORK/Pa.svg"
xml_ok "$WORK/Pa.svg"
checks=$((checks + 1))
[ "$(grep -c '">-\{0,1\}[0-9]\.[0-9][0-9]</text>' "$WORK/Pa.svg")" -eq 576 ] || fail "--annotate always: not 576 values"
expect_usage_error "--annotate" "$ATTN" attend "$S" --show weights --annotate sometimes -o "$WORK/x.svg"
# One query (--query 1): still a 0 .. 1 colour bar.
expect_status 0 "$ATTN" attend "$S" --show weights --query 1 -o "$WORK/Wq.svg"
xml_ok "$WORK/Wq.svg"
expect_grep '<desc>colour map blues, range \[0, 1\]</desc>' "$WORK/Wq.svg"

# Causal attention weights: query 0 sees only itself (weight 1, the darkest blue); the
# cells above the diagonal are masked: grey, hatched, without values, and the legend says so.
expect_status 0 "$ATTN" attend "$S" --show weights --causal -o "$WORK/W.svg"
xml_ok "$WORK/W.svg"
expect_colors "$WORK/W.svg" "0 0 #08306b"
for cell in "0 1" "0 5" "2 3" "4 5"; do gray_cell "$WORK/W.svg" $cell; done
expect_grep '<g id="legend">' "$WORK/W.svg"
expect_grep 'text-anchor="start">masked</text>' "$WORK/W.svg"
expect_grep 'fill="#ffffff">1.00</text>' "$WORK/W.svg"
checks=$((checks + 1))
[ "$(grep -c '">[0-9]\.[0-9][0-9]</text>' "$WORK/W.svg")" -eq 21 ] || fail "W.svg: not 21 values below and on the diagonal"
# --valid-len 4: keys 4 and 5 masked for every query.
expect_status 0 "$ATTN" attend "$S" --show weights --valid-len 4 -o "$WORK/Wv.svg"
xml_ok "$WORK/Wv.svg"
for cell in "0 4" "5 5" "3 4"; do gray_cell "$WORK/Wv.svg" $cell; done
# 60 x 32 is too large for values.
checks=$((checks + 1))
! grep -q '<g id="values"' "$WORK/P.svg" || fail "P.svg: 60 x 32 cells carry values"

# --title: the svg's <title> and the line drawn above the picture.
expect_status 0 "$ATTN" attend "$S" --show weights --causal --title 'Causal <self>-attention' -o "$WORK/Wt.svg"
xml_ok "$WORK/Wt.svg"
expect_grep '<title>Causal &lt;self&gt;-attention</title>' "$WORK/Wt.svg"
expect_grep 'font-size="13">Causal &lt;self&gt;-attention</text>' "$WORK/Wt.svg"
# The default title says what the matrix is.
expect_grep '<title>attention weights softmax\(omega / sqrt\(d_k\)\), causal \(6 x 6, float32\)</title>' "$WORK/W.svg"

# Four heads: a 2 x 2 grid of panels titled head 0 .. head 3 (two at the same height),
# one colour bar; rows labelled by position and token, the panel saying the head.
expect_status 0 "$ATTN" attend "$S" --heads 4 --show weights -o "$WORK/H.svg"
xml_ok "$WORK/H.svg"
for h in 0 1 2 3; do expect_grep "font-size=\"12\">head $h</text>" "$WORK/H.svg"; done
checks=$((checks + 1))
y0=$(sed -n 's/.*y="\([0-9.]*\)" text-anchor="middle" font-size="12">head 0<.*/\1/p' "$WORK/H.svg")
y1=$(sed -n 's/.*y="\([0-9.]*\)" text-anchor="middle" font-size="12">head 1<.*/\1/p' "$WORK/H.svg")
[ -n "$y0" ] && [ "$y0" = "$y1" ] || fail "H.svg: head 0 (y $y0) and head 1 (y $y1) not side by side"
checks=$((checks + 1))
[ "$(grep -c '<g id="colorbar"' "$WORK/H.svg")" -eq 1 ] || fail "H.svg: not one colour bar"
expect_grep 'text-anchor="end">1 is</text>' "$WORK/H.svg"
expect_grep '<desc>colour map blues, range \[0, 1\]</desc>' "$WORK/H.svg"
# Scores: panels too, their own range, axes query and key.
expect_status 0 "$ATTN" attend "$S" --heads 2 --show scores -o "$WORK/Hs.svg"
xml_ok "$WORK/Hs.svg"
expect_grep 'font-size="12">head 1</text>' "$WORK/Hs.svg"
expect_grep 'text-anchor="middle">key</text>' "$WORK/Hs.svg"
# Sentences from standard input: a panel per sentence and head.
printf 'Life is short\neat dessert first\n' | "$ATTN" attend --heads 2 --show weights -o "$WORK/Hi.svg" ||
    fail "attend from standard input to svg failed"
xml_ok "$WORK/Hi.svg"
expect_grep 'font-size="12">sentence 1, head 0</text>' "$WORK/Hi.svg"

# complexity -o c.svg: five curves of multiply-adds against n on log-log axes, n = 16 ..
# 65536 at d = 512, and a dashed line where self-attention passes recurrent (n = d).
expect_status 0 "$ATTN" complexity -o "$WORK/c.svg"
xml_ok "$WORK/c.svg"
checks=$((checks + 1))
[ "$(grep -c '<polyline ' "$WORK/c.svg")" -eq 5 ] || fail "complexity: not 5 curves"
for layer in convolution dilated_convolution recurrent self_attention restricted_self_attention; do
    expect_grep "text-anchor=\"start\">$layer( \\(= convolution\\))?</text>" "$WORK/c.svg"
done
expect_grep '<line class="marker"' "$WORK/c.svg"
expect_grep '>n = d = 512: self-attention costlier than recurrent</text>' "$WORK/c.svg"
expect_grep '\(13 x 6, float64\)</title>' "$WORK/c.svg"
expect_grep 'text-anchor="middle">n</text>' "$WORK/c.svg"
expect_grep '>1e\+12</text>' "$WORK/c.svg"
rsvg-convert "$WORK/c.svg" -o "$WORK/c.png" || fail "rsvg-convert c.svg failed"
# With --sweep: its sizes (4 points per curve), its d.
expect_status 0 "$ATTN" complexity --sweep n=64:512:x2 -d 128 --plot lines -o "$WORK/c2.svg"
xml_ok "$WORK/c2.svg"
expect_grep '\(4 x 6, float64\)</title>' "$WORK/c2.svg"
expect_grep '>n = d = 128: ' "$WORK/c2.svg"
checks=$((checks + 1))
[ "$(grep '<polyline ' "$WORK/c2.svg" | head -1 | grep -o ',' | wc -l)" -eq 4 ] || fail "complexity sweep: not 4 points"
expect_usage_error "--positions" "$ATTN" complexity -n 100 -o "$WORK/c3.svg"

# rotate's sweep with --plot lines: the position is the x axis, not a curve.
expect_status 0 "$ATTN" rotate -n 100 -d 16 --positions-up-to 1000 --plot lines -o "$WORK/r.svg"
xml_ok "$WORK/r.svg"
checks=$((checks + 1))
[ "$(grep -c '<polyline ' "$WORK/r.svg")" -eq 8 ] || fail "rotate sweep: not 8 curves"
checks=$((checks + 1))
[ "$(grep -c '>position</text>' "$WORK/r.svg")" -eq 1 ] || fail "rotate sweep: position is not only the x axis"
expect_grep 'text-anchor="middle">position</text>' "$WORK/r.svg"
expect_status 0 "$ATTN" rotate -n 100 -d 8 --offset 1:20 --show summary --plot lines -o "$WORK/rs.svg"
xml_ok "$WORK/rs.svg"
expect_grep 'text-anchor="middle">delta</text>' "$WORK/rs.svg"
checks=$((checks + 1))
[ "$(grep -c '<polyline ' "$WORK/rs.svg")" -eq 6 ] || fail "rotate summary: not 6 curves"

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
