#!/usr/bin/python3
"""Trains a tiny GPT-2-layout model (two attention layers) on sequences where a random segment
is repeated after a random gap, the setting where a previous-token head (layer 0) and an
induction head (layer 1) form (Olsson et al. 2022, "In-context Learning and Induction Heads"),
and saves it as a Hugging Face gpt2 folder: tests/data/models/induction/{config.json,
model.safetensors, vocab.json, merges.txt, README.md}.

Run with Debian's PyTorch, one thread: /usr/bin/python3 tests/data/models/train_induction.py
Task (example): <|endoftext|>, filler, s, filler, s, filler in POSITIONS tokens; s is L distinct
lower-case letters, L from SHORTEST to LONGEST; the filler is capitals in blocks of four, ABAB.
The lengths of the fillers are random, so the distance between the copies changes from sequence
to sequence and no position tells where to look: the next token of the second copy is found
only by induction (find the current token's earlier occurrence, copy what followed it). The
loss counts the second copy's tokens after its first and the filler tokens that repeat the
token two back (ABAB: the next token is the one before the current one). That second rule
gives layer 0 a reason to look one token back from the start, as the local statistics of text
do in language models; without it, no head formed within 3,000 steps here (the loss stayed
where predicting any lower-case letter seen so far puts it). Also what did not work: `wpe`
starting at 0.1 x the sinusoidal table (positions then drown the tokens after ln_1 and even that
stage took thousands of steps), and filler drawn from the segment's alphabet.
Adam, learning rate LR; the MLPs start at zero and so stay zero (an attention-only model in
GPT-2's layout). Training stops once the second copy's loss on fresh sequences is below
STOP_LOSS. The saved checkpoint is reloaded from the file and run by hf_reference.gpt2 (the
forward the reference values use) on held-out sequences to find the heads; the script prints
their scores and exits 1 unless both are found.
"""
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_reference  # noqa: E402
import safetensors_numpy  # noqa: E402

SEED = 21
STEPS = 8000  # at most: training stops once the second copy's loss < STOP_LOSS
STOP_LOSS = 0.01
BATCH = 64
LR = 3e-3
D, HEADS, LAYERS, POSITIONS = 64, 2, 2, 24
SHORTEST, LONGEST = 4, 9  # the repeated segment's length L
CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
SPACE, EOT = len(CHARS), len(CHARS) + 1  # ids: 0..51 the letters, 52 "Ġ" (a space), 53 <|endoftext|>
VOCAB = len(CHARS) + 2
OUT = os.path.join(HERE, "induction")


