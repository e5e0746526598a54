"""Reference head scores for tests/attn/model/head_scores_test.cpp, computed in numpy alone.

The patterns and the `mul` and `abs` measures follow TransformerLens's
transformer_lens/head_detector.py (get_*_detection_pattern and
compute_head_attention_similarity_score: `mul` = sum(A * D) / sum(A) after zeroing A's column 0
and diagonal on request; `abs` = 1 - mean(|A - D|) * n after zeroing |A - D|'s column 0 and
diagonal on request, without its rounding to 3 decimals), each averaged over the prompts as
its detect_head does for a list of prompts. `rows` and the statistics are attn's contract
(docs: `attn heads`), written here independently of the C++.

Run: /usr/bin/python3 tests/data/heads/make_references.py  (writes heads_reference.npz beside it;
numpy only; the same bytes every run).
"""
import os
import numpy as np


def previous_pattern(t):
    n = len(t)
    d = np.zeros((n, n))
    d[1:, :-1] = np.eye(n - 1)
    return np.tril(d)


def duplicate_pattern(t):
    tok = np.tile(t, (len(t), 1))
    eq = np.equal(tok, tok.T).astype(int)
    np.fill_diagonal(eq, 0)
    return np.tril(eq.astype(float))


def induction_pattern(t):
    dup = duplicate_pattern(t)
    shifted = np.roll(dup, 1, axis=1)
    out = np.concatenate([np.zeros((len(t), 1)), shifted[:, 1:]], axis=1)
    return np.tril(out)


PATTERNS = [previous_pattern, duplicate_pattern, induction_pattern]


def tl_score(a, d, exclude_bos, exclude_self, measure):
    a = a.copy()
    if measure == "mul":
        if exclude_bos:
            a[:, 0] = 0
        if exclude_self:
            np.fill_diagonal(a, 0)
        return (a * d).sum() / a.sum()
    diff = np.abs(a - d)
    if exclude_bos:
        diff[:, 0] = 0
    if exclude_self:
        np.fill_diagonal(diff, 0)
    return 1 - diff.mean() * len(diff)


def rows_sums(a, d, exclude_bos, exclude_self):
    keep = np.ones_like(d)
    if exclude_bos:
        keep[:, 0] = 0
    if exclude_self:
        np.fill_diagonal(keep, 0)
    d = d * keep
    counted = d.sum(axis=1) > 0
    return (a * d).sum(axis=1)[counted].sum(), counted.sum()


def softmax_rows(s, causal):
    n = len(s)
    if causal:
        s = np.where(np.tril(np.ones((n, n))) > 0, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def case(rng, prompts, causal, name, out):
    ids, weights = [], []
    for n in prompts:
        t = rng.integers(0, 4, size=n)
        s = rng.normal(scale=2.0, size=(n, n))
        s[np.arange(1, n), np.arange(n - 1)] += 1.5  # some previous-token lean
        ids.append(t)
        weights.append(softmax_rows(s, causal))
    for eb in (0, 1):
        for es in (0, 1):
            key = f"{name}_bos{eb}_self{es}"
            rows, mul, ab = [], [], []
            for p in PATTERNS:
                sums = [rows_sums(a, p(t), eb, es) for t, a in zip(ids, weights)]
                total, count = sum(s[0] for s in sums), sum(s[1] for s in sums)
                rows.append(total / count if count else np.nan)
                mul.append(np.mean([tl_score(a, p(t), eb, es, "mul") for t, a in zip(ids, weights)]))
                ab.append(np.mean([tl_score(a, p(t), eb, es, "abs") for t, a in zip(ids, weights)]))
            out[key + "_rows"] = np.array(rows)
            out[key + "_mul"] = np.array(mul)
            out[key + "_abs"] = np.array(ab)
    sink, self_, ent, offsets = [], [], [], []
    for a in weights:
        n = len(a)
        for i in range(n):
            if (i + 1 if causal else n) < 2:
                continue
            row = a[i]
            sink.append(row[0])
            self_.append(row[i])
            nz = row[row > 0]
            ent.append(-(nz * np.log(nz)).sum())
            offsets.append(int(np.argmax(row)) - i)
    values, counts = np.unique(offsets, return_counts=True)
    best = max(zip(counts, -np.abs(values), -values))
    offset = -best[2]
    out[name + "_stats"] = np.array([np.mean(sink), np.mean(self_), np.mean(ent), offset,
                                     np.mean(np.array(offsets) == offset)])
    for k, (t, a) in enumerate(zip(ids, weights)):
        out[f"{name}_ids{k}"] = t.astype(np.float64)
        out[f"{name}_weights{k}"] = a


def main():
    rng = np.random.default_rng(38)
    out = {}
    case(rng, [12, 9, 15], True, "causal", out)
    case(rng, [7, 11], False, "bidirectional", out)
    np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "heads_reference.npz"), **out)


if __name__ == "__main__":
    main()
