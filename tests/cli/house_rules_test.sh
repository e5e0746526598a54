# The source tree keeps the shape src/README.md describes, checked on the sources as they are:
# no file over 450 lines; src/cli at most a quarter of src/; each family's model_type (as the
# binary lists them) written in one file of src/attn/model, its own, and in no file of src/cli
# but as the position scheme t5 (another vocabulary: --scheme t5); cli compares no format name
# and splits no comma list outside cli/arguments; attend has one --show enum.
. "$(dirname "$0")/lib.sh"
cd "$ATTN_SOURCE_DIR" || exit 1

sources=$(find src -name '*.cpp' -o -name '*.hpp' -o -name '*.inc' | sort)
for f in $sources; do
    checks=$((checks + 1))
    lines=$(wc -l <"$f")
    [ "$lines" -le 450 ] || fail "$f has $lines lines (at most 450: split it by concept)"
done

checks=$((checks + 1))
all=$(cat $sources | wc -l)
cli=$(cat $(echo "$sources" | grep '^src/cli/') | wc -l)
[ $((cli * 4)) -le "$all" ] || fail "src/cli holds $cli of $all lines, over a quarter"

# the families, as the binary names them to a user whose config.json it cannot read
mkdir -p "$WORK/unknown"
printf '{"model_type": "no_such_family"}' >"$WORK/unknown/config.json"
expect_status 2 "$ATTN" attend --model "$WORK/unknown" --ids 1
families=$(sed -n 's/.*attn runs \(.*\)$/\1/p' "$ERR" | tr -d ',')
[ "$(echo "$families" | wc -w)" -ge 13 ] || fail "the families listed: '$families'"
for family in $families; do
    checks=$((checks + 1))
    files=$(grep -rlF "\"$family\"" src/attn/model | tr '\n' ' ')
    [ "$(echo "$files" | wc -w)" -eq 1 ] || fail "\"$family\" is written in: $files (one file)"
    [ "$family" = t5 ] && continue
    checks=$((checks + 1))
    in_cli=$(grep -rlF "\"$family\"" src/cli | tr '\n' ' ')
    [ -z "$in_cli" ] || fail "src/cli names the family $family: $in_cli"
done

checks=$((checks + 1))
formats=$(grep -rnE '(==|!=) *"(csv|tsv|npy|npz|json|svg|png|html|table|md|heatmap)"' src/cli)
[ -z "$formats" ] || fail "cli compares format names: $formats"
checks=$((checks + 1))
splits=$(grep -rnE "find\\(','\\)|find\\(\",\"\\)" src/cli | grep -v '^src/cli/arguments\.cpp:')
[ -z "$splits" ] || fail "a comma list split outside cli/arguments: $splits"
checks=$((checks + 1))
[ "$(grep -c '^enum class Show\b' src/cli/attend*.hpp | awk -F: '{s += $2} END {print s}')" -eq 1 ] ||
    fail "attend has more than one --show enum"
finish
