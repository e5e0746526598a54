# -f heatmap as a user runs it: colours only on a terminal, and as the environment says.
. "$(dirname "$0")/lib.sh"
ESC=$(printf '\033')

# A pipe: the grey ramp, no escape codes; the note when it had to average.
expect_status 0 "$ATTN" encode -n 4 -d 4 -f heatmap
expect_grep '^positional encoding P, base 10000, interleaved \(4 x 4, float32\)$' "$OUT"
expect_grep '^0 ' "$OUT"
expect_grep '^3 ' "$OUT"
expect_grep '^-1  \.:-=\+\*#%@ 1  rdbu$' "$OUT"
checks=$((checks + 1))
! grep -q "$ESC" "$OUT" || fail "escape codes in a pipe"
COLUMNS=30 LINES=10 run "$ATTN" encode -n 60 -d 32 -f heatmap
expect_grep '^averaged in blocks of 10 rows x 2 columns to fit 30 x 10$' "$OUT"

# A terminal: 24-bit with COLORTERM=truecolor (or 24bit), 256 colours otherwise, none for
# NO_COLOR or TERM=dumb.
export TERM=xterm-256color
COLORTERM=truecolor on_terminal "$ATTN" encode -n 4 -d 4 -f heatmap >"$OUT" 2>&1
expect_grep "^0 ${ESC}\[38;2;247;247;247m█" "$OUT"
expect_grep "^3 ${ESC}\[38;2;" "$OUT"  # rows that fit: one per line, each labelled
# Rows that do not fit the terminal's height: two per line in upper half blocks.
COLORTERM=truecolor script -qec "stty rows 10 cols 80; $(printf '%q ' "$ATTN") encode -n 12 -d 4 -f heatmap" \
    /dev/null >"$OUT" 2>&1
expect_grep "^ ?0 ${ESC}\[38;2;[0-9;]+;48;2;[0-9;]+m▀" "$OUT"
expect_grep "^ ?2 ${ESC}" "$OUT"
COLORTERM=24bit on_terminal "$ATTN" encode -n 4 -d 4 -f heatmap >"$OUT" 2>&1
expect_grep "${ESC}\[38;2;" "$OUT"
COLORTERM= on_terminal "$ATTN" encode -n 4 -d 4 -f heatmap >"$OUT" 2>&1
expect_grep "^0 ${ESC}\[38;5;[0-9]+m█" "$OUT"
# rdbu keeps its hues in 256 colours: P[0,0] = 0 white (231), P[0,1] = 1 navy (18), the
# scale from dark red (52) to navy.
expect_grep "^0 ${ESC}\[38;5;231m█+${ESC}\[38;5;18m█" "$OUT"
expect_grep "^-1 ${ESC}\[38;5;52m█" "$OUT"
checks=$((checks + 1))
! grep -q "${ESC}\[38;2;" "$OUT" || fail "24-bit colour without COLORTERM"
for env in NO_COLOR=1 TERM=dumb; do
    env COLORTERM=truecolor "$env" bash -c "$(declare -f on_terminal); on_terminal \"\$@\"" _ \
        "$ATTN" encode -n 4 -d 4 -f heatmap >"$OUT" 2>&1
    checks=$((checks + 1))
    ! grep -q "$ESC" "$OUT" || fail "$env: escape codes"
    expect_grep '^-1  \.:-=\+\*#%@ 1  rdbu' "$OUT"
done
# NO_COLOR set but empty does not count.
NO_COLOR= COLORTERM=truecolor on_terminal "$ATTN" encode -n 4 -d 4 -f heatmap >"$OUT" 2>&1
expect_grep "${ESC}\[38;2;" "$OUT"

# Several arrays, one after another; --cmap; --plot lines is an svg.
expect_status 0 "$ATTN" bits -n 4 -d 4 -f heatmap --cmap viridis
expect_grep '^positions in binary \(4 x 2, int64\)$' "$OUT"
expect_grep '^bit periods and column-pair wavelengths' "$OUT"
expect_grep 'viridis$' "$OUT"
expect_usage_error "--plot lines" "$ATTN" encode -f heatmap --plot lines

# Memory does not grow with n: 1e6 rows (a grid of every row would take 630 MB) under a
# 300 MB limit, averaged to at most 2000 lines. (Not under AddressSanitizer: it reserves
# terabytes of address space.)
if [ "${ATTN_SANITIZED:-OFF}" != ON ]; then
    (ulimit -v 300000; "$ATTN" encode -n 1000000 -d 64 -f heatmap >"$OUT") ||
        fail "heatmap of 1e6 rows needed more than 300 MB"
    checks=$((checks + 1))
    [ "$(wc -l <"$OUT")" -le 2004 ] || fail "heatmap of 1e6 rows: more than 2004 lines"
    expect_grep '^averaged in blocks of 500 rows x 1 columns to fit 80 columns and 2000 lines$' "$OUT"
fi
finish
