# The bash completion completes subcommands, options and option values, read from the
# binary's --help.
. "$(dirname "$0")/lib.sh"
COMPLETION=$ATTN_SOURCE_DIR/share/bash-completion/completions/attn
. "$COMPLETION"

# completes WORD... : completes the last word of "attn WORD..." and checks COMPREPLY.
expect_completion() {
    local want=$1
    shift
    COMP_WORDS=("$ATTN" "$@")
    COMP_CWORD=$(($# ))
    COMPREPLY=()
    _attn
    checks=$((checks + 1))
    local got="${COMPREPLY[*]}"
    [ "$got" = "$want" ] || fail "attn $*<TAB>: got '$got', want '$want'"
}

checks=$((checks + 1))
complete -p attn 2>/dev/null | grep -q -- '-F _attn attn' || fail "no 'complete -F _attn attn'"
expect_completion "encode" en
expect_completion "bits" b
expect_completion "encode attend rotate complexity bits" ""
expect_completion "--layout" encode --la
expect_completion "--columns --cmap" encode --c
expect_completion "interleaved split" encode --layout ""
expect_completion "csv tsv table npy npz json svg heatmap md" encode -f ""
expect_completion "svg" encode --format s
expect_completion "float32 float64" bits --dtype ""
expect_completion "blues viridis rdbu" encode -n 4 --cmap ""
expect_completion "heatmap lines" bits --plot ""
expect_completion "heatmap" encode --plot h
expect_completion "rdbu" encode --cmap = r
expect_completion "--show" bits --sh
expect_completion "--help --version" --
# A value that is not from a list gets no words; -o completes file names.
expect_completion "" encode -n ""
mkdir "$WORK/dir" && touch "$WORK/dir/pe.svg"
expect_completion "$WORK/dir/pe.svg" encode -o "$WORK/dir/p"
finish
