# The man page renders without a warning and documents every command and long option.
. "$(dirname "$0")/lib.sh"
MAN=$ATTN_SOURCE_DIR/man/attn.1

if ! command -v groff >/dev/null; then
    echo "skipped: groff is not installed" >&2
    exit 77
fi
# groff exits 0 even when it warns: any output on stderr is a failure.
groff -man -Tutf8 -ww -z "$MAN" 2>"$ERR"
checks=$((checks + 1))
[ ! -s "$ERR" ] || fail "groff warns: $(cat "$ERR")"

# The commands attn --help lists, and each command's long options.
run "$ATTN" --help
commands=$(sed -n '/^Subcommands:/,/^$/p' "$OUT" | awk 'NF > 0 && !/Subcommands/ {print $1}')
[ -n "$commands" ] || fail "attn --help lists no commands"
rendered=$(MANWIDTH=200 groff -man -Tutf8 "$MAN" 2>/dev/null | sed 's/.\x08//g')
for cmd in $commands; do
    checks=$((checks + 1))
    grep -qE "^   $cmd\$" <<<"$rendered" || fail "man page has no section for '$cmd'"
    run "$ATTN" "$cmd" --help
    checks=$((checks + 1))
    grep -q '^Example' "$OUT" || fail "attn $cmd --help shows no example"
    for opt in $(grep -oE -- '--[a-z][a-z0-9-]+' "$OUT" | sort -u); do
        checks=$((checks + 1))
        grep -qF -- "$opt" <<<"$rendered" || fail "man page does not mention $cmd $opt"
    done
done
# head_stats counts query 0, which a causal model forces onto itself (first and self about 1/n
# higher): the man page's description and the README's figures say so.
checks=$((checks + 1))
tr -s ' \n' ' ' <"$MAN" | grep -qF 'every query counts, query 0 included, which a causal model forces onto itself' ||
    fail "the man page's head_stats does not say that it counts query 0"
checks=$((checks + 1))
tr -s ' \n' ' ' <"$ATTN_SOURCE_DIR/README.md" | grep -qF 'query 0 included, which a causal model forces onto itself' ||
    fail "the README's head_stats figures do not say that they count query 0"
finish
