"""attn's GGUF reader and dequantization against ggml itself (tests/cli/gguf_ggml_test.sh).

    gguf_ggml_check.py LIBDIR DUMP WORK

LIBDIR holds llama.cpp's libggml-base.so (npm @node-llama-cpp/linux-x64 3.21.1, pinned in
tests/data/gguf/package.json); DUMP is tests/io/gguf_dump (attn's reading of a file: header.json
and one .npy per tensor); WORK a scratch directory. Every GGUF file here is written by ggml's own
writer (gguf_init_empty, gguf_set_val_*, gguf_set_arr_*, gguf_add_tensor, gguf_write_to_file),
every quantized block by ggml_quantize_chunk or drawn at random, and every expected float by
ggml's to_float (ggml_get_type_traits(type)->to_float). Checks:
  1. attn's table of ggml types (name, block, bytes) equals ggml's for ids 0..39.
  2. A file with metadata of every value type (scalars, arrays, strings, an empty array) and
     tensors of the 11 widened types (quantized random rows, random bytes, every F16 and BF16
     bit pattern), of 1 to 4 dimensions: attn's keys, types, values, tensor names, types, ne,
     offsets, sizes and data offset equal ggml's reading; each tensor widened equals ggml's
     to_float bit for bit.
  3. The same with general.alignment 64, and as GGUF version 2.
  4. Malformed files (each also refused by ggml's reader unless noted) exit 2 in under 2 s with
     the expected message naming the file and the tensor or key.
The bindings to ggml are tests/io/ggml_reference.py. numpy only; prints one line per check
(SHOW=1: each malformed file's message too), exits 1 on the first failure.
"""
import json
import os
import struct
import subprocess
import sys
import time

import numpy as np

LIBDIR, DUMP, WORK = sys.argv[1:4]
os.environ["ATTN_GGML_LIBDIR"] = LIBDIR
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ggml_reference import *  # noqa: E402,F401,F403

rng = np.random.default_rng(20261128)
WIDENED = {"F32": 0, "F16": 1, "BF16": 30, "Q8_0": 8, "Q4_0": 2, "Q4_1": 3, "Q5_0": 6,
           "Q5_1": 7, "Q4_K": 12, "Q5_K": 13, "Q6_K": 14}

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

def ok(msg):
    print("ok: " + msg)

# --- 1. the type table ---------------------------------------------------------------------------
attn_types = {}
for line in subprocess.run([DUMP, "--types"], check=True, capture_output=True,
                           text=True).stdout.splitlines():
    i, name, block, size, widened = line.split()
    attn_types[int(i)] = (name, int(block), int(size), widened == "1")
for t in range(40):
    name = ggml_type_name(t).decode()
    block, size = ggml_blck_size(t), ggml_type_size(t)
    if block == 0:  # removed from ggml
        if t in attn_types:
            fail(f"type {t} ({name}) was removed from ggml, attn still defines it")
        continue
    traits = ggml_get_type_traits(t).contents
    if (traits.type_name, traits.blck_size, traits.type_size) != (name.encode(), block, size):
        fail(f"ggml_type_traits of {name} does not match ggml_type_name/blck_size/type_size")
    if t not in attn_types or attn_types[t][:3] != (name.upper(), block, size):
        fail(f"type {t}: ggml has {name.upper()} {block} {size}, attn {attn_types.get(t)}")
for name, t in WIDENED.items():
    if not attn_types[t][3]:
        fail(f"{name} is not widened by attn")
ok(f"attn's ggml type table equals ggml's for ids 0..39 ({len(attn_types)} types)")

# --- the tensors ---------------------------------------------------------------------------------
def quantized(t, rows, n):
    """rows x n floats of several scales, quantized by ggml: the bytes and the floats."""
    scale = np.exp(rng.uniform(-8, 8, size=(rows, 1)))
    x = (rng.standard_normal((rows, n)) * scale).astype(np.float32)
    x[0] = 0
    x[1] = 1.5
    x[2, ::7] = 1e4  # outliers
    x[3] = rng.uniform(-1e-6, 1e-6, n)
    dst = np.zeros(rows * ggml_row_size(t, n), dtype=np.uint8)
    got = ggml_quantize_chunk(t, x.ctypes.data, dst.ctypes.data, 0, rows, n, None)
    if got != dst.size:
        fail(f"ggml_quantize_chunk({ggml_type_name(t)}) wrote {got} bytes, expected {dst.size}")
    return dst

