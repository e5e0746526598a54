# Pictures for a slide: a fixed colour range (--range) so that two pictures compare, rounding
# noise drawn as 0, larger text (--font-scale), named axes on line plots, --columns for every
# command's line plots, index columns that are not curves, and curves that would hide under
# an equal one.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1

# expect_no_grep REGEX FILE
expect_no_grep() {
    checks=$((checks + 1))
    ! grep -qE -- "$1" "$2" || fail "a line matches '$1' in $2: $(grep -E -- "$1" "$2" | head -3)"
}
# curves FILE: the number of polylines in the lines group.
curves() { grep -c '^<polyline ' "$1"; }
sentence="Life is short, eat dessert first"

# --range LO:HI: the colour bar's ends, whatever the data's range; rdbu stays centred on 0.
expect_status 0 "$ATTN" encode -n 10 -d 8 --range -2:2 -o P.svg
expect_grep '<desc>colour map rdbu, range \[-2, 2\]</desc>' P.svg
expect_status 0 "$ATTN" attend "$sentence" --show weights --range 0:0.5 -o w.svg
expect_grep '<desc>colour map blues, range \[0, 0.5\]</desc>' w.svg
expect_status 0 "$ATTN" encode -n 4 -d 4 -f heatmap --color never --range -2:2
expect_grep '^-2  \.:-=\+\*#%@ 2  rdbu$' "$OUT"
expect_usage_error --range "$ATTN" encode --range 1:1 -o x.svg
expect_usage_error --range "$ATTN" encode --range 0 -o x.svg

# Rounding noise is 0: attention without positions is equivariant, its differences are
# float32 rounding (up to 1.2e-7); drawn as 0 (white), every cell annotated 0.00, the colour
# range that of the contexts compared, not of the noise.
expect_status 0 "$ATTN" attend "$sentence" --permute reverse --show equivariance -o eq.svg
# (the largest context value is 1.3607: contexts of "is").
expect_grep '<desc>colour map rdbu, range \[-1\.361, 1\.361\]</desc>' eq.svg
expect_no_grep 'e-0[0-9]' <(grep -v '<title>\|font-size="13"' eq.svg)
expect_grep 'drawn as 0' eq.svg
checks=$((checks + 1))
[ "$(grep -c '>0\.00</text>' eq.svg)" -eq 24 ] || fail "eq.svg: not every cell reads 0.00"
checks=$((checks + 1))
[ "$(grep -A8 '<g id="cells"' eq.svg | grep -c 'fill="#f7f7f7"')" -ge 6 ] ||
    fail "eq.svg: the cells are not white: $(grep -A8 '<g id="cells"' eq.svg)"
# With positions the differences are real: drawn as they are, no note.
expect_status 0 "$ATTN" attend "$sentence" --scheme sinusoidal --permute reverse --show equivariance -o eqs.svg
expect_no_grep 'drawn as 0' eqs.svg
expect_grep '>1\.03</text>' eqs.svg

# --font-scale: every text larger, the layout with room for it.
expect_status 0 "$ATTN" encode -n 10 -d 8 -o f1.svg
expect_status 0 "$ATTN" encode -n 10 -d 8 --font-scale 2 -o f2.svg
expect_grep '^<svg [^>]*font-size="22"' f2.svg
expect_grep 'font-size="26">' f2.svg
checks=$((checks + 1))
w1=$(sed -n 's/^<svg [^>]* width="\([0-9.]*\)".*/\1/p' f1.svg)
w2=$(sed -n 's/^<svg [^>]* width="\([0-9.]*\)".*/\1/p' f2.svg)
awk -v a="$w1" -v b="$w2" 'BEGIN { exit !(b > a) }' || fail "--font-scale 2 is not wider: $w1 vs $w2"
expect_usage_error --font-scale "$ATTN" encode --font-scale 9 -o x.svg

# Line plots name both axes: the rows below, the values beside the y axis (turned upwards).
expect_status 0 "$ATTN" encode -n 60 -d 32 --columns 6:10 --plot lines -o lines.svg
expect_grep '>Row \(position\)</text>' lines.svg
expect_grep 'class="value-axis" transform="rotate\(-90 [0-9.]+ [0-9.]+\)">value</text>' lines.svg
expect_status 0 "$ATTN" complexity -o c.svg
expect_grep 'class="value-axis"[^>]*>multiply-adds</text>' c.svg

# --columns picks curves in every command's line plots.
expect_status 0 "$ATTN" rotate -n 200 -d 16 --offset 1:5 --show pairs --plot lines --columns 1:3 -o r.svg
checks=$((checks + 1))
[ "$(curves r.svg)" -eq 2 ] || fail "rotate --columns 1:3 drew $(curves r.svg) curves"
expect_status 0 "$ATTN" complexity --columns 2:4 -o c2.svg
checks=$((checks + 1))
[ "$(curves c2.svg)" -eq 2 ] || fail "complexity --columns 2:4 drew $(curves c2.svg) curves"
expect_grep '>recurrent</text>' c2.svg
expect_no_grep '>convolution</text>' c2.svg
expect_status 0 "$ATTN" bits -n 16 --plot lines --columns -1 -o b.svg
checks=$((checks + 1))
[ "$(curves b.svg)" -eq 1 ] || fail "bits --columns -1 drew $(curves b.svg) curves"
expect_usage_error --columns "$ATTN" complexity --columns 7:9 -o c3.svg
expect_usage_error --columns "$ATTN" rotate --columns 0:2 -f csv

# rotate --show dot: min_i, max_i and error_i are positions, not values: no curves of them.
expect_status 0 "$ATTN" rotate -n 500 -d 64 --offset 0:10 --show dot --plot lines -o dot.svg
expect_no_grep '>(min_i|max_i|error_i|delta)</text>' <(sed -n '/<g id="legend">/,/<\/g>/p' dot.svg)
expect_grep '>max_error</text>' dot.svg
checks=$((checks + 1))
[ "$(curves dot.svg)" -eq 5 ] || fail "rotate --show dot drew $(curves dot.svg) curves, want 5"

# complexity: dilated_convolution's counts equal convolution's: marked, and said in the legend.
expect_grep '>dilated_convolution \(= convolution\)</text>' c.svg
expect_grep '<g class="copy"' c.svg
expect_no_grep '>convolution \(=' c.svg
finish