def example(g):
    """One sequence of POSITIONS ids: <|endoftext|>, then filler, s, filler, s, filler. s is L
    distinct lower-case letters (L from SHORTEST..LONGEST); the filler is capitals in blocks of
    four, ABAB (A, B random), whose last two letters repeat the two before them. Returns (ids,
    first, second, length, rule): the positions where the copies start, and the mask of the
    filler positions that repeat the token two back."""
    r = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=g))
    length = r(SHORTEST, LONGEST)
    free = POSITIONS - 1 - 2 * length
    before = r(0, free)
    gap = r(0, free - before)
    s = torch.randperm(26, generator=g)[:length]  # lower case: ids 0..25
    pairs = 26 + torch.randint(0, 26, (POSITIONS // 4 + 1, 2), generator=g)  # capitals: 26..51
    ids = torch.cat([pairs, pairs], dim=1).reshape(-1)[:POSITIONS].clone()  # A B A B per block
    rule = (torch.arange(POSITIONS) % 4) >= 2
    first = 1 + before
    second = first + length + gap
    ids[first:first + length] = s
    ids[second:second + length] = s
    segment = torch.zeros(POSITIONS, dtype=torch.bool)
    segment[first:first + length] = True
    segment[second:second + length] = True
    rule &= ~segment & ~torch.roll(segment, 2)
    ids[0] = EOT
    rule[:3] = False
    return ids, first, second, length, rule


def batch(g, size):
    """(size, POSITIONS) ids and the (size, POSITIONS - 1) mask of the targets the loss counts:
    the second copy's tokens after its first (target t is predicted at position t - 1, and
    s[k] for k >= 1 follows s[k - 1] in the first copy), and the filler tokens that repeat the
    token two back."""
    ids = torch.empty((size, POSITIONS), dtype=torch.long)
    mask = torch.zeros((size, POSITIONS - 1), dtype=torch.bool)
    for b in range(size):
        ids[b], _, second, length, rule = example(g)
        mask[b, second:second + length - 1] = True  # targets second + 1 .. second + L - 1
        mask[b] |= rule[1:]
    return ids, mask


class Model(torch.nn.Module):
    """GPT-2 (pre-LN, gelu_new, tied head), batched, parameters named and shaped as GPT2Model's
    except that the Conv1D weights are held (out, in) here and transposed when saved."""

    def __init__(self):
        super().__init__()
        self.p = torch.nn.ParameterDict()  # "h__0__ln_1__weight" for "h.0.ln_1.weight"
        shapes = {"wte.weight": (VOCAB, D), "wpe.weight": (POSITIONS, D)}
        for l in range(LAYERS):
            for name, out, inp in (("attn.c_attn", 3 * D, D), ("attn.c_proj", D, D),
                                   ("mlp.c_fc", 4 * D, D), ("mlp.c_proj", D, 4 * D)):
                shapes[f"h.{l}.{name}.weight"] = (out, inp)
                shapes[f"h.{l}.{name}.bias"] = (out,)
        for name, shape in shapes.items():
            # the MLPs start at zero, so their gradients are zero and they stay zero: an
            # attention-only model in GPT-2's layout (Olsson et al.'s two-layer setting)
            zero = name.endswith(".bias") or ".mlp." in name
            init = torch.zeros(shape) if zero else torch.randn(shape) * 0.02
            self.p[name.replace(".", "__")] = torch.nn.Parameter(init)
        # wpe starts from 0.03 x the sinusoidal table (then learned): neighbouring positions
        # start alike, which makes a head that looks one token back easy to find
        i = torch.arange(POSITIONS, dtype=torch.float64)[:, None]
        angle = i / 10000 ** (torch.arange(0, D, 2, dtype=torch.float64) / D)
        table = torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(POSITIONS, D)
        self.p["wpe__weight"] = torch.nn.Parameter((0.03 * table).float())
        for name in [f"h.{l}.ln_{k}" for l in range(LAYERS) for k in (1, 2)] + ["ln_f"]:
            self.p[name.replace(".", "__") + "__weight"] = torch.nn.Parameter(torch.ones(D))
            self.p[name.replace(".", "__") + "__bias"] = torch.nn.Parameter(torch.zeros(D))

    def forward(self, ids, weights=None):
        """ids (b, n) -> logits (b, n, VOCAB); appends each layer's (b, HEADS, n, n) attention
        weights to the list `weights` when one is given."""
        W = {k.replace("__", "."): v for k, v in self.p.items()}
        b, n = ids.shape
        hd = D // HEADS
        ln = lambda x, name: torch.nn.functional.layer_norm(x, (D,), W[name + ".weight"], W[name + ".bias"], 1e-5)
        lin = lambda x, name: x @ W[name + ".weight"].t() + W[name + ".bias"]
        x = W["wte.weight"][ids] + W["wpe.weight"][:n]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
        for l in range(LAYERS):
            q, k, v = lin(ln(x, f"h.{l}.ln_1"), f"h.{l}.attn.c_attn").split(D, dim=-1)
            q, k, v = (t.view(b, n, HEADS, hd).transpose(1, 2) for t in (q, k, v))
            s = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
            w = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
            if weights is not None:
                weights.append(w.detach())
            c = (w @ v).transpose(1, 2).reshape(b, n, D)
            x = x + lin(c, f"h.{l}.attn.c_proj")
            h = lin(ln(x, f"h.{l}.ln_2"), f"h.{l}.mlp.c_fc")
            h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
            x = x + lin(h, f"h.{l}.mlp.c_proj")
        return ln(x, "ln_f") @ W["wte.weight"].t()


def scores(w, ids, first, second, length):
    """Head scores on one sequence from its weights w (layers, heads, n, n): previous = mean over
    queries i >= 1 of w[i, i-1]; induction = mean over the second copy's queries i (but its last)
    of w[i, i - (second - first) + 1], the token after the current token's earlier occurrence.
    Returns two (layers, heads) arrays."""
    w = np.asarray(w)
    previous = np.diagonal(w, -1, axis1=2, axis2=3).mean(-1)
    queries = np.arange(second, second + length - 1)
    induction = w[:, :, queries, queries - (second - first) + 1].mean(-1)
    return previous, induction


def probe(model, g, count):
    """Mean head scores and the second copy's loss over `count` fresh sequences."""
    previous, induction, loss = 0, 0, 0
    with torch.no_grad():
        for _ in range(count):
            ids, first, second, length, _ = example(g)
            weights = []
            logits = model(ids[None, :-1], weights)[0]
            w = torch.stack([x[0] for x in weights])
            p, i = scores(w, ids, first, second, length)
            previous, induction = previous + p / count, induction + i / count
            t = slice(second, second + length - 1)  # predicts ids[second + 1 .. second + L - 1]
            loss += float(torch.nn.functional.cross_entropy(logits[t], ids[1:][t])) / count
    return previous, induction, loss


def train():
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED)
    probes = torch.Generator().manual_seed(SEED + 2)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    log = []
    start = time.time()
    for step in range(STEPS):
        ids, mask = batch(g, BATCH)
        logits = model(ids[:, :-1])  # (B, n - 1, V): position t predicts ids[t + 1]
        loss = torch.nn.functional.cross_entropy(logits[mask], ids[:, 1:][mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == STEPS - 1:
            previous, induction, second = probe(model, probes, 16)
            p, i = float(previous[0].max()), float(induction[1].max())
            log.append((step, float(loss), second, p, i))
            print(f"step {step:4d}  loss {float(loss):.3f}  probe {second:.3f}  previous-token "
                  f"{p:.3f}  induction {i:.3f}  {time.time() - start:.0f} s", flush=True)
            if second < STOP_LOSS:
                break
    return model, log, time.time() - start


def save(model):
    os.makedirs(OUT, exist_ok=True)
    tensors = {}
    for k, v in model.p.items():
        k = k.replace("__", ".")
        a = v.detach().numpy().astype(np.float32)
        if k.endswith(".weight") and any(c in k for c in ("c_attn", "c_proj", "c_fc")):
            a = np.ascontiguousarray(a.T)  # Conv1D: stored (in, out)
        tensors[k] = a
    safetensors_numpy.write(os.path.join(OUT, "model.safetensors"), tensors)
    cfg = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
           "attn_pdrop": 0.0, "bos_token_id": EOT, "embd_pdrop": 0.0, "eos_token_id": EOT,
           "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
           "n_ctx": POSITIONS, "n_embd": D, "n_head": HEADS, "n_inner": None, "n_layer": LAYERS,
           "n_positions": POSITIONS, "resid_pdrop": 0.0, "scale_attn_weights": True,
           "torch_dtype": "float32", "vocab_size": VOCAB}
    with open(os.path.join(OUT, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    # GPT-2's byte-level BPE files with no merges: every character is its own token
    vocab = {c: i for i, c in enumerate(CHARS)}
    vocab["\u0120"] = SPACE  # "Ġ", the byte-level spelling of a space
    vocab["<|endoftext|>"] = EOT
    with open(os.path.join(OUT, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(OUT, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n")
    return cfg


def find_heads(cfg):
    """Reloads the saved file and runs hf_reference.gpt2 on held-out sequences (seed SEED + 1).
    Returns the mean head scores (see scores) and the share of the second copy's tokens after its
    first that the model predicts (argmax)."""
    tensors, _ = safetensors_numpy.read(os.path.join(OUT, "model.safetensors"))
    W = {k: torch.from_numpy(v) for k, v in tensors.items()}
    g = torch.Generator().manual_seed(SEED + 1)
    previous, induction = 0, 0
    correct, total = 0, 0
    trials = 20
    for _ in range(trials):
        ids, first, second, length, _ = example(g)
        out = hf_reference.gpt2(cfg, W, ids)
        p, i = scores(out["weights"], ids, first, second, length)
        previous, induction = previous + p / trials, induction + i / trials
        predicted = out["logits"][second:second + length - 1].argmax(-1)
        correct += int((predicted == ids[second + 1:second + length].numpy()).sum())
        total += length - 1
    return previous, induction, correct / total


def main():
    torch.set_num_threads(1)
    model, log, seconds = train()
    cfg = save(model)
    prev, induction, accuracy = find_heads(cfg)
    p_head = int(prev[0].argmax())
    i_head = int(induction[1].argmax())
    print("previous-token score per head, layer 0:", np.round(prev[0], 3))
    print("induction score per head, layer 1:", np.round(induction[1], 3))
    print(f"second-copy next-token accuracy {accuracy:.3f}")
    ok = prev[0, p_head] > 0.5 and induction[1, i_head] > 0.5
    write_note(log, seconds, prev, induction, accuracy, p_head, i_head)
    if not ok:
        print("no clear previous-token and induction heads: not saved as a good model")
        return 1
    return 0


def write_note(log, seconds, prev, induction, accuracy, p_head, i_head):
    rows = "\n".join(f"| {s} | {a:.3f} | {b:.3f} | {p:.3f} | {i:.3f} |" for s, a, b, p, i in log)
    fmt = lambda a: ", ".join(f"{v:.3f}" for v in a)
    verdict = lambda score, name, kind: (f"**{name}** is the {kind} head." if score > 0.5 else
                                         f"No {kind} head.")
    text = f"""# induction/: a tiny GPT-2 trained to continue a repeated segment

A Hugging Face `gpt2` folder (2 layers, {HEADS} heads of {D // HEADS}, width {D}, {POSITIONS}
positions, vocabulary of {VOCAB}: the letters `a`-`z` (ids 0-25) and `A`-`Z` (26-51), `Ġ` ({SPACE}, a
space) and `<|endoftext|>` ({EOT})). `vocab.json` with an empty `merges.txt` makes every letter its
own token. F32 weights, Conv1D weights stored (in, out), tied head.

Made by `train_induction.py` (`/usr/bin/python3 tests/data/models/train_induction.py`; PyTorch
{torch.__version__}, one thread, seed {SEED}; its docstring gives the task: `<|endoftext|>`, capitals
in blocks ABAB, a segment of {SHORTEST}-{LONGEST} distinct lower-case letters, capitals, the segment
again, at a distance that changes from sequence to sequence). `wpe` starts at 0.03 x the
sinusoidal table, the other weights at N(0, 0.02), biases at 0, norm weights at 1; the MLP weights
start at 0 and stay 0: an attention-only model in GPT-2's layout. Adam, learning rate {LR},
batches of {BATCH}, stopped at step {log[-1][0]} (at most {STEPS}; earlier once the second copy's
loss on 16 fresh sequences is below {STOP_LOSS}). It took {seconds:.0f} s on a shared, loaded 2-core
machine. Running the script again writes the same bytes (sha256 of `model.safetensors` below).

Every 100 steps: the batch's loss, the second copy's loss on 16 fresh sequences (ln 26 =
{math.log(26):.2f} for a guess among the lower-case letters), and the best head scores on them
(defined below):

| step | loss | second copy | previous-token, layer 0 | induction, layer 1 |
|---|---|---|---|---|
{rows}

The phase change is the drop in the middle: both scores rise together as the second copy's loss
falls. The reloaded checkpoint, run by `hf_reference.gpt2` on 20 held-out sequences (seed
{SEED + 1}), predicts {100 * accuracy:.1f}% of the second copy's tokens after its first.

Head scores on those sequences (mean attention weights; a head is called found above 0.5):
- previous-token score, mean over queries i >= 1 of w[i, i-1], layer 0 heads: {fmt(prev[0])}.
  {verdict(prev[0, p_head], f"Layer 0 head {p_head}", "previous-token")}
- induction score, mean over the second copy's queries i (but its last) of w[i, i - d + 1], d the
  distance between the copies (the token after the current token's earlier occurrence), layer 1
  heads: {fmt(induction[1])}. {verdict(induction[1, i_head], f"Layer 1 head {i_head}", "induction")}
- for comparison, layer 1's previous-token scores: {fmt(prev[1])}; layer 0's induction
  scores: {fmt(induction[0])}.

sha256 of `model.safetensors`: {hashlib.sha256(open(os.path.join(OUT, "model.safetensors"), "rb").read()).hexdigest()}

Try: `attn attend --model tests/data/models/induction "<|endoftext|>XKXKqmwhzrtDLDLqmwhzrt"`.
"""
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