def random_blocks(t, blocks):
    """Random bytes as blocks; fp16 scales random too (subnormals, infinities and NaN)."""
    return rng.integers(0, 256, size=blocks * ggml_type_size(t), dtype=np.uint8)

def tensor_set():
    """(name, type, ne, bytes) for every widened type, plus two shapes of F32."""
    out = []
    for name, t in WIDENED.items():
        block = ggml_blck_size(t)
        out.append((f"quantized.{name}", t, [512, 24], quantized(t, 24, 512)))
        if block == 1 and t != 0:  # every bit pattern of F16 and BF16
            out.append((f"all.{name}", t, [65536],
                        np.arange(65536, dtype=np.uint16).view(np.uint8).copy()))
        else:
            out.append((f"random.{name}", t, [block * 6, 2, 3], random_blocks(t, 36)))
    x = rng.standard_normal(2 * 3 * 5 * 7).astype(np.float32)
    out.append(("f32.4d", 0, [7, 5, 3, 2], x.view(np.uint8).copy()))
    out.append(("f32.scalar", 0, [1], np.array([3.25], dtype=np.float32).view(np.uint8).copy()))
    return out

METADATA = [  # (key, gguf type, value); arrays as (element type, list)
    ("general.architecture", 8, "llama"), ("t.u8", 0, 250), ("t.i8", 1, -100),
    ("t.u16", 2, 65000), ("t.i16", 3, -32000), ("t.u32", 4, 4000000000), ("t.i32", 5, -2000000000),
    ("t.f32", 6, 0.1), ("t.bool", 7, True), ("t.str", 8, "h\u00e9llo \u4e16\u754c"),
    ("t.u64", 10, 2**64 - 1), ("t.i64", 11, -2**63), ("t.f64", 12, -1e300),
    ("t.empty_str", 8, ""),
]
ARRAYS = [("a.u8", 0, [0, 255, 7]), ("a.i8", 1, [-128, 127]), ("a.u16", 2, [1, 65535]),
          ("a.i16", 3, [-32768, 5]), ("a.u32", 4, [1, 2, 4294967295]), ("a.i32", 5, [-1, 2**31 - 1]),
          ("a.f32", 6, [0.5, -np.inf, np.nan, 1e-45]), ("a.bool", 7, [1, 0, 1]),
          ("a.u64", 10, [2**64 - 1, 0]), ("a.i64", 11, [-2**63, 2**63 - 1]),
          ("a.f64", 12, [np.pi, -0.0]), ("a.empty", 5, []),
          ("a.str", 8, ["a", "", "\u00fcber", "x" * 300])]

def dump(path, out):
    os.makedirs(out, exist_ok=True)
    start = time.monotonic()
    r = subprocess.run([DUMP, path, out], capture_output=True, text=True)
    return r, time.monotonic() - start

def check_file(label, path, tensors):
    want = ggml_read(path)
    r, seconds = dump(path, path + ".d")
    if r.returncode != 0:
        fail(f"{label}: attn refuses ggml's file: {r.stderr.strip()}")
    got = json.load(open(path + ".d/header.json"))
    for field in ("version", "alignment", "data_offset", "metadata"):
        if got[field] != want[field]:
            fail(f"{label}: {field} differs:\nattn {got[field]}\nggml {want[field]}")
    blob = open(path, "rb").read()
    bits = 0
    for i, (mine, theirs, (name, t, ne, data)) in enumerate(zip(got["tensors"], want["tensors"],
                                                                tensors)):
        for field in ("name", "type", "offset", "bytes"):
            if mine[field] != theirs[field]:
                fail(f"{label}: tensor {name} {field}: attn {mine[field]}, ggml {theirs[field]}")
        if mine["ne"] != ne or mine["begin"] != want["data_offset"] + theirs["offset"]:
            fail(f"{label}: tensor {name}: ne {mine['ne']} begin {mine['begin']}")
        if blob[mine["begin"]:mine["begin"] + mine["bytes"]] != data.tobytes():
            fail(f"{label}: tensor {name}: the file's bytes are not those written")
        expected = to_float(t, data, int(np.prod(ne))).reshape(ne[::-1])
        for suffix in ("npy", "view.npy"):
            widened = np.load(f"{path}.d/{i}.{suffix}")
            if widened.shape != expected.shape or widened.dtype != np.float32:
                fail(f"{label}: tensor {name}: attn's array is {widened.shape} {widened.dtype}")
            mine, theirs = widened.view(np.uint32), expected.view(np.uint32)
            if suffix == "view.npy" and t == 1:
                # TensorView keeps an F16 signalling NaN signalling (as safetensors' F16 always
                # has); ggml's to_float makes it quiet. No arithmetic result differs.
                mine = np.where(np.isnan(widened), mine | 0x400000, mine)
            differ = np.count_nonzero(mine != theirs)
            if differ:
                k = np.flatnonzero(mine != theirs)[0]
                fail(f"{label}: tensor {name}: {differ} of {expected.size} floats of .{suffix} "
                     f"differ from ggml's to_float, first at {k}: attn {mine.flat[k]:#x} ggml "
                     f"{theirs.flat[k]:#x}")
        bits += expected.size
    ok(f"{label}: {len(want['metadata'])} keys, {len(tensors)} tensors as ggml reads them; "
       f"{bits} floats equal to ggml's to_float bit for bit ({seconds:.2f} s)")

