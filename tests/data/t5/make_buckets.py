# Writes buckets_torch.txt: Hugging Face T5's relative-position buckets computed with torch
# tensors exactly as transformers' T5Attention._relative_position_bucket does (float32 log,
# division by the Python float log(max_distance / max_exact), truncation to long).
# Run with /usr/bin/python3 (Debian's PyTorch 1.13): python3 make_buckets.py > buckets_torch.txt
import math

import torch


def bucket(relative, bidirectional, num_buckets, max_distance):
    buckets = torch.zeros_like(relative)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative > 0).to(torch.long) * num_buckets
        relative = torch.abs(relative)
    else:
        relative = -torch.min(relative, torch.zeros_like(relative))
    max_exact = num_buckets // 2
    small = relative < max_exact
    scaled = torch.log(relative.float() / max_exact) / math.log(max_distance / max_exact)
    large = max_exact + (scaled * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(small, relative, large)


CONFIGS = [(32, 128, 1), (32, 128, 0), (8, 20, 1), (64, 1000, 0), (128, 4096, 1), (4, 2, 1),
           (2, 2, 0), (16, 16, 1), (256, 256, 0)]
print("# T5 buckets of j - i = -600 .. 600 from make_buckets.py, PyTorch " + torch.__version__)
print("# num_buckets max_distance bidirectional(1/0), then the 1201 bucket ids")
for b, d, bi in CONFIGS:
    ids = bucket(torch.arange(-600, 601), bool(bi), b, d).tolist()
    print(b, d, bi, " ".join(map(str, ids)))
