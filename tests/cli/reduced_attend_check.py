"""attn attend --dtype bfloat16|float16 against PyTorch's values (tests/data/reduced/
attend_*.npz, made by make_attend.py): every value of every array within one unit in the last
place of the dtype, the ulps counted exactly on the bit patterns. Prints the worst count per
case. Usage: reduced_attend_check.py ATTN DATA_DIR WORK_DIR"""
import glob
import os
import subprocess
import sys

import numpy as np

attn, data, work = sys.argv[1:4]


def order(v, dtype):
    """The bit pattern of each value as an integer that counts ulps (negatives mirrored)."""
    if dtype == "bfloat16":
        bits = v.astype(np.float32).view(np.uint32)
        assert not np.any(bits & 0xFFFF), "a bfloat16 array holds a value that is not bfloat16"
        bits = (bits >> 16).astype(np.int64)
    else:
        bits = v.astype(np.float16).view(np.uint16).astype(np.int64)
    return np.where(bits >> 15 == 1, -(bits & 0x7FFF), bits)


failed = False
files = sorted(glob.glob(os.path.join(data, "attend_*_*.npz")))
assert len(files) >= 10, f"reference files missing in {data}"
for path in files:
    dtype = path.rsplit("_", 1)[1][:-4]
    ref = np.load(path)
    names = [k for k in ref.files if k != "args"]
    out = os.path.join(work, os.path.basename(path))
    cmd = [attn, "attend", *ref["args"].tolist(), "--dtype", dtype, "--show", ",".join(names),
           "-o", out]
    subprocess.run(cmd, cwd=data, check=True)
    got = np.load(out)
    worst, ones, total = 0, 0, 0
    for name in names:
        a, b = got[name], ref[name]
        want = np.float16 if dtype == "float16" else np.float32
        if a.dtype != want or a.shape != b.shape:
            print(f"{path} {name}: {a.dtype} {a.shape}, want {want} {b.shape}")
            failed = True
            continue
        u = np.abs(order(a, dtype) - order(b, dtype))
        worst = max(worst, int(u.max()))
        ones += int(np.count_nonzero(u == 1))
        total += u.size
        if u.max() > 1:
            i = np.unravel_index(np.argmax(u), u.shape)
            print(f"{os.path.basename(path)} {name}{list(i)}: attn {a[i]!r}, PyTorch {b[i]!r}: "
                  f"{int(u[i])} ulps")
            failed = True
    print(f"{os.path.basename(path)}: {total} values, max {worst} ulp, {ones} at 1 ulp")
sys.exit(1 if failed else 0)
