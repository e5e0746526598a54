"""llama.cpp's ggml through ctypes, for tests/io/gguf_ggml_check.py: the GGUF writer and reader,
the quantizer and to_float of libggml-base.so (npm's @node-llama-cpp/linux-x64 3.21.1, whose
ggml.h and gguf.h declare what is bound here), found in $ATTN_GGML_LIBDIR; and `layout`, where
each field of a GGUF file lies, so that a test can break one of them.
"""
import ctypes as C
import os
import struct

import numpy as np

class InitParams(C.Structure):  # ggml_init_params
    _fields_ = [("mem_size", C.c_size_t), ("mem_buffer", C.c_void_p), ("no_alloc", C.c_bool)]

class GgufParams(C.Structure):  # gguf_init_params
    _fields_ = [("no_alloc", C.c_bool), ("ctx", C.c_void_p)]

TO_FLOAT = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p, C.c_int64)

class Traits(C.Structure):  # ggml_type_traits
    _fields_ = [("type_name", C.c_char_p), ("blck_size", C.c_int64),
                ("blck_size_interleave", C.c_int64), ("type_size", C.c_size_t),
                ("is_quantized", C.c_bool), ("to_float", TO_FLOAT), ("from_float_ref", C.c_void_p)]

lib = C.CDLL(os.path.join(os.environ["ATTN_GGML_LIBDIR"], "libggml-base.so"))

def sig(name, res, *args):
    f = getattr(lib, name)
    f.restype, f.argtypes = res, list(args)
    return f

P, S, I64 = C.c_void_p, C.c_char_p, C.c_int64
ggml_init = sig("ggml_init", P, InitParams)
ggml_new_tensor = sig("ggml_new_tensor", P, P, C.c_int, C.c_int, C.POINTER(I64))
ggml_set_name = sig("ggml_set_name", P, P, S)
ggml_type_name = sig("ggml_type_name", S, C.c_int)
ggml_blck_size = sig("ggml_blck_size", I64, C.c_int)
ggml_type_size = sig("ggml_type_size", C.c_size_t, C.c_int)
ggml_row_size = sig("ggml_row_size", C.c_size_t, C.c_int, I64)
ggml_get_type_traits = sig("ggml_get_type_traits", C.POINTER(Traits), C.c_int)
ggml_quantize_chunk = sig("ggml_quantize_chunk", C.c_size_t, C.c_int, P, P, I64, I64, I64, P)
gguf_init_empty = sig("gguf_init_empty", P)
gguf_init_from_file = sig("gguf_init_from_file", P, S, GgufParams)
gguf_free = sig("gguf_free", None, P)
gguf_write_to_file = sig("gguf_write_to_file", C.c_bool, P, S, C.c_bool)
gguf_add_tensor = sig("gguf_add_tensor", None, P, P)
gguf_set_tensor_data = sig("gguf_set_tensor_data", None, P, S, P)
gguf_set_arr_data = sig("gguf_set_arr_data", None, P, S, C.c_int, P, C.c_size_t)
gguf_set_arr_str = sig("gguf_set_arr_str", None, P, S, C.POINTER(S), C.c_size_t)
gguf_get_version = sig("gguf_get_version", C.c_uint32, P)
gguf_get_alignment = sig("gguf_get_alignment", C.c_size_t, P)
gguf_get_data_offset = sig("gguf_get_data_offset", C.c_size_t, P)
gguf_get_n_kv = sig("gguf_get_n_kv", I64, P)
gguf_get_key = sig("gguf_get_key", S, P, I64)
gguf_get_kv_type = sig("gguf_get_kv_type", C.c_int, P, I64)
gguf_get_arr_type = sig("gguf_get_arr_type", C.c_int, P, I64)
gguf_get_arr_n = sig("gguf_get_arr_n", C.c_size_t, P, I64)
gguf_get_arr_data = sig("gguf_get_arr_data", P, P, I64)
gguf_get_arr_str = sig("gguf_get_arr_str", S, P, I64, C.c_size_t)
gguf_get_val_data = sig("gguf_get_val_data", P, P, I64)
gguf_get_val_str = sig("gguf_get_val_str", S, P, I64)
gguf_get_n_tensors = sig("gguf_get_n_tensors", I64, P)
gguf_get_tensor_name = sig("gguf_get_tensor_name", S, P, I64)
gguf_get_tensor_offset = sig("gguf_get_tensor_offset", C.c_size_t, P, I64)
gguf_get_tensor_type = sig("gguf_get_tensor_type", C.c_int, P, I64)
gguf_get_tensor_size = sig("gguf_get_tensor_size", C.c_size_t, P, I64)
SETTERS = {}
for t, name, ctype in [(0, "u8", C.c_uint8), (1, "i8", C.c_int8), (2, "u16", C.c_uint16),
                       (3, "i16", C.c_int16), (4, "u32", C.c_uint32), (5, "i32", C.c_int32),
                       (6, "f32", C.c_float), (7, "bool", C.c_bool), (10, "u64", C.c_uint64),
                       (11, "i64", C.c_int64), (12, "f64", C.c_double)]:
    SETTERS[t] = sig("gguf_set_val_" + name, None, P, S, ctype)
