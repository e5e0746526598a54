# The committed pictures (share/pictures/*.svg) are what attn makes now: regenerate them
# into a scratch directory and compare byte for byte. To update: cmake --build <dir>
# --target pictures, and commit the result.
. "$(dirname "$0")/lib.sh"
PICTURES=$ATTN_SOURCE_DIR/share/pictures
mkdir "$WORK/pictures"
bash "$PICTURES/pictures.sh" "$ATTN" "$WORK/pictures" 2>"$ERR" || fail "pictures.sh failed: $(cat "$ERR")"
for made in "$WORK"/pictures/*.svg; do
    name=$(basename "$made")
    checks=$((checks + 1))
    cmp -s "$made" "$PICTURES/$name" ||
        fail "share/pictures/$name is stale: run cmake --build <build dir> --target pictures and commit it"
done
for committed in "$PICTURES"/*.svg; do
    checks=$((checks + 1))
    [ -e "$WORK/pictures/$(basename "$committed")" ] || fail "share/pictures/$(basename "$committed") is not made by pictures.sh"
done
[ "$checks" -ge 4 ] || fail "only $checks pictures"
finish