os.makedirs(WORK, exist_ok=True)
tensors = tensor_set()
base = os.path.join(WORK, "all.gguf")
write(base, tensors, METADATA, ARRAYS)
check_file("ggml's file", base, tensors)
aligned = os.path.join(WORK, "aligned64.gguf")
write(aligned, tensors, METADATA, ARRAYS, alignment=64)
check_file("general.alignment 64", aligned, tensors)
v2 = os.path.join(WORK, "v2.gguf")
blob = bytearray(open(base, "rb").read())
blob[4:8] = struct.pack("<I", 2)
open(v2, "wb").write(blob)
check_file("GGUF version 2", v2, tensors)

# --- 4. malformed files --------------------------------------------------------------------------
good = open(base, "rb").read()
keys, infos, infos_end = layout(good)
data_offset = ggml_read(base)["data_offset"]
by_offset = sorted(infos, key=lambda i: i["offset_value"])
middle = by_offset[len(by_offset) // 2]
info = {i["name"]: i for i in infos}

def patched(*edits):
    b = bytearray(good)
    for pos, fmt, value in edits:
        struct.pack_into(fmt, b, pos, value)
    return bytes(b)

CASES = [  # (label, bytes, text attn's message holds, ggml refuses it too)
    ("bad magic", b"GGUX" + good[4:], "not a GGUF file", True),
    ("too short", good[:3], "too short for a GGUF file", True),
    ("version 1", patched((4, "<I", 1)), "versions 2 and 3", True),
    ("big-endian", patched((4, "<I", 3 << 24)), "big-endian", True),
    ("version 4", patched((4, "<I", 4)), "versions 2 and 3", True),
    ("huge tensor count", patched((8, "<q", 1 << 62)), "more than its", True),
    ("negative key count", patched((16, "<q", -1)), "more than its", True),
    ("truncated in the data", good[:data_offset + middle["offset_value"] + 1],
     f"tensor '{middle['name']}' has", True),
    ("truncated before the data", good[:infos_end + 1], f"tensor '{by_offset[0]['name']}'", True),
    ("truncated in a tensor info", good[:infos[3]["offset"] + 2], f"tensor '{infos[3]['name']}'",
     True),
    ("truncated in a string array",  # no tensors, so that the key count fits the bytes left
     patched((8, "<q", 0))[:keys["a.str"]["value"] + 60], "key 'a.str' is cut short", True),
    ("huge array count", patched((keys["a.u32"]["count"], "<Q", 1 << 61)),
     "key 'a.u32' holds 2305843009213693952 values", True),
    ("huge string array count", patched((keys["a.str"]["count"], "<Q", 1 << 61)),
     "key 'a.str' holds 2305843009213693952 strings", True),
    ("huge string length", patched((keys["t.str"]["value"], "<Q", 1 << 60)),
     "key 't.str' is cut short: the string at byte", True),
    ("unknown value type", patched((keys["t.u8"]["type"], "<i", 13)), "key 't.u8' has value type 13",
     True),
    ("array of arrays", patched((keys["a.u8"]["element_type"], "<i", 9)),
     "key 'a.u8' is an array of arrays", True),
    ("repeated key", patched((keys["t.i8"]["start"] + 8 + 2, "<B", ord("u"))),
     "key 't.u8' appears twice", True),
    ("misaligned offset", patched((infos[2]["offset"], "<Q", infos[2]["offset_value"] + 4)),
     f"tensor '{infos[2]['name']}' has offset {infos[2]['offset_value'] + 4}, not a multiple of "
     "the alignment 32", True),
    ("overlapping tensors", patched((infos[5]["offset"], "<Q", infos[4]["offset_value"])),
     f"tensor '{infos[5]['name']}' has data", True),
    ("removed type", patched((infos[1]["type"], "<i", 4)),
     f"tensor '{infos[1]['name']}' has type 4, which ggml does not define", True),
    ("unknown type", patched((infos[1]["type"], "<i", 99)), "has type 99, which ggml", True),
    ("negative type", patched((infos[1]["type"], "<i", -1)), "has type -1, which ggml", True),
    ("five dimensions", patched((infos[0]["n_dims"], "<I", 5)),
     f"tensor '{infos[0]['name']}' has 5 dimensions", True),
    ("negative ne", patched((infos[0]["ne"] + 8, "<q", -3)), "has ne[1] = -3 < 0", True),
    ("too many elements", patched((infos[0]["ne"], "<q", 1 << 40), (infos[0]["ne"] + 8, "<q", 1 << 40)),
     "more than 2^63 - 1 elements", True),
    ("row not whole blocks", patched((info["quantized.Q8_0"]["ne"], "<q", 511)),
     "tensor 'quantized.Q8_0' has rows of 511 elements, not a whole number of Q8_0's", True),
    ("repeated tensor name", patched((info["quantized.Q5_0"]["start"] + 8 + 11, "<B", ord("4"))),
     "tensor 'quantized.Q4_0' is named twice", True),
]
alignment_keys = layout(open(aligned, "rb").read())[0]
good_aligned = open(aligned, "rb").read()
def patched_aligned(pos, fmt, value):
    b = bytearray(good_aligned)
    struct.pack_into(fmt, b, pos, value)
    return bytes(b)
CASES += [
    ("alignment of type i32", patched_aligned(alignment_keys["general.alignment"]["type"], "<i", 5),
     "key 'general.alignment' is i32, not u32", True),
    ("alignment 48", patched_aligned(alignment_keys["general.alignment"]["value"], "<I", 48),
     "key 'general.alignment' is 48, not a power of 2", True),
    ("alignment 0", patched_aligned(alignment_keys["general.alignment"]["value"], "<I", 0),
     "key 'general.alignment' is 0, not a power of 2", True),
]
slowest = 0.0
for label, blob, text, refused in CASES:
    path = os.path.join(WORK, "bad.gguf")
    open(path, "wb").write(blob)
    r, seconds = dump(path, os.path.join(WORK, "bad.d"))
    slowest = max(slowest, seconds)
    lines = r.stderr.splitlines()
    if r.returncode != 2 or len(lines) != 1 or text not in lines[0] or \
            not lines[0].startswith(path + ": "):
        fail(f"{label}: exit {r.returncode}, stderr {r.stderr!r}; expected exit 2 and one line "
             f"'{path}: ...{text}...'")
    if os.path.exists(os.path.join(WORK, "bad.d", "header.json")):
        fail(f"{label}: attn wrote its output for a malformed file")
    if seconds >= 2:
        fail(f"{label}: took {seconds:.2f} s")
    if os.environ.get("SHOW"): print("   ", lines[0])
    if refused and not ggml_refuses(path):
        fail(f"{label}: ggml reads the file that attn refuses")
ok(f"{len(CASES)} malformed files exit 2 naming the file and the tensor or key; ggml refuses "
   f"them too; the slowest took {slowest:.3f} s")

# A type ggml defines that attn does not widen: read, then refused naming the tensor and type.
q2k = rng.standard_normal((2, 256)).astype(np.float32)
q2k_bytes = np.zeros(2 * ggml_row_size(10, 256), dtype=np.uint8)
ggml_quantize_chunk(10, q2k.ctypes.data, q2k_bytes.ctypes.data, 0, 2, 256, None)
i32 = np.arange(6, dtype=np.int32).view(np.uint8).copy()
other = os.path.join(WORK, "other.gguf")
write(other, [("w.q2k", 10, [256, 2], q2k_bytes), ("ids", 26, [6], i32)] + tensors[:2],
      METADATA, ARRAYS)
r, _ = dump(other, other + ".d")
if r.returncode != 0:
    fail("a file with Q2_K and I32 tensors: " + r.stderr)
errors = [t.get("error", "") for t in json.load(open(other + ".d/header.json"))["tensors"]]
if not (errors[0] == f"{other}: tensor 'w.q2k' has type Q2_K, which attn does not widen (it reads "
        "F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K)" and
        "tensor 'ids' has type I32, which attn does not widen" in errors[1] and not errors[2]):
    fail(f"types attn does not widen: {errors}")
ok("Q2_K and I32 tensors refused by name and type, the others read")
