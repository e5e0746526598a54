"""Reference vectors for `attn attend --bias`, made with PyTorch (nn.Linear(bias=True) and
torch.rand biases drawn right after their weights). Run: /usr/bin/python3 make_bias_vectors.py
in this directory; writes the .npy files beside it."""
import numpy as np
import torch

SENTENCE = "Life is short, eat dessert first"
words = SENTENCE.replace(",", "").split()
dc = {s: i for i, s in enumerate(sorted(words))}
ids = torch.tensor([dc[s] for s in words])

torch.manual_seed(123)
embed = torch.nn.Embedding(50000, 3)
x = embed(ids).detach()  # (6, 3)


def attention(q, k, v):
    w = torch.softmax(q @ k.T / k.shape[1] ** 0.5, dim=-1)
    return w @ v


# 1. The notebook's draws (--init rand): W = torch.rand(d_in, d), then b = torch.rand(d).
torch.manual_seed(123)
W_q = torch.rand(3, 2); b_q = torch.rand(2)
W_k = torch.rand(3, 2); b_k = torch.rand(2)
W_v = torch.rand(3, 4); b_v = torch.rand(4)
q, k, v = x @ W_q + b_q, x @ W_k + b_k, x @ W_v + b_v
np.save("bias_rand_queries.npy", q.numpy())
np.save("bias_rand_context.npy", attention(q, k, v).numpy())

# 2. --init linear --heads 2 --out-proj: nn.Linear(d_in, d, bias=True) per projection,
#    head 0's q, k, v, head 1's, then W_o = nn.Linear(H d_v, H d_v, bias=True).
torch.manual_seed(123)
heads = []
for h in range(2):
    lq = torch.nn.Linear(3, 2, bias=True)
    lk = torch.nn.Linear(3, 2, bias=True)
    lv = torch.nn.Linear(3, 4, bias=True)
    heads.append((lq, lk, lv))
lo = torch.nn.Linear(8, 8, bias=True)
with torch.no_grad():
    z = torch.cat([attention(lq(x), lk(x), lv(x)) for lq, lk, lv in heads], dim=1)
    np.save("bias_linear_2heads_outproj_context.npy", lo(z).numpy())
    np.save("bias_linear_b_out.npy", lo.bias.numpy())
