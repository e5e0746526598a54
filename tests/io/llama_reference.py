"""llama.cpp itself through ctypes: the tokenizer (llama_tokenize) and the logits of a forward
(llama_decode, llama_get_logits_ith) of libllama.v0.4.0.so, as npm's @node-llama-cpp/linux-x64
3.21.1 ships it (llama.cpp commit 5b4ebc5, built with its CPU backends as loadable libraries),
found in $ATTN_GGML_LIBDIR.

That build's llama.h is not shipped; its two parameter structs are read here as llama.cpp lays
them out at that commit (the disassembly of llama_model_default_params and
llama_context_default_params, checked below against their defaults): llama_model_params is 80
bytes, `vocab_only` the bool at 72; llama_context_params is 160 bytes, n_threads and
n_threads_batch the int32 at 28 and 32, flash_attn_type the int32 at 52, type_k and type_v the
int32 at 104 and 108. Each struct is passed and returned as bytes of that size (classed in
memory by the x86-64 ABI, as the C struct is).
"""
import ctypes as C
import os
import struct

LIBDIR = os.environ["ATTN_GGML_LIBDIR"]
for _name in ("libggml-base.so", "libggml.v0.4.0.so"):
    C.CDLL(os.path.join(LIBDIR, _name), mode=C.RTLD_GLOBAL)
ggml = C.CDLL(os.path.join(LIBDIR, "libggml.v0.4.0.so"))
lib = C.CDLL(os.path.join(LIBDIR, "libllama.v0.4.0.so"), mode=C.RTLD_GLOBAL)


class ModelParams(C.Structure):  # llama_model_params
    _fields_ = [("raw", C.c_uint8 * 80)]


class ContextParams(C.Structure):  # llama_context_params
    _fields_ = [("raw", C.c_uint8 * 160)]


class Batch(C.Structure):  # llama_batch
    _fields_ = [("n_tokens", C.c_int32), ("token", C.POINTER(C.c_int32)),
                ("embd", C.POINTER(C.c_float)), ("pos", C.POINTER(C.c_int32)),
                ("n_seq_id", C.POINTER(C.c_int32)), ("seq_id", C.c_void_p),
                ("logits", C.POINTER(C.c_int8))]


LOG = C.CFUNCTYPE(None, C.c_int, C.c_char_p, C.c_void_p)


def sig(f, res, *args):
    f.restype, f.argtypes = res, list(args)
    return f


P = C.c_void_p
sig(lib.llama_log_set, None, LOG, P)
sig(lib.llama_backend_init, None)
sig(lib.llama_model_default_params, ModelParams)
sig(lib.llama_context_default_params, ContextParams)
sig(lib.llama_model_load_from_file, P, C.c_char_p, ModelParams)
sig(lib.llama_model_free, None, P)
sig(lib.llama_model_get_vocab, P, P)
sig(lib.llama_vocab_n_tokens, C.c_int32, P)
sig(lib.llama_vocab_type, C.c_int, P)
sig(lib.llama_tokenize, C.c_int32, P, C.c_char_p, C.c_int32, C.POINTER(C.c_int32), C.c_int32,
    C.c_bool, C.c_bool)
sig(lib.llama_init_from_model, P, P, ContextParams)
sig(lib.llama_free, None, P)
sig(lib.llama_batch_get_one, Batch, C.POINTER(C.c_int32), C.c_int32)
sig(lib.llama_decode, C.c_int32, P, Batch)
sig(lib.llama_get_logits_ith, C.POINTER(C.c_float), P, C.c_int32)
sig(ggml.ggml_backend_load_all_from_path, None, C.c_char_p)

_quiet = LOG(lambda level, text, data: None)  # kept alive: llama.cpp holds the pointer
lib.llama_log_set(_quiet, None)
ggml.ggml_backend_load_all_from_path(LIBDIR.encode())
lib.llama_backend_init()


def _model_params(vocab_only):
    p = lib.llama_model_default_params()
    raw = bytes(p.raw)
    # defaults: n_gpu_layers -1, the six bools false but the third (at 74)
    if struct.unpack_from("<i", raw, 16)[0] != -1 or raw[72:78] != b"\0\0\1\0\0\0":
        raise RuntimeError("llama_model_params is not laid out as this file reads it")
    p.raw[72] = int(vocab_only)
    return p


def _context_params(threads):
    p = lib.llama_context_default_params()
    raw = bytes(p.raw)
    # defaults: n_ctx 512, n_batch 2048, threads 4 and 4, flash attention auto (-1), K and V F16
    if (struct.unpack_from("<2I", raw, 0) != (512, 2048)
            or struct.unpack_from("<2i", raw, 28) != (4, 4)
            or struct.unpack_from("<i", raw, 52)[0] != -1
            or struct.unpack_from("<2i", raw, 104) != (1, 1)):
        raise RuntimeError("llama_context_params is not laid out as this file reads it")
    struct.pack_into("<2i", p.raw, 28, threads, threads)
    struct.pack_into("<i", p.raw, 52, 0)  # flash attention off: the plain softmax
    struct.pack_into("<2i", p.raw, 104, 0, 0)  # the KV cache in F32, not rounded to F16
    return p


class Model:
    def __init__(self, path, vocab_only=False):
        self.ptr = lib.llama_model_load_from_file(path.encode(), _model_params(vocab_only))
        if not self.ptr:
            raise RuntimeError(f"llama.cpp does not load {path}")
        self.vocab = lib.llama_model_get_vocab(self.ptr)

    def close(self):
        lib.llama_model_free(self.ptr)

    def tokenize(self, text, add_special=True, parse_special=True):
        """llama_tokenize's ids for text (parse_special: added tokens in the text are tokens, as
        Hugging Face's tokenizers take them)."""
        b = text.encode()
        cap = 2 * len(b) + 8
        out = (C.c_int32 * cap)()
        n = lib.llama_tokenize(self.vocab, b, len(b), out, cap, add_special, parse_special)
        if n < 0:
            raise RuntimeError(f"llama_tokenize: {-n} tokens for {text!r}")
        return list(out[:n])

    def last_logits(self, ids, threads=1):
        """The logits after the last of ids (one sequence, a fresh context, CPU)."""
        ctx = lib.llama_init_from_model(self.ptr, _context_params(threads))
        if not ctx:
            raise RuntimeError("llama_init_from_model failed")
        try:
            tokens = (C.c_int32 * len(ids))(*ids)
            rc = lib.llama_decode(ctx, lib.llama_batch_get_one(tokens, len(ids)))
            if rc != 0:
                raise RuntimeError(f"llama_decode returned {rc}")
            n = lib.llama_vocab_n_tokens(self.vocab)
            logits = lib.llama_get_logits_ith(ctx, -1)
            return [float(logits[i]) for i in range(n)]
        finally:
            lib.llama_free(ctx)
