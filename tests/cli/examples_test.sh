# Every example of the man page (.EX blocks) and of the README (console and sh blocks) runs
# and exits 0, in a scratch directory, with attn installed as the README's set-up installs it
# for the user (its `cmake --install` line, into a scratch prefix) and that prefix's bin first
# on PATH, as a user types them.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
mkdir "$WORK/run"

# The README's install step, with this build and a scratch prefix for build/release and ~/.local.
install_line=$(grep -m1 '^cmake --install build/release --prefix ~/.local' "$ATTN_SOURCE_DIR/README.md")
checks=$((checks + 1))
[ -n "$install_line" ] || fail "README.md has no 'cmake --install build/release --prefix ~/.local' line"
install_line=${install_line//build\/release/$ATTN_BUILD_DIR}
install_line=${install_line//\~\/.local/$WORK/prefix}
bash -c "$install_line" >"$OUT" 2>"$ERR" || fail "the README's install step failed: $(cat "$ERR")"
for f in bin/attn share/man/man1/attn.1 share/bash-completion/completions/attn \
    share/zsh/site-functions/_attn; do
    checks=$((checks + 1))
    [ -s "$WORK/prefix/$f" ] || fail "the install step did not install $f"
done
export PATH="$WORK/prefix/bin:/usr/bin:$PATH"  # /usr/bin/python3 has numpy
checks=$((checks + 1))
[ "$(command -v attn)" = "$WORK/prefix/bin/attn" ] || fail "attn on PATH is $(command -v attn)"
cd "$WORK/run" || exit 1
# The --model examples name published models; here tiny random stand-ins of the same families
# (tests/support/tiny_checkpoint.py; GPT-2 with its 1024 positions) sit under those names in
# a cache tree of their own.
export HF_HUB_CACHE=$WORK/hub
for stand_in in gpt2:openai-community/gpt2 llama:meta-llama/Llama-3.2-1B t5:google-t5/t5-small; do
    "$PYTHON" "$ATTN_SOURCE_DIR/tests/support/tiny_checkpoint.py" "${stand_in%%:*}" "$WORK/stage" \
        --hub "$HF_HUB_CACHE" --repo "${stand_in#*:}" --set n_positions=1024 ||
        fail "tiny_checkpoint.py $stand_in"
done

# The man page's examples: groff escapes undone, continued lines joined.
man_examples() {
    sed -n '/^\.EX/,/^\.EE/p' "$ATTN_SOURCE_DIR/man/attn.1" | grep -v '^\.E[XE]' |
        sed -e 's/\\-/-/g' -e 's/\\e$/\\/' -e 's/\\e/\\/g' | sed -e ':a' -e '/\\$/N; s/\\\n//; ta'
}
# The README's: "$ attn ..." lines of console blocks and the attn lines of sh blocks, with
# their continuation lines (ending in a backslash) joined.
readme_examples() {
    awk '/^```/ { block = (block ? "" : $0); cmd = ""; next }
         cmd == "" && !((block == "```console" && /^\$ attn/) || (block == "```sh" && /^attn /)) { next }
         { line = $0; sub(/^\$ /, "", line); sub(/^ +/, "", line)
           cmd = cmd (cmd == "" ? "" : " ") line
           if (cmd ~ /\\$/) { sub(/ *\\$/, "", cmd); next }
           print cmd; cmd = "" }' "$ATTN_SOURCE_DIR/README.md"
}

count=0
while IFS= read -r example; do
    [[ $example == *attn\ * ]] || continue  # formulas in .EX blocks are not commands
    count=$((count + 1))
    checks=$((checks + 1))
    bash -o pipefail -c "$example" >"$OUT" 2>"$ERR"
    status=$?
    if [ "$status" -ne 0 ]; then
        # | head closing the pipe early is how the README shows the first rows.
        if ! { [ "$status" -eq 141 ] && [[ $example == *"| head"* ]]; }; then
            fail "example exits $status: $example: $(head -c 300 "$ERR")"
        fi
    fi
    rm -f -- *.npy *.npz *.csv *.svg
done < <(man_examples; readme_examples)
checks=$((checks + 1))
[ "$count" -ge 20 ] || fail "only $count examples found"
finish
