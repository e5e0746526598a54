"""attn heads' scores against numpy, from the weights `attn attend --model ... --show weights`
writes (layers x heads x n x n per prompt). The patterns and the mul and abs measures are
TransformerLens's (transformer_lens/head_detector.py), the rest attn's contract (`attn heads`).

usage: heads_check.py HEADS.json CAUSAL MEASURE BOS SELF WEIGHTS.npz [WEIGHTS.npz ...]
  HEADS.json: attn heads -f json over the same prompts (in order), all layers and heads;
  CAUSAL, BOS, SELF: 0 or 1; MEASURE: rows, mul or abs. Exits 1 naming the first mismatch.
"""
import json
import sys

import numpy as np


def patterns(t):
    n = len(t)
    prev = np.zeros((n, n))
    prev[np.arange(1, n), np.arange(n - 1)] = 1
    dup = (t[:, None] == t[None, :]).astype(float)
    dup = np.tril(dup, -1)
    ind = np.zeros((n, n))
    ind[:, 1:] = (t[:, None] == t[None, :-1]).astype(float)  # D[i, j]: t_(j-1) == t_i
    ind = np.tril(ind)  # j <= i (so j - 1 < i)
    return [prev, dup, ind]


def main():
    heads = json.load(open(sys.argv[1]))
    causal, measure = sys.argv[2] == "1", sys.argv[3]
    bos, self_ = sys.argv[4] == "1", sys.argv[5] == "1"
    prompts = [np.load(p) for p in sys.argv[6:]]
    cols = heads["columns"]
    got = {(r[0], r[1]): dict(zip(cols, r)) for r in heads["data"]}
    L, H = prompts[0]["weights"].shape[:2]
    assert len(got) == L * H, (len(got), L, H)
    assert len(heads["prompts"]) == len(prompts)
    worst = 0.0
    for layer in range(L):
        for head in range(H):
            rows_sum = np.zeros(3)
            rows_cnt = np.zeros(3)
            plain_sum = np.zeros(3)
            plain_cnt = np.zeros(3)
            per_prompt = []
            stats = []
            offsets = []
            for z, ids in zip(prompts, heads["prompts"]):
                a = z["weights"][layer, head].astype(np.float64)
                t = np.array(ids)
                assert a.shape == (len(t), len(t)), (a.shape, len(t))
                n = len(t)
                keep = np.ones((n, n))
                if bos:
                    keep[:, 0] = 0
                if self_:
                    np.fill_diagonal(keep, 0)
                scores = []
                for k, d in enumerate(patterns(t)):
                    dk = d * keep
                    counted = dk.sum(1) > 0
                    rows_sum[k] += (a * dk).sum(1)[counted].sum()
                    rows_cnt[k] += counted.sum()
                    pc = d.sum(1) > 0
                    plain_sum[k] += (a * d).sum(1)[pc].sum()
                    plain_cnt[k] += pc.sum()
                    ak = a * keep
                    if measure == "mul":
                        scores.append((ak * d).sum() / ak.sum())
                    else:
                        scores.append(1 - (np.abs(a - d) * keep).sum() / n)
                per_prompt.append(scores)
                for i in range(n):
                    if (i + 1 if causal else n) < 2:
                        continue
                    row = a[i]
                    nz = row[row > 0]
                    stats.append([row[0], row[i], -(nz * np.log(nz)).sum()])
                    offsets.append(int(np.argmax(row)) - i)
            with np.errstate(invalid="ignore", divide="ignore"):
                want_rows = rows_sum / rows_cnt
                plain = plain_sum / plain_cnt
            want = want_rows if measure == "rows" else np.mean(per_prompt, axis=0)
            sink, self_score, entropy = np.mean(stats, axis=0)
            values, counts = np.unique(offsets, return_counts=True)
            best = max(zip(counts, -np.abs(values), -values))
            offset = -best[2]
            positional = np.mean(np.array(offsets) == offset)
            five = [plain[0], plain[1], plain[2], sink, self_score]
            names = ["previous", "duplicate", "induction", "sink", "self"]
            typ = ""
            valid = [k for k in range(5) if not np.isnan(five[k])]
            if valid:
                k = max(valid, key=lambda k: (five[k], -k))
                if five[k] >= 0.5:
                    typ = names[k]
            if not typ and positional >= 0.9:
                typ = "positional"
            g = got[(layer, head)]
            for name, w in [("previous", want[0]), ("duplicate", want[1]),
                            ("induction", want[2]), ("sink", sink), ("self", self_score),
                            ("entropy", entropy), ("positional", positional)]:
                v = g[name]
                if np.isnan(w):
                    assert v is None, (layer, head, name, v, "want nan")
                    continue
                assert v is not None and abs(v - w) <= 1e-5, (layer, head, name, v, w)
                worst = max(worst, abs(v - w))
            assert g["offset"] == offset, (layer, head, g["offset"], offset)
            # a label decided by a margin within the tolerance may differ: only check clear ones
            margin = min([abs(x - 0.5) for x in five if not np.isnan(x)] + [abs(positional - 0.9)])
            top = sorted((x for x in five if not np.isnan(x)), reverse=True)
            if len(top) > 1:
                margin = min(margin, top[0] - top[1])
            if margin > 1e-5:
                assert g["type"] == typ, (layer, head, g["type"], typ, five, positional)
    print(f"{L} x {H} heads, {len(prompts)} prompts, {measure} bos={bos} self={self_}: "
          f"largest difference {worst:.2e}")


if __name__ == "__main__":
    main()
