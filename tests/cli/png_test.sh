# PNG output (-f png, -o FILE.png): the svg picture rendered by librsvg, so its pixels are
# those of the svg as rsvg-convert renders it; --size WxH sets the picture's size, in pixels
# for PNG.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
HERE=$(cd "$(dirname "$0")" && pwd)
command -v rsvg-convert >/dev/null || { echo "skipped: rsvg-convert is not installed" >&2; exit 77; }
cd "$WORK" || exit 1

# same_pixels A.png B.png: same size and the same RGBA at every pixel (png_pixel's decoder).
same_pixels() {
    checks=$((checks + 1))
    "$PYTHON" - "$1" "$2" "$HERE" <<'EOF' || fail "$1 and $2 differ"
import sys
sys.path.insert(0, sys.argv[3])
from png_pixel import read_png
a, b = read_png(sys.argv[1]), read_png(sys.argv[2])
def rgba(p):
    w, h, bpp, rows = p
    return [bytes(r) if bpp == 4 else b"".join(bytes(r[i:i+3]) + b"\xff" for i in range(0, len(r), 3)) for r in rows]
if a[:2] != b[:2]:
    sys.exit(f"sizes {a[:2]} and {b[:2]}")
diff = sum(x != y for ra, rb in zip(rgba(a), rgba(b)) for x, y in zip(ra, rb))
sys.exit(f"{diff} bytes differ" if diff else 0)
EOF
}
# png_size FILE: "W H" from the IHDR chunk.
png_size() {
    "$PYTHON" -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
print(*struct.unpack(">II", d[16:24]))' "$1"
}
# svg_size FILE: "W H" of the <svg> element's width and height.
svg_size() {
    sed -n 's/^<svg [^>]* width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1 \2/p' "$1" | head -1
}

# By extension and by -f; the same pixels as the svg rendered by rsvg-convert.
expect_status 0 "$ATTN" encode -n 12 -d 8 -o P.png
expect_status 0 "$ATTN" encode -n 12 -d 8 -o P.svg
rsvg-convert P.svg -o ref.png || fail "rsvg-convert failed"
same_pixels P.png ref.png
checks=$((checks + 1))
read -r w h < <(svg_size P.svg)
[ "$(png_size P.png)" = "$(printf '%.0f %.0f' "$w" "$h")" ] ||
    fail "P.png is $(png_size P.png), the svg $w x $h"
expect_status 0 "$ATTN" encode -n 12 -d 8 -f png -o P2.png
checks=$((checks + 1))
cmp -s P.png P2.png || fail "-f png and .png differ"
# Lines too, into a pipe.
run sh -c "'$ATTN' encode -n 20 -d 8 --columns 0:2 --plot lines -f png >lines.png"
checks=$((checks + 1))
[ "$STATUS" -eq 0 ] && [ "$(head -c 4 lines.png | tail -c 3)" = "PNG" ] || fail "--plot lines -f png into a pipe"

# --size WxH: the PNG's pixels; the svg's width and height, its drawing scaled to fit.
expect_status 0 "$ATTN" encode -n 12 -d 8 --size 1600x900 -o big.png
checks=$((checks + 1))
[ "$(png_size big.png)" = "1600 900" ] || fail "--size 1600x900 gave $(png_size big.png)"
expect_status 0 "$ATTN" encode -n 12 -d 8 --size 1600x900 -o big.svg
checks=$((checks + 1))
[ "$(svg_size big.svg)" = "1600 900" ] || fail "--size 1600x900 svg is $(svg_size big.svg)"
expect_grep 'viewBox="0 0 ' big.svg
expect_usage_error --size "$ATTN" encode --size 1600 -o x.png
expect_usage_error --size "$ATTN" encode --size 0x100 -o x.png
expect_usage_error --size "$ATTN" encode --size 100000x100 -o x.png

# One picture per file; binary, so not onto a terminal; not for a table.
expect_usage_error "holds one array" "$ATTN" encode --scheme rope --show all -f png -o r.png
[ ! -e r.png ] || fail "a refused run left r.png"
if command -v script >/dev/null; then
    checks=$((checks + 1))
    text=$(on_terminal "$ATTN" encode -f png 2>&1)
    case $text in *"binary data not written to a terminal"*) ;; *) fail "-f png on a terminal: $text" ;; esac
fi
finish
