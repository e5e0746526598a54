#!/usr/bin/env bash
# Labels show the text a token stands for: the tiny GPT-2 beside a byte-level vocabulary whose
# merges make " café" one token (spelled "ĠcafÃ©") and "\n" the token "Ċ". Pictures (svg, png's
# source, heatmap), the html page, the weights' keys and next's token column show "␣café" and
# "↵"; --raw-tokens the spelling; the tokens array and attn tokenize keep the spelling. Query
# rows of pictures carry their token, the rollout picture has tokens, a one-head picture's title
# names its layer and head, the page's <title> the model (as given) and the text. Then
# SentencePiece's "▁is" and "<0x0A>" on the tiny Llama.
. "$(dirname "$0")/lib.sh"
numpy_or_skip
if ! command -v xmllint >/dev/null; then
    echo "skipped: xmllint is not installed (Debian: libxml2-utils)" >&2
    exit 77
fi
M=$ATTN_TEST_DATA/models
B=$WORK/byte
mkdir -p "$B"
ln -s "$M/gpt2/config.json" "$M/gpt2/model.safetensors" "$B/"
"$PYTHON" - "$B" <<'PY'
import json, sys
tokens = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [chr(c) for c in range(ord("A"), ord("Z") + 1)]
tokens += ["\u0120", "\u010a", "\u00c3", "\u00a9", "\u0120c", "\u0120ca", "\u0120caf", "\u00c3\u00a9",
           "\u0120caf\u00c3\u00a9", "<|endoftext|>"]
json.dump({t: i for i, t in enumerate(tokens)}, open(sys.argv[1] + "/vocab.json", "w"))
merges = ["\u0120 c", "\u0120c a", "\u0120ca f", "\u00c3 \u00a9", "\u0120caf \u00c3\u00a9"]
open(sys.argv[1] + "/merges.txt", "w").write("#version: 0.2\n" + "\n".join(merges) + "\n")
PY
TEXT=$'Life caf\u00e9\nis'
SPACE=$'\u2423'
CAFE="${SPACE}caf"$'\u00e9'
NL=$'\u21b5'
RAW=$'\u0120caf\u00c3\u00a9'

# text_of SVG: every <text> element's content, one a line.
text_of() {
    xmllint --xpath '//*[local-name()="text"]/text()' "$1" 2>/dev/null | sed 's/&amp;/\&/g'
    echo
}

# tokenize and the tokens array: the vocabulary's spelling.
expect_status 0 "$ATTN" tokenize --model "$B" "$TEXT"
expect_grep "^4,60,$RAW\$" "$OUT"
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" --show tokens -f csv
expect_grep "^4,$RAW,60\$" "$OUT"

# One head's weights as svg: keys and query rows (query, token) labelled by text, the title
# names the layer and head.
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" --layer 1 --head 2 -o "$WORK/one.svg"
xmllint --noout "$WORK/one.svg" || fail "one.svg is not well-formed"
text_of "$WORK/one.svg" >"$WORK/one.txt"
expect_grep "^$CAFE\$" "$WORK/one.txt"
expect_grep "^$NL\$" "$WORK/one.txt"
expect_grep "^4 $CAFE\$" "$WORK/one.txt"
expect_grep "^0 L\$" "$WORK/one.txt"
expect_grep "layer 1, head 2" "$WORK/one.txt"
checks=$((checks + 1))
! grep -q "$RAW" "$WORK/one.txt" || fail "one.svg shows the spelling $RAW"
# --raw-tokens: the spelling
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" --layer 1 --head 2 --raw-tokens \
    -o "$WORK/raw.svg"
text_of "$WORK/raw.svg" >"$WORK/raw.txt"
expect_grep "^4 $RAW\$" "$WORK/raw.txt"

