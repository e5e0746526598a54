# attn attend --plot lines --columns A:B: the curves a line plot of attend draws, as encode,
# rotate, complexity and bits pick theirs.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
# curves FILE: the number of polylines in the lines group.
curves() { grep -c '^<polyline ' "$1"; }
S="Life is short, eat dessert first"

expect_status 0 "$ATTN" attend "$S" --show context --plot lines -o all.svg
checks=$((checks + 1))
[ "$(curves all.svg)" -eq 4 ] || fail "attend --plot lines drew $(curves all.svg) curves, want 4 (d_v)"
expect_status 0 "$ATTN" attend "$S" --show context --plot lines --columns 1:3 -o some.svg
checks=$((checks + 1))
[ "$(curves some.svg)" -eq 2 ] || fail "attend --columns 1:3 drew $(curves some.svg) curves"
expect_status 0 "$ATTN" attend "$S" --show weights --plot lines --columns -1 -f svg
checks=$((checks + 1))
[ "$(curves "$OUT")" -eq 1 ] || fail "attend --columns -1 drew $(curves "$OUT") curves"
# Out of range, or not a line plot: exit 2 naming --columns, nothing written.
expect_usage_error --columns "$ATTN" attend "$S" --show context --plot lines --columns 7:9 -o bad.svg
[ ! -e bad.svg ] || fail "bad.svg written on error"
expect_usage_error --columns "$ATTN" attend "$S" --show context --columns 0:2 -f csv

finish