SETTERS[8] = sig("gguf_set_val_str", None, P, S, S)
NUMPY = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "<i1",
         10: "<u8", 11: "<i8", 12: "<f8"}
TYPE_NAMES = ["u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64",
              "f64"]

def to_float(t, data, count):
    if t == 0:  # ggml has no to_float for F32: its values are its bytes
        return data.view(np.float32).copy()
    out = np.zeros(count, dtype=np.float32)
    ggml_get_type_traits(t).contents.to_float(data.ctypes.data, out.ctypes.data, count)
    return out

def write(path, tensors, metadata, arrays, alignment=None):
    """The file written by ggml: metadata (key, type, value) and arrays (key, element type,
    values), then the tensors (name, type, ne, bytes) in order."""
    if alignment is None:
        ctx = gguf_init_empty()
    else:  # ggml takes the alignment of a context read from a file that sets it
        meta = path + ".meta"
        c0 = gguf_init_empty()
        SETTERS[4](c0, b"general.alignment", alignment)
        gguf_write_to_file(c0, meta.encode(), True)
        gguf_free(c0)
        ctx = gguf_init_from_file(meta.encode(), GgufParams(True, None))
        os.remove(meta)
        if gguf_get_alignment(ctx) != alignment:
            raise RuntimeError("ggml did not take the alignment")
    for key, t, v in metadata:
        SETTERS[t](ctx, key.encode(), v.encode() if t == 8 else v)
    keep = []
    for key, t, values in arrays:
        if t == 8:
            arr = (S * len(values))(*[s.encode() for s in values])
            gguf_set_arr_str(ctx, key.encode(), arr, len(values))
        else:
            a = np.array(values, dtype=NUMPY[t] if t != 7 else "<i1")
            keep.append(a)
            gguf_set_arr_data(ctx, key.encode(), t, a.ctypes.data, len(values))
    g = ggml_init(InitParams(1 << 20, None, True))
    for name, t, ne, data in tensors:
        ne_c = (I64 * len(ne))(*ne)
        tensor = ggml_new_tensor(g, t, len(ne), ne_c)
        ggml_set_name(tensor, name.encode())
        gguf_add_tensor(ctx, tensor)
        gguf_set_tensor_data(ctx, name.encode(), data.ctypes.data)
    if not gguf_write_to_file(ctx, path.encode(), False):
        raise RuntimeError("gguf_write_to_file " + path)
    gguf_free(ctx)

def hex_double(v):
    return format(struct.unpack("<Q", struct.pack("<d", float(v)))[0], "016x")

def ggml_value(ctx, i, t, data_ptr, n):
    if t == 8:
        return None
    a = np.frombuffer(C.string_at(data_ptr, n * np.dtype(NUMPY[t]).itemsize), dtype=NUMPY[t])
    if t in (6, 12):
        return [hex_double(x) for x in a]
    if t == 7:
        return [bool(x) for x in a]
    return [int(x) for x in a]

def ggml_read(path):
    """ggml's reading of a file: version, alignment, data offset, key/values, tensors."""
    ctx = gguf_init_from_file(path.encode(), GgufParams(True, None))
    if not ctx:
        raise RuntimeError("ggml does not read " + path)
    kv = []
    for i in range(gguf_get_n_kv(ctx)):
        t = gguf_get_kv_type(ctx, i)
        key = gguf_get_key(ctx, i).decode()
        if t == 9:
            et, n = gguf_get_arr_type(ctx, i), gguf_get_arr_n(ctx, i)
            if et == 8:
                values = [gguf_get_arr_str(ctx, i, j).decode() for j in range(n)]
            else:
                values = ggml_value(ctx, i, et, gguf_get_arr_data(ctx, i), n) if n else []
            kv.append({"key": key, "type": TYPE_NAMES[et], "array": True, "values": values})
        else:
            values = ([gguf_get_val_str(ctx, i).decode()] if t == 8 else
                      ggml_value(ctx, i, t, gguf_get_val_data(ctx, i), 1))
            kv.append({"key": key, "type": TYPE_NAMES[t], "array": False, "values": values})
    tensors = [{"name": gguf_get_tensor_name(ctx, i).decode(), "type": gguf_get_tensor_type(ctx, i),
                "offset": gguf_get_tensor_offset(ctx, i), "bytes": gguf_get_tensor_size(ctx, i)}
               for i in range(gguf_get_n_tensors(ctx))]
    out = {"version": gguf_get_version(ctx), "alignment": gguf_get_alignment(ctx),
           "data_offset": gguf_get_data_offset(ctx), "metadata": kv, "tensors": tensors}
    gguf_free(ctx)
    return out

def ggml_refuses(path):
    """Whether ggml's reader, loading the data too, refuses the file."""
    g = C.c_void_p()
    ctx = gguf_init_from_file(path.encode(), GgufParams(False, C.cast(C.byref(g), C.c_void_p)))
    if ctx:
        gguf_free(ctx)
    return not ctx

