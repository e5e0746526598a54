# Helpers for the tests that run attn as a user does. Each *_test.sh sources this file.
# $ATTN is the binary; $ATTN_TEST_DATA the reference data (tests/data); $TMPDIR a scratch directory.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/attn-cli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OUT=$WORK/stdout
ERR=$WORK/stderr
failures=0
checks=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run CMD...: runs it, stdout to $OUT, stderr to $ERR, status in $STATUS.
run() {
    "$@" >"$OUT" 2>"$ERR"
    STATUS=$?
}

# expect_status N CMD...: runs CMD and checks its exit status.
expect_status() {
    local want=$1
    shift
    run "$@"
    checks=$((checks + 1))
    [ "$STATUS" -eq "$want" ] || fail "'$*' exited $STATUS, want $want; stderr: $(head -c 300 "$ERR")"
}

# expect_usage_error OPTION CMD...: exit 2, one line on stderr naming OPTION, nothing on stdout.
expect_usage_error() {
    local option=$1
    shift
    expect_status 2 "$@"
    grep -q -- "$option" "$ERR" || fail "'$*': stderr does not name $option: $(cat "$ERR")"
    [ "$(head -1 "$ERR" | cut -c1-6)" = "attn: " ] || fail "'$*': stderr does not start with 'attn: '"
    [ ! -s "$OUT" ] || fail "'$*': wrote to stdout on error"
}

# expect_output TEXT: stdout equals TEXT exactly.
expect_output() {
    checks=$((checks + 1))
    local got
    got=$(cat "$OUT")
    [ "$got" = "$1" ] || fail "stdout differs; got:
$got
want:
$1"
}

# expect_grep REGEX FILE
expect_grep() {
    checks=$((checks + 1))
    grep -qE -- "$1" "$2" || fail "no line matches '$1' in $2: $(head -c 500 "$2")"
}

# on_terminal CMD...: runs CMD with a pseudo-terminal as stdout (util-linux script).
on_terminal() {
    local cmd
    cmd=$(printf '%q ' "$@")
    script -qec "$cmd" /dev/null
}

# numpy_or_skip: exits 77 (ctest: skipped) where python3 with numpy is missing.
numpy_or_skip() {
    PYTHON=/usr/bin/python3
    if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
        echo "skipped: /usr/bin/python3 with numpy is not installed" >&2
        exit 77
    fi
}

# gnu_time_or_skip: the peak-memory tests measure with GNU time's %M.
gnu_time_or_skip() {
    if [ ! -x /usr/bin/time ] || ! /usr/bin/time -f %M true >/dev/null 2>&1; then
        echo "skipped: GNU time (/usr/bin/time, Debian package 'time') is not installed" >&2
        exit 77
    fi
}

finish() {
    echo "$checks checks, $failures failed"
    [ "$failures" -eq 0 ]
    exit $?
}
