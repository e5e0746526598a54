#!/usr/bin/env bash
# attn tokenize as a user runs it, on small tokenizer folders made here: the formats, texts
# from standard input, the empty text, the choice of files, and every refusal.
source "$(dirname "$0")/lib.sh"

# A toy BERT vocabulary (vocab.txt) and a toy GPT-2 (vocab.json + merges.txt): Ġ is U+0120.
bert=$WORK/bert && mkdir "$bert"
printf '%s\n' '[PAD]' '[UNK]' '[CLS]' '[SEP]' '[MASK]' life is short , eat des '##ser' '##t' first \
    'a"b' >"$bert/vocab.txt"
gpt2=$WORK/gpt2 && mkdir "$gpt2"
printf '{"h": 0, "i": 1, "\\u0120": 2, "hi": 3, "\\u0120h": 4, "\\u0120hi": 5, "\\u010a": 6, "\\u010d": 7, ",": 8, "<|endoftext|>": 9}' \
    >"$gpt2/vocab.json"
printf '#version: 0.2\n\xc4\xa0 h\nh i\n\xc4\xa0h i\n' >"$gpt2/merges.txt"

expect_status 0 "$ATTN" tokenize --model "$bert" 'Life is short, eat dessert first'
expect_output 'position,id,token
0,2,[CLS]
1,5,life
2,6,is
3,7,short
4,8,","
5,9,eat
6,10,des
7,11,##ser
8,12,##t
9,13,first
10,3,[SEP]'
expect_status 0 "$ATTN" tokenize --model "$bert" -f tsv --no-header 'life [MASK] x'
expect_output "$(printf '0\t2\t[CLS]\n1\t5\tlife\n2\t4\t[MASK]\n3\t1\t[UNK]\n4\t3\t[SEP]')"
expect_status 0 "$ATTN" tokenize --model "$bert" -f json 'Life, eh'
expect_output '{"ids": [2, 5, 8, 1, 3], "tokens": ["[CLS]", "life", ",", "[UNK]", "[SEP]"]}'
expect_status 0 "$ATTN" tokenize --model "$bert" -f table 'life is'
expect_output 'position  id  token
       0   2  [CLS]
       1   5  life
       2   6  is
       3   3  [SEP]'

# The empty text is a text: only the special tokens (none for GPT-2).
expect_status 0 "$ATTN" tokenize --model "$bert" -f json ''
expect_output '{"ids": [2, 3], "tokens": ["[CLS]", "[SEP]"]}'
expect_status 0 "$ATTN" tokenize --model "$gpt2" -f json ''
expect_output '{"ids": [], "tokens": []}'
# GPT-2's <|endoftext|> is its special token; the byte-level tokens come out as spelt.
expect_status 0 "$ATTN" tokenize --model "$gpt2" 'hi hi<|endoftext|>hi,'
expect_output 'position,id,token
0,3,hi
1,5,Ġhi
2,9,<|endoftext|>
3,3,hi
4,8,","'

# Standard input: one text per line, split on \n only (the \r stays), empty lines are texts.
printf 'hi\r\n\nhi hi\n' >"$WORK/lines"
run "$ATTN" tokenize --model "$gpt2" -f json <"$WORK/lines"
expect_output '{"ids": [3, 7], "tokens": ["hi", "č"]}
{"ids": [], "tokens": []}
{"ids": [3, 5], "tokens": ["hi", "Ġhi"]}'
run "$ATTN" tokenize --model "$gpt2" <"$WORK/lines"
expect_output 'text,position,id,token
0,0,3,hi
0,1,7,č
2,0,3,hi
2,1,5,Ġhi'
printf 'hi\nhi\0hi\0' >"$WORK/nul" && run "$ATTN" tokenize --model "$gpt2" -z -f json <"$WORK/nul"
expect_output '{"ids": [3, 6, 3], "tokens": ["hi", "Ċ", "hi"]}
{"ids": [3], "tokens": ["hi"]}'
# A file output, and its format from the extension.
expect_status 0 "$ATTN" tokenize --model "$gpt2" -o "$WORK/t.json" 'hi'
checks=$((checks + 1))
[ "$(cat "$WORK/t.json")" = '{"ids": [3], "tokens": ["hi"]}' ] || fail "-o t.json: $(cat "$WORK/t.json")"

# tokenizer.json wins over the older files in the same folder.
cat >"$gpt2/tokenizer.json" <<'JSON'
{"pre_tokenizer": {"type": "WhitespaceSplit"},
 "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "hi": 1}}}
JSON
expect_status 0 "$ATTN" tokenize --model "$gpt2" -f json 'hi ho'
expect_output '{"ids": [1, 0], "tokens": ["hi", "[UNK]"]}'
rm "$gpt2/tokenizer.json"

# Refusals: exit 2 naming what is at fault, nothing on standard output.
expect_usage_error '--model' "$ATTN" tokenize 'x'
expect_usage_error '-f' "$ATTN" tokenize --model "$bert" -f npy 'x'
expect_usage_error '-f' "$ATTN" tokenize --model "$bert" -o "$WORK/x.svg" 'x'
expect_usage_error 'TEXT' "$ATTN" tokenize --model "$bert" $'a\xffb'
printf 'ok\n\xff\n' >"$WORK/bad_lines"
run "$ATTN" tokenize --model "$bert" -o "$WORK/partial.csv" <"$WORK/bad_lines"
checks=$((checks + 1))
[ "$STATUS" -eq 2 ] && grep -q 'standard input, text 2: the text is not valid UTF-8' "$ERR" &&
    [ ! -e "$WORK/partial.csv" ] || fail "bad UTF-8 on line 2: $STATUS $(cat "$ERR")"
empty=$WORK/empty && mkdir "$empty"
expect_usage_error 'no tokenizer (looked for tokenizer.json' "$ATTN" tokenize --model "$empty" 'x'
bad=$WORK/bad && mkdir "$bad"
echo '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}' >"$bad/tokenizer.json"
expect_usage_error 'tokenizer.json: model: merge 0 ("a b"): "b" is not in the vocabulary' \
    "$ATTN" tokenize --model "$bad" 'x'
echo '{"model": ' >"$bad/tokenizer.json"
expect_usage_error 'tokenizer.json: not valid JSON' "$ATTN" tokenize --model "$bad" 'x'
printf '%s\n' a b >"$WORK/bad/vocab.txt" && rm "$bad/tokenizer.json"
expect_usage_error 'vocab.txt: \[CLS\] and \[SEP\] must be in the vocabulary' "$ATTN" tokenize --model "$bad" 'x'
# A model not found: exit 1, every place looked at named.
HF_HUB_CACHE=$WORK/hub expect_status 1 "$ATTN" tokenize --model no-org/no-model 'x'
expect_grep "looked at .*$WORK/hub/models--no-org--no-model" "$ERR"
finish
