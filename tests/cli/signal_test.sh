#!/usr/bin/env bash
# A signal during a write removes every temporary file and ends attn with 128 + the signal.
. "$(dirname "$0")/lib.sh"

# kill_mid_write SIGNAL CMD...: runs CMD in an empty $WORK/run, waits until a file appears
# there (up to 20 s) and half a second more, sends SIGNAL; $STATUS is CMD's exit status.
kill_mid_write() {
    local sig=$1
    shift
    mkdir -p "$WORK/run"
    (cd "$WORK/run" && exec "$@") >"$OUT" 2>"$ERR" &
    local pid=$! tries=0
    while [ -z "$(ls -A "$WORK/run")" ] && [ $tries -lt 400 ]; do
        sleep 0.05
        tries=$((tries + 1))
    done
    [ -n "$(ls -A "$WORK/run")" ] || fail "'$*' wrote nothing in 20 s"
    sleep 0.5
    kill -s "$sig" "$pid"
    { wait "$pid"; } 2>/dev/null  # without bash's "Terminated" line
    STATUS=$?
}

# encode would write 200 GB here: it is always mid-write when the signal comes.
for sig in TERM INT HUP; do
    kill_mid_write "$sig" "$ATTN" encode -n 100000000 -d 512 -o big.npy
    want=$((128 + $(kill -l "$sig")))
    checks=$((checks + 1))
    [ "$STATUS" -eq "$want" ] || fail "SIG$sig: exit $STATUS, want $want; stderr: $(head -c 300 "$ERR")"
    left=$(ls -A "$WORK/run")
    [ -z "$left" ] || fail "SIG$sig left files behind: $left"
    rm -rf "$WORK/run"
done

# -o DIR/: every array's temporary goes.
kill_mid_write TERM "$ATTN" encode -n 100000000 -d 512 -f csv -o ./
checks=$((checks + 1))
[ "$STATUS" -eq 143 ] || fail "-o DIR/: exit $STATUS, want 143"
left=$(ls -A "$WORK/run")
[ -z "$left" ] || fail "-o DIR/ left files behind: $left"

finish
