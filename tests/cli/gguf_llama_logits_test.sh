#!/usr/bin/env bash
# attend --show next on float32 GGUF files converted from the tiny checkpoints against llama.cpp's
# own forward of the same files (libllama of tests/cli/ggml_lib.sh's package, through ctypes):
# tests/io/gguf_llama_logits_check.py says what it checks (llama, mistral, gpt2, qwen2, qwen3,
# gemma2, gemma3, phi3: the probabilities within 1e-4; gpt2 through a numpy referee).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ggml_lib.sh"
/usr/bin/python3 -B "$ATTN_SOURCE_DIR/tests/io/gguf_llama_logits_check.py" "$GGML_LIBDIR" "$ATTN" \
    "$ATTN_TEST_DATA/models" "$WORK" >"$WORK/check.log" 2>&1 ||
    fail "$(tail -3 "$WORK/check.log")"
checks=$(grep -c '^ok ' "$WORK/check.log")
[ "$checks" -eq 8 ] || fail "$checks of the 8 models agree with llama.cpp"
finish
