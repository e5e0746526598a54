# Malformed and unusable checkpoints through attn encode --model, as a user meets them: each
# exits with its status (2; a model not found 1), says at most two lines naming the file and
# the tensor at fault, and leaves no output file. The checkpoints are made here from a tiny
# GPT-2 (tests/support/tiny_checkpoint.py) and broken with tests/support/safetensors.py.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

W=$WORK
SUPPORT=$ATTN_SOURCE_DIR/tests/support
"$PYTHON" "$SUPPORT/tiny_checkpoint.py" gpt2 "$W/good" || fail "tiny_checkpoint.py"
"$PYTHON" "$SUPPORT/tiny_checkpoint.py" gpt2 "$W/sharded" --shards 2 || fail "tiny_checkpoint.py"

"$PYTHON" - "$W" "$SUPPORT" <<'PY' || fail "making the broken checkpoints"
import json, os, shutil, struct, sys
import numpy as np
w, support = sys.argv[1], sys.argv[2]
sys.path.insert(0, support)
import safetensors as st

good = os.path.join(w, "good")
blob = open(os.path.join(good, "model.safetensors"), "rb").read()
n = struct.unpack("<Q", blob[:8])[0]
header = json.loads(blob[8:8 + n])
data = blob[8 + n:]

def folder(name, weights=None, config=None):
    path = os.path.join(w, name)
    os.makedirs(path)
    shutil.copy(os.path.join(good, "config.json"), path)
    if config is not None:
        json.dump(config, open(os.path.join(path, "config.json"), "w"))
    if weights is not None:
        open(os.path.join(path, "model.safetensors"), "wb").write(weights)
    return path

def with_header(h, d=data):
    text = json.dumps(h).encode()
    return struct.pack("<Q", len(text)) + text + d

def edit(name, **fields):
    h = json.loads(json.dumps(header))
    h[name].update(fields)
    return h

# The last tensor in the data is the one a cut file loses.
last = max((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][1])
folder("truncated", blob[:-10])
folder("header-size", struct.pack("<Q", len(blob)) + blob[8:])
folder("bad-json", struct.pack("<Q", n) + b"{" + blob[9:8 + n - 1] + b"," + data)
a0, a1 = header["h.0.ln_1.weight"]["data_offsets"]
folder("overlap", with_header(edit("h.0.ln_1.bias", data_offsets=[a0 + 4, a1 + 4])))
folder("outside", with_header(edit("ln_f.bias", data_offsets=[len(data) + 64, len(data) + 128])))
folder("byte-size", with_header(edit("wpe.weight", shape=[32, 15])))
h = json.loads(json.dumps(header)); del h["h.1.mlp.c_fc.weight"]
folder("missing", with_header(h))
shape = header["h.0.attn.c_attn.weight"]["shape"]
folder("shape", with_header(edit("h.0.attn.c_attn.weight", shape=[shape[1], shape[0]])))
b0, b1 = header["h.1.ln_2.weight"]["data_offsets"]
folder("i8", with_header(edit("h.1.ln_2.weight", dtype="I8", shape=[b1 - b0])))
folder("f64", with_header(edit("h.1.ln_2.weight", dtype="F64", shape=[(b1 - b0) // 8])))
pickle = folder("pickle")
open(os.path.join(pickle, "pytorch_model.bin"), "wb").write(b"PK\x03\x04 not read")
cfg = json.load(open(os.path.join(good, "config.json")))
folder("model-type", blob, dict(cfg, model_type="gptj"))
folder("huge", blob, dict(cfg, n_embd=65536, n_head=64))
PY

# check NAME STATUS WORDS...: encode --model W/NAME, and attend --model W/NAME (which opens
# its model by the same code), exit STATUS within 10 s, one or two lines on stderr containing
# each of WORDS, nothing on stdout, no output file.
check() {
    local name=$1 status=$2 spec=$W/$1
    shift 2
    [[ $name == */* ]] && spec=$name  # ORG/NAME: looked up in the cache
    for cmd in "encode --model $spec -n 8" "attend --model $spec --ids 1"; do
        rm -f "$W/out.npy"
        # shellcheck disable=SC2086 # cmd is split into words on purpose
        expect_status "$status" timeout 10 "$ATTN" $cmd -o "$W/out.npy"
        for words in "$@"; do
            checks=$((checks + 1))
            grep -qF -- "$words" "$ERR" || fail "$name ($cmd): stderr lacks '$words': $(cat "$ERR")"
        done
        checks=$((checks + 3))
        [ "$(wc -l <"$ERR")" -le 2 ] || fail "$name ($cmd): more than two lines: $(cat "$ERR")"
        [ ! -e "$W/out.npy" ] || fail "$name ($cmd): left an output file"
        [ "$(ls "$W" | grep -c 'out\.npy')" -eq 0 ] || fail "$name ($cmd): left a temporary file"
    done
}

expect_status 0 "$ATTN" encode --model "$W/good" -n 8 -o "$W/out.npy"
expect_status 0 "$ATTN" encode --model "$W/sharded" -n 8 -o "$W/out.npy"
check truncated 2 "truncated/model.safetensors" "past the end of the data" "tensor 'ln_f.bias'"
check header-size 2 "header-size/model.safetensors" "header size" "runs past the end of the file"
check bad-json 2 "bad-json/model.safetensors" "not valid JSON"
check overlap 2 "overlap/model.safetensors" "tensor 'h.0.ln_1.bias'" "overlapping tensor 'h.0.ln_1.weight'"
check outside 2 "outside/model.safetensors" "tensor 'ln_f.bias'" "past the end of the data"
check byte-size 2 "byte-size/model.safetensors" "tensor 'wpe.weight'" "shape [32, 15] of F32 needs 1920"
check missing 2 "missing/model.safetensors" "tensor 'h.1.mlp.c_fc.weight' is missing"
check shape 2 "shape/model.safetensors" "tensor 'h.0.attn.c_attn.weight' has shape [48, 16]" "[16, 48]"
check i8 2 "i8/model.safetensors" "tensor 'h.1.ln_2.weight' has dtype I8"
check f64 2 "f64/model.safetensors" "tensor 'h.1.ln_2.weight' has dtype F64"
check pickle 2 "pickle/pytorch_model.bin" "runs code" "convert it to safetensors"
check model-type 2 "model-type/config.json" "'gptj'" "gpt2, bert, llama, mistral, qwen2, bloom, t5"
check huge 2 "huge/config.json" "--max-memory"
expect_status 0 "$ATTN" encode --model "$W/good" -n 8 --max-memory 64M -f csv
check good-but-small 1 "not found"
HF_HUB_CACHE=$W/no-hub check no-org/no-model 1 "$W/no-hub/models--no-org--no-model" \
    "huggingface-cli download no-org/no-model"
# A shard missing from the folder, and a tensor missing from its shard.
rm "$W/sharded/model-00002-of-00002.safetensors"
check sharded 2 "model.safetensors.index.json" "model-00002-of-00002.safetensors"
finish
