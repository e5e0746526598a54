#!/usr/bin/python3
"""Reference values for tests/attn/model/summaries_test.cpp: attention summaries computed with
numpy from the full layers x heads x n x n weights (the C++ reduces one head at a time).

Run from anywhere: /usr/bin/python3 tests/data/summaries/make_summaries.py
Writes summaries.npz beside this script (float64 arrays, names "<case>_<array>").

Cases:
  causal  3 layers x 4 heads, n = 7, causal mask (weights above the diagonal exactly 0);
          layer 1 head 2 is one-hot on the previous token (query 0 on itself).
  full    2 layers x 3 heads, n = 5, no mask; layer 0 head 0 is one-hot on the first token.
  n1      2 layers x 2 heads, n = 1 (every weight 1).
Arrays per case: weights (L, H, n, n); head_stats (L*H, 5) columns entropy, distance, first,
previous, self; offsets (L, H, 2n-1); mean_weights (L, n, n); rollout (n, n).
"""
import os

import numpy as np


def softmax_rows(scores, causal):
    n = scores.shape[-1]
    if causal:
        scores = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def head_stats(w):
    n = w.shape[0]
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0)
    entropy = (-plogp.sum(axis=1)).mean()
    distance = (w * np.abs(i - j)).sum(axis=1).mean()
    first = w[:, 0].mean()
    previous = np.diagonal(w, -1).mean() if n > 1 else 0.0
    self = np.diagonal(w).mean()
    return [entropy, distance, first, previous, self]


def offsets(w):
    n = w.shape[0]
    return np.array([np.diagonal(w, o).mean() for o in range(-(n - 1), n)])


def rollout(weights):
    n = weights.shape[-1]
    r = np.eye(n)
    for layer in weights:
        a = 0.5 * layer.mean(axis=0) + 0.5 * np.eye(n)
        a = a / a.sum(axis=1, keepdims=True)
        r = a @ r
    return r


def case(rng, layers, heads, n, causal, scale=3.0):
    w = softmax_rows(scale * rng.standard_normal((layers, heads, n, n)), causal)
    return w


def summarise(name, w, out):
    layers, heads, n, _ = w.shape
    out[name + "_weights"] = w
    out[name + "_head_stats"] = np.array([head_stats(w[l, h]) for l in range(layers)
                                          for h in range(heads)])
    out[name + "_offsets"] = np.array([[offsets(w[l, h]) for h in range(heads)]
                                       for l in range(layers)])
    out[name + "_mean_weights"] = w.mean(axis=1)
    out[name + "_rollout"] = rollout(w)


def main():
    rng = np.random.default_rng(20)
    out = {}
    w = case(rng, 3, 4, 7, causal=True)
    w[1, 2] = np.eye(7, k=-1)
    w[1, 2, 0, 0] = 1.0
    summarise("causal", w, out)
    w = case(rng, 2, 3, 5, causal=False)
    w[0, 0] = 0.0
    w[0, 0, :, 0] = 1.0
    summarise("full", w, out)
    summarise("n1", np.ones((2, 2, 1, 1)), out)
    for key, value in out.items():
        assert np.all(np.isfinite(value)), key
    np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "summaries.npz"), **out)


if __name__ == "__main__":
    main()
