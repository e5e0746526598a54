#!/usr/bin/env bash
# attn's GGUF reader and dequantization against ggml itself: tests/io/gguf_ggml_check.py (what
# it checks is said there), with llama.cpp's libggml-base.so from npm's
# @node-llama-cpp/linux-x64 3.21.1 (tests/data/gguf: package-lock.json holds the package's
# sha512, SHA256SUMS the libraries'). Installed once per build tree beside the test scratch
# directory, as the tokenizer references are.
source "$(dirname "$0")/lib.sh"
for tool in npm sha256sum; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool is needed (README: set-up)"; exit 1; }
done
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "skipped: no numpy"; exit 77; }
data=$ATTN_TEST_DATA/gguf
modules=$(dirname "$TMPDIR")/ggml-packages
package=$modules/node_modules/@node-llama-cpp/linux-x64
if ! cmp -s "$data/package-lock.json" "$modules/package-lock.json" 2>/dev/null ||
    [ ! -d "$package" ]; then
    rm -rf "$modules" && mkdir -p "$modules"
    cp "$data/package.json" "$data/package-lock.json" "$modules/"
    (cd "$modules" && npm ci --no-audit --no-fund --loglevel=error) ||
        { echo "FAIL: npm ci of the pinned ggml package"; exit 1; }
fi
(cd "$package" && sha256sum --quiet -c "$data/SHA256SUMS") ||
    { echo "FAIL: the ggml libraries differ from tests/data/gguf/SHA256SUMS"; exit 1; }
dump=$ATTN_BUILD_DIR/tests/gguf_dump
[ -x "$dump" ] || { echo "FAIL: $dump is not built"; exit 1; }
/usr/bin/python3 -B "$ATTN_SOURCE_DIR/tests/io/gguf_ggml_check.py" "$package/bins/linux-x64" \
    "$dump" "$WORK" 2>"$WORK/ggml.log" || { tail -5 "$WORK/ggml.log"; exit 1; }
