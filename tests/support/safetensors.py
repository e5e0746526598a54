"""Small safetensors checkpoints and Hugging Face cache trees for tests, with numpy only.

The safetensors format (huggingface/safetensors, docs "Format"): 8 bytes little-endian
unsigned N, then N bytes of UTF-8 JSON {"name": {"dtype": "F32", "shape": [2, 3],
"data_offsets": [begin, end]}, ..., "__metadata__": {str: str}}, then the data, offsets
relative to the byte after the header. The header may be padded with spaces.

Use from a test:
    sys.path.insert(0, "<source>/tests/support"); import safetensors as st
    st.write_file("model.safetensors", {"wte.weight": np.ones((4, 2), np.float32)}, "BF16")
    st.write_shards("folder", tensors, "F16", shards=2)   # + model.safetensors.index.json
    st.write_raw("bad.safetensors", header_dict, data_bytes)  # any header, checked by nothing
    snapshot = st.fake_cache(hub, "org/name", {"config.json": b"{...}", ...})
"""

import hashlib
import json
import os
import struct

import numpy as np

DTYPE_SIZE = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2,
              "I8": 1, "U8": 1, "BOOL": 1}


def bf16_bits(values):
    """float32 values rounded to bfloat16 (nearest, ties to even) as uint16 bit patterns."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    rounded = np.where(nan, (bits >> 16) | 0x40, rounded)
    return rounded.astype(np.uint16)


def bf16_values(bits):
    """The float32 values of bfloat16 bit patterns (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def stored(array, dtype):
    """(bytes, the values as stored, widened to float64) of array in dtype F32/F16/BF16/F64."""
    array = np.asarray(array)
    if dtype == "F32":
        data = array.astype("<f4")
        return data.tobytes(), data.astype(np.float64)
    if dtype == "F16":
        data = array.astype("<f2")
        return data.tobytes(), data.astype(np.float64)
    if dtype == "BF16":
        bits = bf16_bits(array.astype(np.float32)).astype("<u2")
        return bits.tobytes(), bf16_values(bits).astype(np.float64).reshape(array.shape)
    if dtype == "F64":
        data = array.astype("<f8")
        return data.tobytes(), data
    if dtype == "I8":
        data = array.astype("i1")
        return data.tobytes(), data.astype(np.float64)
    if dtype == "I64":
        data = array.astype("<i8")
        return data.tobytes(), data.astype(np.float64)
    raise ValueError("dtype " + dtype)


def write_raw(path, header, data, header_size=None, pad_to=8):
    """A file with `header` (a dict, or a str/bytes taken as is) and `data` as they are:
    nothing is checked, for malformed cases. header_size overrides the 8-byte length."""
    if isinstance(header, dict):
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * ((-len(text)) % pad_to)
    elif isinstance(header, str):
        text = header.encode()
    else:
        text = bytes(header)
    size = len(text) if header_size is None else header_size
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", size))
        out.write(text)
        out.write(data)


def layout(tensors, dtype, metadata=None):
    """(header dict, data bytes, {name: stored values}) with tensors in order, back to back.
    dtype is one name for all, or a dict name -> dtype."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    chunks, values, offset = [], {}, 0
    for name, array in tensors.items():
        kind = dtype[name] if isinstance(dtype, dict) else dtype
        data, widened = stored(array, kind)
        header[name] = {"dtype": kind, "shape": list(np.shape(array)),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        values[name] = widened
        offset += len(data)
    return header, b"".join(chunks), values


def write_file(path, tensors, dtype="F32", metadata=None):
    """One safetensors file; returns {name: the values as stored, in float64}."""
    header, data, values = layout(tensors, dtype, metadata or {"format": "pt"})
    write_raw(path, header, data)
    return values


def write_shards(folder, tensors, dtype="F32", shards=2):
    """model-0000i-of-0000N.safetensors and model.safetensors.index.json in folder, the
    tensors dealt in order over the shards as transformers' save_pretrained does."""
    names = list(tensors)
    per = -(-len(names) // shards)
    weight_map, values, total = {}, {}, 0
    for i in range(shards):
        part = {n: tensors[n] for n in names[i * per:(i + 1) * per]}
        file = "model-%05d-of-%05d.safetensors" % (i + 1, shards)
        values.update(write_file(os.path.join(folder, file), part, dtype))
        for name in part:
            weight_map[name] = file
            total += np.asarray(part[name]).size * DTYPE_SIZE[dtype]
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as out:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, out, indent=2)
    return values


def fake_cache(hub, repo_id, files, commit="0123456789abcdef0123456789abcdef01234567",
               ref="main"):
    """The Hugging Face hub cache layout under hub: models--ORG--NAME/blobs/<sha256> holding
    each file, snapshots/<commit>/<name> a relative symlink to its blob, refs/<ref> the commit.
    files: name -> bytes, or name -> path of a file to copy. Returns the snapshot folder."""
    repo = os.path.join(hub, "models--" + repo_id.replace("/", "--"))
    snapshot = os.path.join(repo, "snapshots", commit)
    os.makedirs(os.path.join(repo, "blobs"), exist_ok=True)
    os.makedirs(snapshot, exist_ok=True)
    for name, content in files.items():
        if not isinstance(content, (bytes, bytearray)):
            with open(content, "rb") as f:
                content = f.read()
        blob = hashlib.sha256(content).hexdigest()
        with open(os.path.join(repo, "blobs", blob), "wb") as out:
            out.write(content)
        link = os.path.join(snapshot, name)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        depth = name.count("/") + 2
        target = os.path.join(*([".."] * depth), "blobs", blob)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
    if ref is not None:
        ref_file = os.path.join(repo, "refs", ref)
        os.makedirs(os.path.dirname(ref_file), exist_ok=True)
        with open(ref_file, "w") as out:
            out.write(commit)
    return snapshot


def folder_files(folder):
    """name -> bytes of every file in folder (for fake_cache)."""
    files = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            files[name] = f.read()
    return files
