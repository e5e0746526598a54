# llama.cpp's ggml libraries for the GGUF tests (sourced after lib.sh): npm's
# @node-llama-cpp/linux-x64 3.21.1 (tests/data/gguf: package-lock.json holds the package's
# sha512, SHA256SUMS the libraries'), installed once per build tree beside the test scratch
# directory (under a lock: the GGUF tests may run at once), as the tokenizer references are.
# Sets GGML_LIBDIR, or fails the test.
for tool in npm sha256sum flock; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool is needed (README: set-up)"; exit 1; }
done
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "skipped: no numpy"; exit 77; }
ggml_data=$ATTN_TEST_DATA/gguf
ggml_modules=$(dirname "$TMPDIR")/ggml-packages
ggml_package=$ggml_modules/node_modules/@node-llama-cpp/linux-x64
(
    flock 9
    if ! cmp -s "$ggml_data/package-lock.json" "$ggml_modules/package-lock.json" 2>/dev/null ||
        [ ! -d "$ggml_package" ]; then
        rm -rf "$ggml_modules" && mkdir -p "$ggml_modules"
        cp "$ggml_data/package.json" "$ggml_data/package-lock.json" "$ggml_modules/"
        (cd "$ggml_modules" && npm ci --no-audit --no-fund --loglevel=error) ||
            { echo "FAIL: npm ci of the pinned ggml package"; exit 1; }
    fi
) 9>"$ggml_modules.lock" || exit 1
(cd "$ggml_package" && sha256sum --quiet -c "$ggml_data/SHA256SUMS") ||
    { echo "FAIL: the ggml libraries differ from tests/data/gguf/SHA256SUMS"; exit 1; }
GGML_LIBDIR=$ggml_package/bins/linux-x64
