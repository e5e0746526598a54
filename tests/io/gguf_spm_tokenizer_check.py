"""A GGUF file's SentencePiece tokenizer (tokenizer.ggml.model "llama") against the tokenizer.json
it was converted from and against llama.cpp's own tokenizer (tests/cli/gguf_tokenizer_test.sh).

    gguf_spm_tokenizer_check.py LIBDIR ATTN FOLDERS MODULES TEXTS WORK [N]

FOLDERS holds the real tokenizers laid out by tests/data/tokenizers/compare.mjs (mistral,
gemma2, gemma3: Mistral-7B's and Gemma's tokenizer.json, checked there against transformers.js);
MODULES the folder whose node_modules/ holds their packages (for tokenizer_config.json); TEXTS
is that folder's texts.json (its first N texts, all by default). Each is written into a GGUF
file (ggml's own writer) as llama.cpp's convert_hf_to_gguf.py writes a SentencePiece vocabulary
(tests/io/ggml_reference.py's sentencepiece_keys; Gemma's add_space_prefix false), beside a
tiny llama model of that vocabulary. For every text:
  1. `attn tokenize` gives the same ids and tokens from the GGUF file as from the folder (a
     USER_DEFINED token spelt with " " for "▁", as the converter writes it);
  2. llama.cpp's llama_tokenize (libllama, the file loaded vocabulary only; BOS added, added
     tokens in the text parsed as tokens as Hugging Face's tokenizers do) gives the same ids.
"""
import json
import os
import subprocess
import sys

import numpy as np

LIBDIR, ATTN, FOLDERS, MODULES, TEXTS, WORK = sys.argv[1:7]
os.environ["ATTN_GGML_LIBDIR"] = LIBDIR
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ggml_reference import sentencepiece_keys, write  # noqa: E402
import llama_reference  # noqa: E402

U32, F32, STR = 4, 6, 8
# folder, npm package, add_space_prefix as the converter writes it (None: not written)
CASES = [("mistral", "tokenizer-llama2", None), ("gemma2", "tokenizer-gemma2", False),
         ("gemma3", "tokenizer-gemma3", False)]
texts = json.load(open(TEXTS, encoding="utf-8"))
if len(sys.argv) > 7:
    texts = texts[:int(sys.argv[7])]
stdin = "".join(t + "\0" for t in texts).encode()


def tokenize(model):
    r = subprocess.run([ATTN, "tokenize", "--model", model, "-f", "json", "-z"], input=stdin,
                       capture_output=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: attn tokenize --model {model} exited {r.returncode}: "
                         f"{r.stderr[:500]!r}")
    rows = [json.loads(line) for line in r.stdout.decode().splitlines() if line]
    if len(rows) != len(texts):
        raise SystemExit(f"FAIL: {model}: {len(rows)} rows for {len(texts)} texts")
    return rows


checks = 0
for folder, package, prefix in CASES:
    tok = json.load(open(os.path.join(FOLDERS, folder, "tokenizer.json"), encoding="utf-8"))
    config = json.load(open(os.path.join(MODULES, "node_modules", "@lenml", package, "models",
                                         "tokenizer_config.json"), encoding="utf-8"))
    meta, arrays = sentencepiece_keys(tok, config, prefix)
    n = len(arrays[0][2])
    model = [("general.architecture", STR, "llama"), ("llama.block_count", U32, 1),
             ("llama.context_length", U32, 8), ("llama.embedding_length", U32, 4),
             ("llama.feed_forward_length", U32, 16), ("llama.attention.head_count", U32, 1),
             ("llama.attention.layer_norm_rms_epsilon", F32, 1e-5)]
    path = os.path.join(WORK, folder + ".gguf")
    embd = np.zeros((n, 4), dtype=np.float32)
    write(path, [("token_embd.weight", 0, [4, n], embd.view(np.uint8))], model + meta, arrays)
    want, got = tokenize(os.path.join(FOLDERS, folder)), tokenize(path)
    llama = llama_reference.Model(path, vocab_only=True)
    for text, w, g in zip(texts, want, got):
        # the converter writes USER_DEFINED tokens with " " for "▁" (Gemma's runs of spaces)
        spelled = [t if t == u or t.replace("▁", " ") != u else u
                   for t, u in zip(w["tokens"], g["tokens"])]
        if w["ids"] != g["ids"] or spelled != g["tokens"]:
            raise SystemExit(f"FAIL: {folder}: {text!r}: the folder gives {w}, the GGUF file {g}")
        ids = llama.tokenize(text)
        if ids != w["ids"]:
            raise SystemExit(f"FAIL: {folder}: {text!r}: tokenizer.json gives {w['ids']}, "
                             f"llama.cpp's llama_tokenize {ids}")
        checks += 1
    llama.close()
    print(f"ok {folder} (SentencePiece GGUF): {len(texts)} texts alike in attn and llama.cpp")
print(f"{checks} texts tokenized alike")
