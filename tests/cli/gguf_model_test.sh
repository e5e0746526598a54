#!/usr/bin/env bash
# attend --model FILE.gguf and ollama:NAME against the safetensors checkpoints they are converted
# from, by ggml's own writer and quantizer (tests/cli/ggml_lib.sh): tests/io/gguf_model_check.py
# says what it checks (every family read from GGUF, F32 F16 Q8_0 Q4_0; Q4_1 Q5_0 Q5_1 Q4_K Q5_K
# Q6_K on a Llama-shaped checkpoint 512 wide; ollama's store, a truncated file).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ggml_lib.sh"
/usr/bin/python3 -B "$ATTN_SOURCE_DIR/tests/io/gguf_model_check.py" "$GGML_LIBDIR" "$ATTN" \
    "$ATTN_TEST_DATA/models" "$WORK" >"$WORK/check.log" 2>&1 ||
    fail "$(tail -3 "$WORK/check.log")"
checks=$(grep -c '^ok ' "$WORK/check.log")
[ "$checks" -eq 46 ] || fail "$checks of the 46 checks passed"

# A file without tokenizer.ggml.* keys: a text exits 2 pointing at --ids.
expect_usage_error "--ids" "$ATTN" attend --model "$WORK/gpt2-F32.gguf" "some text"
expect_grep "gpt2-F32.gguf" "$ERR"
# An architecture no family reads names the key; --revision does not apply to a file.
/usr/bin/python3 - "$WORK/gpt2-F32.gguf" "$WORK/other.gguf" <<'PY' || fail "writing other.gguf"
import sys
b = open(sys.argv[1], "rb").read()
at = b.index(b"general.architecture\x08\0\0\0\x04" + b"\0" * 7) + 32  # its value, "gpt2"
open(sys.argv[2], "wb").write(b[:at] + b"mpt2" + b[at + 4:])
PY
expect_usage_error "general.architecture" "$ATTN" attend --model "$WORK/other.gguf" --ids 1
expect_grep "'mpt2'; attn reads gpt2, llama" "$ERR"
expect_usage_error "--revision" "$ATTN" attend --model "$WORK/gpt2-F32.gguf" --revision x --ids 1
finish
