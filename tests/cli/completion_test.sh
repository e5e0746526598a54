# The completion `attn completion bash` prints (installed as
# share/bash-completion/completions/attn) completes subcommands, options, values from the
# parser's tables and file names, driven here the way bash drives it: COMP_WORDS,
# COMP_CWORD, COMP_LINE and COMP_POINT set, the function called, COMPREPLY read.
. "$(dirname "$0")/lib.sh"
"$ATTN" completion bash >"$WORK/attn.bash" || fail "attn completion bash failed"
"$ATTN" completion zsh >"$WORK/_attn" || fail "attn completion zsh failed"
checks=$((checks + 1))
bash -n "$WORK/attn.bash" || fail "the bash script does not parse"
if command -v zsh >/dev/null; then
    checks=$((checks + 1))
    zsh -n "$WORK/_attn" || fail "the zsh script does not parse"
fi
checks=$((checks + 1))
head -1 "$WORK/_attn" | grep -qx '#compdef attn' || fail "the zsh script lacks #compdef attn"
. "$WORK/attn.bash"

# complete WORD...: completes the last word of "attn WORD..." into COMPREPLY.
complete_words() {
    COMP_WORDS=(attn "$@")
    COMP_CWORD=$#
    COMP_LINE="attn $*"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _attn
}
# expect_completion WANT WORD...: COMPREPLY is exactly WANT.
expect_completion() {
    local want=$1
    shift
    complete_words "$@"
    checks=$((checks + 1))
    local got="${COMPREPLY[*]}"
    [ "$got" = "$want" ] || fail "attn $*<TAB>: got '$got', want '$want'"
}
# expect_offers WORD... -- ARG...: COMPREPLY holds each WORD.
expect_offers() {
    local wanted=()
    while [ "$1" != "--" ]; do
        wanted+=("$1")
        shift
    done
    shift
    complete_words "$@"
    local w
    for w in "${wanted[@]}"; do
        checks=$((checks + 1))
        [[ " ${COMPREPLY[*]} " == *" $w "* ]] || fail "attn $*<TAB>: '$w' not in '${COMPREPLY[*]}'"
    done
}

checks=$((checks + 1))
complete -p attn 2>/dev/null | grep -q -- '-F _attn attn' || fail "no 'complete -F _attn attn'"
expect_completion "encode" en
expect_completion "bits" b
expect_completion "encode attend rotate complexity bits tokenize heads merge compare completion" ""
expect_completion "float32 float64 bfloat16 float16" compare --against-dtype ""
# attn completion's own argument: the shells.
expect_completion "bash zsh" completion ""
expect_completion "zsh" completion z
checks=$((checks + 1))
"$ATTN" --help | grep -qE '^  completion ' || fail "attn --help does not list completion"
expect_completion "--layout" encode --la
expect_completion "--columns --causal --cmap --color" encode --c
expect_completion "auto always never" encode --color ""
expect_completion "interleaved split" encode --layout ""
expect_completion "csv tsv table npy npz json svg png heatmap md html" encode -f ""
expect_completion "svg" encode --format s
expect_completion "float32 float64" bits --dtype ""
expect_completion "blues viridis rdbu" encode -n 4 --cmap ""
expect_completion "heatmap lines" bits --plot ""
expect_completion "heatmap" encode --plot h
expect_completion "rdbu" encode --cmap = r
expect_completion "--show" bits --sh
expect_completion "--help --version" --
# attend's --show names, a comma list: the item after the last comma completes.
expect_offers all scores weights context w_query -- attend --show ""
# and attend --model's arrays, the summaries among them
expect_offers hidden next head_stats offsets mean_weights rollout -- attend --show ""
expect_completion "hidden" attend --show hi
expect_completion "weights,next" attend --show weights,ne
expect_completion "scores scaled_scores" attend --show sc
expect_completion "scores,weights scores,w_query scores,w_key scores,w_value scores,w_out" \
    attend --show scores,w
# A comma list completes without the space that would end it (the user types ',' or a space);
# a single value ends with one. compopt only works inside completion: recorded here.
compopt() { COMPOPT_ARGS="$*"; }
COMPOPT_ARGS=
complete_words attend --show we
checks=$((checks + 1))
[[ $COMPOPT_ARGS == *"-o nospace"* ]] || fail "attend --show we<TAB>: no 'compopt -o nospace'"
COMPOPT_ARGS=
complete_words encode --layout s
checks=$((checks + 1))
[[ $COMPOPT_ARGS != *nospace* ]] || fail "encode --layout s<TAB>: nospace for a single value"
# zsh: comma lists through _values -s , (one word after another, no space between).
checks=$((checks + 1))
grep -q "_values -s , " "$WORK/_attn" || fail "the zsh script completes no comma list with _values -s ,"
checks=$((checks + 1))
grep -q "'1:shell:(bash zsh)'" "$WORK/_attn" || fail "zsh: attn completion does not offer bash zsh"
# Options after a flag whose help starts with a capital letter (--causal: "Query i sees ...").
expect_offers --causal --show --input -- attend --causal ""
expect_offers --columns -- encode --no-header --c
# A value nobody can guess gets no words; every FILE or PATH option completes file names.
expect_completion "" encode -n ""
mkdir "$WORK/dir" && touch "$WORK/dir/pe.svg" "$WORK/dir/x.npy"
expect_completion "$WORK/dir/pe.svg" encode -o "$WORK/dir/p"
expect_completion "$WORK/dir/x.npy" attend --input "$WORK/dir/x"
expect_completion "$WORK/dir/x.npy" attend --wq "$WORK/dir/x"
expect_completion "$WORK/dir/x.npy" encode --add "$WORK/dir/x"
expect_completion "$WORK/dir/x.npy" attend --embeddings "$WORK/dir/x"
# Every value list of the parser completes, rotate's and complexity's too.
expect_offers summary matrix -- rotate --show ""
finish
