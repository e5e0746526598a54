"""A GGUF file's byte-level BPE tokenizer (tokenizer.ggml.*) against the tokenizer.json it was
converted from (tests/cli/gguf_tokenizer_test.sh).

    gguf_tokenizer_check.py LIBDIR ATTN FOLDERS TEXTS WORK

FOLDERS holds the real tokenizers laid out by tests/data/tokenizers/compare.mjs (gpt2-json,
llama3, qwen2: GPT-2's, Llama 3's and Qwen3's tokenizer.json); TEXTS is that folder's
texts.json. Each tokenizer.json is written into a GGUF file (ggml's own writer) as llama.cpp's
converter writes it (_set_vocab_gpt2: tokenizer.ggml.model gpt2, .pre as its hash check names
it, .tokens by id, .token_type CONTROL for special added tokens and USER_DEFINED for the others,
.merges "a b", .bos_token_id), beside a gpt2 model of that vocabulary, and `attn tokenize`
must print the same rows for every text from the GGUF file as from the folder (which
tokenizer_reference checks against transformers.js).
"""
import json
import os
import subprocess
import sys

import numpy as np

LIBDIR, ATTN, FOLDERS, TEXTS, WORK = sys.argv[1:6]
os.environ["ATTN_GGML_LIBDIR"] = LIBDIR
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ggml_reference import write  # noqa: E402

U32, STR, BOOL, I32 = 4, 8, 7, 5
PRE = {"gpt2-json": "gpt-2", "llama3": "llama-bpe", "qwen2": "qwen2"}
BOS = {"llama3": "<|begin_of_text|>"}
texts = json.load(open(TEXTS))
stdin = "".join(t + "\0" for t in texts).encode()
checks = 0
for folder, pre in PRE.items():
    t = json.load(open(os.path.join(FOLDERS, folder, "tokenizer.json"), encoding="utf-8"))
    vocab = dict(t["model"]["vocab"])
    added = {a["id"]: a for a in t.get("added_tokens", [])}
    for i, a in added.items():
        vocab[a["content"]] = i
    n = max(vocab.values()) + 1
    tokens = [f"[PAD{i}]" for i in range(n)]
    types = [5] * n  # UNUSED
    for tok, i in vocab.items():
        tokens[i] = tok
        types[i] = (3 if added[i]["special"] else 4) if i in added else 1
    merges = [m if isinstance(m, str) else " ".join(m) for m in t["model"].get("merges", [])]
    meta = [("general.architecture", STR, "gpt2"), ("gpt2.block_count", U32, 1),
            ("gpt2.context_length", U32, 8), ("gpt2.embedding_length", U32, 4),
            ("gpt2.feed_forward_length", U32, 16), ("gpt2.attention.head_count", U32, 1),
            ("tokenizer.ggml.model", STR, "gpt2"), ("tokenizer.ggml.pre", STR, pre)]
    if folder in BOS:
        meta.append(("tokenizer.ggml.bos_token_id", U32, vocab[BOS[folder]]))
    arrays = [("tokenizer.ggml.tokens", STR, tokens), ("tokenizer.ggml.token_type", I32, types),
              ("tokenizer.ggml.merges", STR, merges)]
    embd = np.zeros((n, 4), dtype=np.float32)
    path = os.path.join(WORK, folder + ".gguf")
    write(path, [("token_embd.weight", 0, [4, n], embd.view(np.uint8))], meta, arrays)
    # all texts in one run, NUL-terminated (-z): one JSON row of ids and tokens per text
    runs = [subprocess.run([ATTN, "tokenize", "--model", m, "-f", "json", "-z"], input=stdin,
                           capture_output=True) for m in (os.path.join(FOLDERS, folder), path)]
    if runs[0].returncode != 0 or runs[1].returncode != 0:
        raise SystemExit(f"FAIL: {folder} ({pre}): attn tokenize exited {runs[0].returncode}, "
                         f"{runs[1].returncode}: {runs[1].stderr[:300]!r}")
    rows = [r.stdout.decode().splitlines() for r in runs]
    if len(rows[0]) != len(texts) or len(rows[1]) != len(texts):
        raise SystemExit(f"FAIL: {folder} ({pre}): {len(rows[1])} rows for {len(texts)} texts")
    for text, want, got in zip(texts, *rows):
        if want != got:
            raise SystemExit(f"FAIL: {folder} ({pre}): {text!r}: the folder gives "
                             f"{want[:300]!r}, the GGUF file {got[:300]!r}")
        checks += 1
    print(f"ok {folder} ({pre}): {len(texts)} texts")
print(f"{checks} texts tokenized alike")
