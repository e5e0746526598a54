"""A safetensors file written and read with numpy alone (the format: an 8-byte little-endian
header length, a JSON header {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__":
{...}} padded with spaces to a multiple of 8 bytes, then the tensors' bytes, C order,
little-endian, in header order; BOOL one byte, 0 or 1). BF16 is carried as uint16 bit
patterns, since numpy has no bfloat16: to_bf16 rounds float32 to the nearest, ties to even, as
torch's .to(torch.bfloat16)."""
import json
import struct

import numpy as np

_DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2"),
           "F64": np.dtype("<f8"), "I64": np.dtype("<i8"), "BOOL": np.dtype("?")}


def to_bf16(a):
    """float32 array -> uint16 bfloat16 bit patterns (round to nearest even; no NaNs here)."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16(bits):
    """uint16 bfloat16 bit patterns -> float32 (exact)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def write(path, tensors, dtypes=None, metadata=None):
    """tensors: name -> numpy array (float32 unless dtypes[name] says 'F16' or 'BF16', in which
    case the float32 values are rounded to it, or 'BOOL': nonzero is 1). Written in the order
    given."""
    dtypes = dtypes or {}
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        kind = dtypes.get(name, "F32")
        if kind == "BF16":
            data = to_bf16(array)
        else:
            data = np.ascontiguousarray(array, dtype=_DTYPES[kind])
        raw = data.tobytes()
        header[name] = {"dtype": kind, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = metadata or {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for raw in blobs:
            out.write(raw)


def read(path):
    """name -> float32 numpy array (F16 and BF16 widened exactly, BOOL as 0 and 1); the
    header's __metadata__ is dropped. Returns (tensors, dtypes)."""
    with open(path, "rb") as f:
        blob = f.read()
    size = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + size])
    header.pop("__metadata__", None)
    tensors, dtypes = {}, {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = np.frombuffer(blob[8 + size + begin:8 + size + end], dtype=_DTYPES[info["dtype"]])
        raw = raw.reshape(info["shape"])
        tensors[name] = from_bf16(raw) if info["dtype"] == "BF16" else raw.astype(np.float32)
        dtypes[name] = info["dtype"]
    return tensors, dtypes
