"""numpy's figures for attn compare (tests/cli/compare_test.sh), from attend's own outputs of
the two runs, and the GGUF files compare reads (converted and quantized by ggml itself).

    compare_check.py weights A.npz B.npz OUT.npz   js, top1, max_abs per (layer, head) from the
                                                   weights (layers, heads, n, n) of A and B
    compare_check.py hidden A.npz B.npz OUT.npz    max|h_A - h_B| / max|h_A| after each layer
    compare_check.py next A.npz B.npz OUT.npz      KL(A || B) from each run's lens at the last
                                                   layer and position (--top V: every id's
                                                   probability), top-1 agreement from `next`
    compare_check.py mean OUT.npz ONE.npz ...       OUT's js and top1 the means of the single
                                                   runs', max_abs their maximum
    compare_check.py gguf LIBDIR MODELS WORK NAME QTYPE OUT.gguf
                                                   the checkpoint NAME as GGUF, quantized to QTYPE
                                                   by ggml (tests/io/gguf_convert.py's convert)

Every figure must agree within 1e-6 (top1 exactly; KL 1e-5 relative, see next_token), and be
NaN exactly where numpy's is (a run that met a NaN: its rows are NaN, never a number); exits 1
naming the first that does not.
"""
import os
import sys

import numpy as np

TOL = 1e-6


def x_log_ratio(x, y):
    """x log(x / y) elementwise, 0 where x = 0 and y is a number (0 log 0 = 0); a NaN stays."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = x * np.log(x / y)
    return np.where((x == 0) & ~np.isnan(y), 0.0, t)


def js_rows(p, q):
    """JS(p_i, q_i) of each row, in nats."""
    m = (p + q) / 2
    return 0.5 * x_log_ratio(p, m).sum(-1) + 0.5 * x_log_ratio(q, m).sum(-1)


def expect(what, got, want, tol=TOL):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise SystemExit(f"FAIL: {what}: shape {got.shape}, numpy's {want.shape}")
    if (np.isnan(got) != np.isnan(want)).any():
        raise SystemExit(f"FAIL: {what}: NaN elsewhere than numpy's: {got} against {want}")
    got, want = got[~np.isnan(want)], want[~np.isnan(want)]
    err = float(np.abs(got - want).max()) if got.size else 0.0
    if not err <= tol:
        raise SystemExit(f"FAIL: {what}: differs from numpy's by {err}: {got} against {want}")
    print(f"ok {what} (largest difference {err:.3g})")


def weights(a, b, out):
    wa = np.load(a)["weights"].astype(np.float64)  # (layers, heads, n, n)
    wb = np.load(b)["weights"].astype(np.float64)
    c = np.load(out)
    layers, heads = wa.shape[:2]
    expect("layer", c["layer"], np.repeat(np.arange(layers), heads), 0)
    expect("head", c["head"], np.tile(np.arange(heads), layers), 0)
    expect("js", c["js"], js_rows(wa, wb).mean(-1).reshape(-1))
    top1 = (wa.argmax(-1) == wb.argmax(-1)).mean(-1).reshape(-1)
    expect("top1", c["top1"], top1, 0)
    expect("max_abs", c["max_abs"], np.abs(wa - wb).max((-1, -2)).reshape(-1))


def hidden(a, b, out):
    ha = np.load(a)["hidden"].astype(np.float64)  # (layers + 1, n, d)
    hb = np.load(b)["hidden"].astype(np.float64)
    want = np.abs(ha - hb).max((-1, -2)) / np.abs(ha).max((-1, -2))
    c = np.load(out)
    expect("hidden_layer", c["hidden_layer"], np.arange(len(ha) - 1), 0)
    expect("hidden", c["hidden"], want[1:])


def distribution(path):
    """The probabilities of every id at the last layer and position, from a lens of every id."""
    z = np.load(path)
    ids, p = z["lens"][:, 3], z["lens"][:, 4]  # layer,position,rank,id,probability (no token)
    out = np.zeros(len(ids))
    out[ids.astype(int)] = p
    return out


def next_token(a, b, out):
    # the lens at the last layer is next's distribution through the lens's own float32 final norm
    # and LM head: equal to next's probabilities within about 1e-6 relative, hence KL within 1e-5
    # relative; the top-1 ids are next's own (rank 1 of `next`: rank,id,probability)
    pa, pb = distribution(a), distribution(b)
    kl = float(np.sum(x_log_ratio(pa, pb)))
    c = np.load(out)
    expect("next_kl", c["next_kl"], [kl], 1e-5 * max(1.0, kl))
    same = float(np.load(a)["next"][0, 1] == np.load(b)["next"][0, 1])
    expect("next_top1", c["next_top1"], [same], 0)


def mean(out, *ones):
    c, runs = np.load(out), [np.load(o) for o in ones]
    expect("--prompts js", c["js"], np.mean([r["js"] for r in runs], 0), 1e-12)
    expect("--prompts top1", c["top1"], np.mean([r["top1"] for r in runs], 0), 1e-12)
    expect("--prompts max_abs", c["max_abs"], np.max([r["max_abs"] for r in runs], 0), 0)


def gguf(libdir, models, work, name, qtype, out):
    """tests/io/gguf_convert.py's convert (the converter's layouts, ggml's writer and
    quantizer) of the checkpoint `name` to `out` in qtype."""
    os.environ["ATTN_GGML_LIBDIR"] = libdir
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io"))
    import gguf_convert
    gguf_convert.convert(os.path.join(models, name), out, getattr(gguf_convert, qtype))


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    {"weights": weights, "hidden": hidden, "next": next_token, "mean": mean, "gguf": gguf}[mode](*args)
