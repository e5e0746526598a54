#!/usr/bin/env bash
# The progress bar: on standard error when it is a terminal (a pseudo-terminal here), redrawn
# in place and erased at the end (the last bytes are "\r" and the erase-line sequence);
# nothing with --quiet or when standard error is not a terminal. ATTN_PROGRESS_DELAY=0 shows
# the bar from the first block instead of after a second, so short jobs draw it.
. "$(dirname "$0")/lib.sh"
PYTHON=/usr/bin/python3
"$PYTHON" -c 'import pty' 2>/dev/null || { echo "skipped: no python3" >&2; exit 77; }

# on_pty_stderr FILE CMD...: runs CMD with stdout to $OUT and stderr on a pseudo-terminal whose
# bytes go to FILE.
on_pty_stderr() {
    local file=$1
    shift
    "$PYTHON" - "$file" "$OUT" "$@" <<'PY'
import os, pty, subprocess, sys
log, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
with open(out, "wb") as o:
    p = subprocess.Popen(cmd, stdout=o, stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the child closed the terminal
        break
    if not chunk:
        break
    data += chunk
open(log, "wb").write(data)
sys.exit(p.wait())
PY
}

# expect_bar FILE LABEL: a bar was drawn and erased.
expect_bar() {
    checks=$((checks + 1))
    grep -qa "$2  \[" "$1" || fail "$2: no progress bar on the terminal: $(head -c 300 "$1" | od -c | head)"
    grep -qa "rows" "$1" || fail "$2: the bar does not count rows"
    [ "$(tail -c 4 "$1" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
        fail "$2: the bar is not erased at the end: $(tail -c 20 "$1" | od -c)"
}

export ATTN_PROGRESS_DELAY=0
"$ATTN" encode -n 3000 -d 16 -o "$WORK/x.npy"

on_pty_stderr "$WORK/tty" "$ATTN" encode -n 300000 -d 16 -o "$WORK/p.npy" ||
    fail "encode on a terminal failed"
expect_bar "$WORK/tty" encode
on_pty_stderr "$WORK/tty" "$ATTN" attend --input "$WORK/x.npy" --dq 16 --dv 16 -o "$WORK/c.npy" ||
    fail "attend on a terminal failed"
expect_bar "$WORK/tty" attend
on_pty_stderr "$WORK/tty" "$ATTN" attend --input "$WORK/x.npy" --attention tiled --show weights \
    --threads 2 -o "$WORK/w.npy" || fail "attend --show weights on a terminal failed"
expect_bar "$WORK/tty" attend
on_pty_stderr "$WORK/tty" "$ATTN" complexity --sweep n=16:64:x2 -d 8 --measure --repeat 1 \
    -o "$WORK/m.csv" || fail "complexity --measure on a terminal failed"
expect_bar "$WORK/tty" "complexity --measure"

# --quiet: nothing at all on the terminal.
for cmd in "encode -n 300000 -d 16 -o $WORK/p.npy" \
    "attend --input $WORK/x.npy --dq 16 --dv 16 -o $WORK/c.npy" \
    "complexity --sweep n=16:64:x2 -d 8 --measure --repeat 1 -o $WORK/m.csv"; do
    # shellcheck disable=SC2086
    on_pty_stderr "$WORK/tty" "$ATTN" $cmd --quiet || fail "$cmd --quiet failed"
    checks=$((checks + 1))
    [ ! -s "$WORK/tty" ] || fail "$cmd --quiet printed: $(od -c "$WORK/tty" | head -3)"
done

# Standard error not a terminal: nothing.
run "$ATTN" encode -n 300000 -d 16 -o "$WORK/p.npy"
checks=$((checks + 1))
[ ! -s "$ERR" ] || fail "encode printed to a file as standard error: $(head -c 200 "$ERR")"
run "$ATTN" attend --input "$WORK/x.npy" --dq 16 --dv 16 -o "$WORK/c.npy"
checks=$((checks + 1))
[ ! -s "$ERR" ] || fail "attend printed to a file as standard error: $(head -c 200 "$ERR")"

finish