# The rollout picture: tokens on both axes.
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" --show rollout -o "$WORK/rollout.svg"
text_of "$WORK/rollout.svg" >"$WORK/rollout.txt"
expect_grep "^$CAFE\$" "$WORK/rollout.txt"
expect_grep "^4 $CAFE\$" "$WORK/rollout.txt"

# The terminal's heatmap.
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" --layer 0 --head 0 -f heatmap --color never
expect_grep "^ *4 $CAFE " "$OUT"
expect_grep "layer 0, head 0" "$OUT"

# The weights' keys in text formats, next's token column.
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" --layer 0 --head 0 -f csv
expect_grep "^layer,head,query,L,i,f,e,$CAFE,$NL,i,s\$" "$OUT"
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" --layer 0 --head 0 -f csv --raw-tokens
expect_grep "^layer,head,query,L,i,f,e,$RAW,"$'\u010a'",i,s\$" "$OUT"

# The page: tokens as text; its <title> names the model as given and the text.
expect_status 0 "$ATTN" attend --model "$B" "$TEXT" -o "$WORK/page.html"
"$PYTHON" - "$WORK/page.html" "$B" "$TEXT" <<'PY' || fail "html labels and title"
import json, re, sys
page, model, text = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2], sys.argv[3]
data = json.loads(re.search(r'<script type="application/json" id="attn-data">(.*?)</script>', page, re.S).group(1))
assert data["tokens"] == ["L", "i", "f", "e", "\u2423caf\u00e9", "\u21b5", "i", "s"], data["tokens"]
title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
assert model in title and "Life caf\u00e9" in title, title
PY
checks=$((checks + 1))
# SentencePiece's spelling (a Llama-2-like tokenizer.json beside the tiny Llama: "▁" for the
# space, byte fallback to "<0x0A>" for the newline): "␣is" and "↵" in labels.
S=$WORK/metaspace
mkdir -p "$S"
ln -s "$M/llama/config.json" "$M/llama/model.safetensors" "$S/"
"$PYTHON" - "$S" <<'PY'
import json, sys
vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "\u2581": 4}
vocab.update({c: 5 + k for k, c in enumerate("abcdefghijklmnopqrstuvwxyz")})
vocab.update({"L": 31, "\u2581i": 32, "\u2581is": 33, "\u2581L": 34})
special = lambda t, i: {"id": i, "content": t, "special": True, "lstrip": False, "rstrip": False,
                        "normalized": False, "single_word": False}
json.dump({
    "added_tokens": [special("<unk>", 0), special("<s>", 1), special("</s>", 2)],
    "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
    "pre_tokenizer": None,
    "post_processor": {"type": "TemplateProcessing",
                       "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                  {"Sequence": {"id": "A", "type_id": 0}}],
                       "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>", "vocab": vocab,
              "merges": ["\u2581 i", "\u2581i s", "\u2581 L"]},
}, open(sys.argv[1] + "/tokenizer.json", "w"))
PY
expect_status 0 "$ATTN" attend --model "$S" $'Life is\nis' --layer 0 --head 0 -f csv
expect_grep "^layer,head,query,<s>,${SPACE}L,i,f,e,${SPACE}is,$NL,i,s\$" "$OUT"
expect_status 0 "$ATTN" attend --model "$S" $'Life is\nis' --layer 0 --head 0 -f csv --raw-tokens
expect_grep "^layer,head,query,<s>,"$'\u2581'"L,i,f,e,"$'\u2581'"is,<0x0A>,i,s\$" "$OUT"
expect_status 0 "$ATTN" attend --model "$S" $'Life is\nis' --layer 0 --head 0 -o "$WORK/sp.svg"
text_of "$WORK/sp.svg" >"$WORK/sp.txt"
expect_grep "^5 ${SPACE}is\$" "$WORK/sp.txt"
expect_grep "^6 $NL\$" "$WORK/sp.txt"
expect_status 0 "$ATTN" tokenize --model "$S" $'Life is\nis'
expect_grep "^6,3,<0x0A>\$" "$OUT"
finish