def layout(b):
    """Where each field of a GGUF file lies (to break one of them): keys and tensor infos."""
    pos, keys, infos = 24, {}, []
    n_tensors, n_kv = struct.unpack_from("<qq", b, 8)
    def string(pos):
        (n,) = struct.unpack_from("<Q", b, pos)
        return b[pos + 8:pos + 8 + n].decode(), pos + 8 + n
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    for _ in range(n_kv):
        start = pos
        key, pos = string(pos)
        entry = {"start": start, "type": pos}
        (t,) = struct.unpack_from("<i", b, pos)
        pos += 4
        n = 1
        if t == 9:
            entry["element_type"], entry["count"] = pos, pos + 4
            t, n = struct.unpack_from("<iQ", b, pos)
            pos += 12
        entry["value"] = pos
        for _ in range(n):
            pos = string(pos)[1] if t == 8 else pos + sizes[t]
        keys[key] = entry
    for _ in range(n_tensors):
        start = pos
        name, pos = string(pos)
        (n_dims,) = struct.unpack_from("<I", b, pos)
        info = {"name": name, "start": start, "n_dims": pos, "ne": pos + 4,
                "type": pos + 4 + 8 * n_dims, "offset": pos + 8 + 8 * n_dims}
        pos = info["offset"] + 8
        info["offset_value"] = struct.unpack_from("<Q", b, info["offset"])[0]
        infos.append(info)
    return keys, infos, pos

# convert_hf_to_gguf.py's SentencePieceTokenTypes
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def looks_special(token):
    """convert_hf_to_gguf.py's does_token_look_special: added tokens it makes CONTROL although
    the tokenizer calls them not special."""
    return (token in ("<pad>", "<mask>", "<2mass>", "[@BOS@]")
            or (token.startswith("<|") and token.endswith("|>"))
            or (token.startswith("<｜") and token.endswith("｜>"))
            or (token.startswith("<unused") and token.endswith(">")))


def sentencepiece_keys(tok, config, add_space_prefix=None):
    """The tokenizer.ggml.* keys of convert_hf_to_gguf.py's _set_vocab_sentencepiece (and its
    SpecialVocab) as (metadata, arrays) for write(), from a tokenizer.json `tok` and its
    tokenizer_config.json `config`. The tokenizer.model it reads is stood for by what Hugging
    Face's converter made of it: its pieces are tok's BPE vocabulary by id; the score of a piece
    is minus the rank of the first merge making it (SentencePieceExtractor ranks the merges by
    the score of the piece they make, highest first), 0 for <0xXX> (BYTE) and unk_token
    (UNKNOWN); a piece no merge makes (one character) scores below all. Then, as the converter
    does, the added_tokens_decoder of tokenizer_config.json: special or looking special CONTROL,
    else USER_DEFINED with "▁" written as " "; both score -1000. add_space_prefix: written
    when given (Gemma's converter writes False)."""
    model = tok["model"]
    vocab, merges = model["vocab"], model.get("merges", [])
    decoder = config.get("added_tokens_decoder") or {
        str(a["id"]): a for a in tok.get("added_tokens", [])}
    n = max(max(vocab.values()), max((int(i) for i in decoder), default=0)) + 1
    tokens = [f"[PAD{i}]" for i in range(n)]
    scores, types = [-10000.0] * n, [UNUSED] * n
    first = {}
    for rank, m in enumerate(merges):
        left, right = m.split(" ", 1) if isinstance(m, str) else m
        first.setdefault(left + right, rank)
    for piece, i in vocab.items():
        tokens[i] = piece
        if piece == model.get("unk_token"):
            scores[i], types[i] = 0.0, UNKNOWN
        elif len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
            scores[i], types[i] = 0.0, BYTE
        else:
            scores[i] = -float(first.get(piece, len(merges) + i))
            types[i] = NORMAL
    for i, a in decoder.items():
        i, content = int(i), a["content"]
        if a.get("special") or looks_special(content):
            types[i] = CONTROL
        else:
            content, types[i] = content.replace("▁", " "), USER_DEFINED
        tokens[i], scores[i] = content, -1000.0
    meta = [("tokenizer.ggml.model", 8, "llama"), ("tokenizer.ggml.pre", 8, "default")]

    ids = {}
    for i, t in enumerate(tokens):
        ids.setdefault(t, i)

    def token_id(name):
        return ids.get(name.get("content") if isinstance(name, dict) else name)
    for kind, key in (("bos", "bos"), ("eos", "eos"), ("unk", "unknown"), ("pad", "padding")):
        i = token_id(config.get(kind + "_token"))
        if i is not None:
            meta.append((f"tokenizer.ggml.{key}_token_id", 4, i))
    for key in ("add_bos_token", "add_eos_token"):
        if key in config:
            meta.append((f"tokenizer.ggml.{key}", 7, bool(config[key])))
    if add_space_prefix is not None:
        meta.append(("tokenizer.ggml.add_space_prefix", 7, add_space_prefix))
    arrays = [("tokenizer.ggml.tokens", 8, tokens), ("tokenizer.ggml.scores", 6, scores),
              ("tokenizer.ggml.token_type", 5, types)]
    return meta, arrays
