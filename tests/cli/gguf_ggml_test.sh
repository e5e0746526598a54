#!/usr/bin/env bash
# attn's GGUF reader and dequantization against ggml itself: tests/io/gguf_ggml_check.py (what
# it checks is said there), with llama.cpp's libggml-base.so (tests/cli/ggml_lib.sh).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ggml_lib.sh"
dump=$ATTN_BUILD_DIR/tests/gguf_dump
[ -x "$dump" ] || { echo "FAIL: $dump is not built"; exit 1; }
/usr/bin/python3 -B "$ATTN_SOURCE_DIR/tests/io/gguf_ggml_check.py" "$GGML_LIBDIR" \
    "$dump" "$WORK" 2>"$WORK/ggml.log" || { tail -5 "$WORK/ggml.log"; exit 1; }
