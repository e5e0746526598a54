#!/usr/bin/env bash
# attn heads's probe on GGUF files takes BOS as their tokenizer does (design.md: "BOS is the
# config's bos_token_id when it has one"; a GGUF "key that is absent defaults as llama.cpp's
# vocabulary loader decides"): the Llama checkpoint converted by tests/io/gguf_convert.py
# (ggml's own writer, tests/cli/ggml_lib.sh) with a SentencePiece vocabulary (<unk> <s> </s>,
# then one character a token):
# - tokenizer.ggml.bos_token_id 1 and add_bos_token true: attn tokenize puts <s> (1) first, and
#   so does the probe, as the safetensors Llama's (bos_token_id 1) does;
# - neither key: llama.cpp's SentencePiece defaults (BOS 1, added): the same;
# - the byte-level BPE vocabulary of the GPT-2 checkpoint with neither key: no BOS.
. "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ggml_lib.sh"
PYTHON=/usr/bin/python3
M=$ATTN_TEST_DATA/models

ATTN_GGML_LIBDIR=$GGML_LIBDIR "$PYTHON" -B - "$ATTN_SOURCE_DIR/tests/io" "$M" "$WORK" <<'PY' ||
import os, sys
sys.path.insert(0, sys.argv[1])
from gguf_convert import F32, convert, tiny_vocab
models, work = sys.argv[2], sys.argv[3]
U32, BOOL = 4, 7
llama = os.path.join(models, "llama")
meta, arrays = tiny_vocab(llama)
bos = [("tokenizer.ggml.bos_token_id", U32, 1), ("tokenizer.ggml.add_bos_token", BOOL, True)]
convert(llama, os.path.join(work, "bos_llama.gguf"), F32, (meta + bos, arrays))
convert(llama, os.path.join(work, "plain_llama.gguf"), F32, (meta, arrays))
gpt2 = os.path.join(models, "gpt2")
convert(gpt2, os.path.join(work, "plain_gpt2.gguf"), F32, tiny_vocab(gpt2))
PY
    fail "converting the checkpoints"

# probe PROMPTS-CSV BOS KIND NAME: every prompt of --probe-length 5 is [BOS] r r (BOS empty: none), its
# r drawn (KIND spm) from the vocabulary without the special ids 0 (<unk>), 1 (<s>), 2 (</s>)
probe() {
    checks=$((checks + 1))
    "$PYTHON" - "$1" "$2" "$3" <<'PY' || fail "$4: $(cat "$1")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bos = [int(sys.argv[2])] if sys.argv[2] else []
assert len(rows) == 2, rows
for r in rows:
    ids = [int(x) for x in r["ids"].split()]
    assert ids[:len(bos)] == bos and len(ids) == len(bos) + 10, (ids, bos)
    body = ids[len(bos):]
    assert body[:5] == body[5:], ids
    if sys.argv[3] == "spm":
        assert min(body) > 2, ids
PY
}

for name in bos_llama plain_llama; do
    expect_status 0 "$ATTN" tokenize --model "$WORK/$name.gguf" "ab" -f csv
    checks=$((checks + 1))
    sed -n 2p "$OUT" | grep -qE '^0,1,' || fail "$name: tokenize does not begin with <s>: $(cat "$OUT")"
    expect_status 0 "$ATTN" heads --model "$WORK/$name.gguf" --show prompts --probe-count 2 \
        --probe-length 5 -f csv
    probe "$OUT" 1 spm "$name"
done
expect_status 0 "$ATTN" heads --model "$M/llama" --show prompts --probe-count 2 --probe-length 5 \
    -f csv
probe "$OUT" 1 any "the safetensors llama"
expect_status 0 "$ATTN" heads --model "$WORK/plain_gpt2.gguf" --show prompts --probe-count 2 \
    --probe-length 5 -f csv
probe "$OUT" "" any "plain_gpt2"
finish
