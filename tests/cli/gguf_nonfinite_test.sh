#!/usr/bin/env bash
# A NaN in a GGUF file's tensor, as a researcher meets one: attn's warning names the tensor as
# the file calls it (blk.0.attn_q.weight), not the Hugging Face name the family reads it under
# (model.layers.0.self_attn.q_proj.weight), whatever layout the converter stored it in (llama's
# q rows permuted, gpt2's Conv1D transposed); attend and compare --against alike, exit 0.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ggml_lib.sh"
M=$ATTN_TEST_DATA/models
ATTN_GGML_LIBDIR=$GGML_LIBDIR /usr/bin/python3 - "$ATTN_SOURCE_DIR/tests/io" "$M" "$WORK" <<'PY' ||
import os, shutil, sys
io, models, work = sys.argv[1:4]
sys.path.insert(0, io)
import numpy as np
import gguf_convert
import safetensors_numpy as st

def nan_gguf(name, tensor, at, qtype, out):
    folder = os.path.join(work, name + "-nan")
    os.makedirs(folder)
    shutil.copy(os.path.join(models, name, "config.json"), folder)
    t, dtypes = st.read(os.path.join(models, name, "model.safetensors"))
    t[tensor][at] = np.nan
    st.write(os.path.join(folder, "model.safetensors"), t, dtypes)
    gguf_convert.convert(folder, os.path.join(work, out), qtype)

# llama: q_proj (4 heads x 16 rows, in 64); row 5 is head 0's
nan_gguf("llama", "model.layers.0.self_attn.q_proj.weight", (5, 7), gguf_convert.F16, "llama.gguf")
# gpt2: Conv1D c_attn (in 32, out 96 = [q k v]); head 2's query column 17 of layer 1
nan_gguf("gpt2", "h.1.attn.c_attn.weight", (0, 17), gguf_convert.F32, "gpt2.gguf")
PY
    fail "making the GGUF files"

expect_status 0 "$ATTN" attend --model "$WORK/llama.gguf" --ids 1,2 --show next -f csv
expect_grep '^attn: warning: a NaN or inf first appears at layer 0, head 0, position 0 \(blk\.0\.attn_q\.weight holds a non-finite value\)$' "$ERR"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "llama: want one line on stderr: $(cat "$ERR")"
expect_grep '^1,.*,nan$' "$OUT"
expect_status 0 "$ATTN" attend --model "$WORK/gpt2.gguf" --ids 46,68,50 --show weights -f csv
expect_grep '^attn: warning: a NaN or inf first appears at layer 1, head 2, position 0 \(blk\.1\.attn_qkv\.weight holds a non-finite value\)$' "$ERR"

# compare: B the GGUF file, A its clean checkpoint; the line names --against and the GGUF tensor
expect_status 0 "$ATTN" compare --model "$M/llama" --against "$WORK/llama.gguf" --ids 1,2,3 \
    -f csv
expect_grep '^attn: warning: --against: a NaN or inf first appears at layer 0, head 0, position 0 \(blk\.0\.attn_q\.weight holds a non-finite value\)$' "$ERR"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "compare: want one line on stderr: $(cat "$ERR")"
expect_grep '^0,0,nan,[01.0-9]+,nan$' "$OUT"
finish
