#!/usr/bin/python3
"""Trains a tiny GPT-2-layout model (two attention layers) on repeated random token sequences,
the setting where a previous-token head (layer 0) and an induction head (layer 1) form (Olsson
et al. 2022, "In-context Learning and Induction Heads"), and saves it as a Hugging Face gpt2
folder: tests/data/models/induction/{config.json, model.safetensors, vocab.json, merges.txt,
README.md}.

Run with Debian's PyTorch, one thread: /usr/bin/python3 tests/data/models/train_induction.py
Task: <|endoftext|> s s, s a random string of L distinct letters (a-z), L from 8 to 16 drawn per
batch (so no absolute position tells where the copy starts). In the second copy the next token
is found by looking up the current token's earlier occurrence and copying what followed it (a
previous-token head in layer 0 writing each position's preceding token into it, and an induction
head in layer 1 matching the current token against that). Objective: next-token loss on the
last L targets (the second copy; the first copy is unpredictable and its uniform targets only
add noise); Adam, learning rate 1e-3. The MLPs start at zero and so stay zero (an
attention-only model in GPT-2's layout). What did not form within 2500-4000 steps here: heads
of 16 dimensions (width 64) over 62 letters and digits, and the loss on every position with
letters drawn with repeats (the model then predicts the copy by spreading its attention, 63%).
The saved checkpoint is reloaded from the file and run by hf_reference.gpt2 (the forward the
reference values use) on held-out sequences to find the heads; the script prints their scores
and exits 1 unless both are found.
"""
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
STEPS = 4000  # at most: training stops once the second copy's loss < STOP_LOSS
STOP_LOSS = 0.02
BATCH = 32
LR = 1e-3
D, HEADS, LAYERS, POSITIONS = 128, 4, 2, 64
SHORTEST, LONGEST = 8, 16
CHARS = "abcdefghijklmnopqrstuvwxyz"
SPACE, EOT = len(CHARS), len(CHARS) + 1  # ids: 0..25 the letters, 26 "Ġ" (a space), 27 <|endoftext|>
VOCAB = len(CHARS) + 2
OUT = os.path.join(HERE, "induction")


def batch(g, size):
    """(size, 1 + 2L) ids: <|endoftext|> s s, s a random string of L distinct letters, L drawn
    from SHORTEST..LONGEST once per batch (so no absolute position tells where the copy
    starts). Returns (ids, L)."""
    length = int(torch.randint(SHORTEST, LONGEST + 1, (1,), generator=g))
    s = torch.rand((size, len(CHARS)), generator=g).argsort(dim=1)[:, :length]
    return torch.cat([torch.full((size, 1), EOT), s, s], dim=1), length


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
        # wpe starts from 0.1 x the sinusoidal table (then learned): neighbouring positions
        # start alike, which makes a head that looks one token back easy to find
        i = torch.arange(POSITIONS, dtype=torch.float64)[:, None]
        angle = i / 10000 ** (torch.arange(0, D, 2, dtype=torch.float64) / D)
        table = torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(POSITIONS, D)
        self.p["wpe__weight"] = torch.nn.Parameter((0.1 * table).float())
        for name in [f"h.{l}.ln_{k}" for l in range(LAYERS) for k in (1, 2)] + ["ln_f"]:
            self.p[name.replace(".", "__") + "__weight"] = torch.nn.Parameter(torch.ones(D))
            self.p[name.replace(".", "__") + "__bias"] = torch.nn.Parameter(torch.zeros(D))

    def forward(self, ids):
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
            c = (w @ v).transpose(1, 2).reshape(b, n, D)
            x = x + lin(c, f"h.{l}.attn.c_proj")
            h = lin(ln(x, f"h.{l}.ln_2"), f"h.{l}.mlp.c_fc")
            h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
            x = x + lin(h, f"h.{l}.mlp.c_proj")
        return ln(x, "ln_f") @ W["wte.weight"].t()


def train():
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    log = []
    start = time.time()
    for step in range(STEPS):
        ids, length = batch(g, BATCH)
        logits = model(ids[:, :-1])  # (B, 2L, V): position t predicts ids[t + 1]
        # the last L targets: the second copy, the only tokens predictable from the context
        loss = torch.nn.functional.cross_entropy(logits[:, -length:].reshape(-1, VOCAB),
                                                 ids[:, -length:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == STEPS - 1:
            with torch.no_grad():  # the second copy's tokens after its first: predictable by induction
                probe, probe_length = batch(g, 64)
                second = torch.nn.functional.cross_entropy(
                    model(probe[:, :-1])[:, -(probe_length - 1):].reshape(-1, VOCAB),
                    probe[:, -(probe_length - 1):].reshape(-1))
            log.append((step, float(loss), float(second)))
            print(f"step {step:4d}  loss {float(loss):.3f}  on the second copy {float(second):.3f}  "
                  f"{time.time() - start:.0f} s", flush=True)
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
    """Reloads the saved file and runs hf_reference.gpt2 on held-out sequences <|endoftext|> s s.
    Per head: previous = mean over queries i >= 1 of w[i, i-1] (layer 0); induction = mean over
    the second copy's queries i of w[i, i - L + 1], the token after the current token's earlier
    occurrence (layer 1). Returns the scores averaged over the sequences."""
    tensors, _ = safetensors_numpy.read(os.path.join(OUT, "model.safetensors"))
    W = {k: torch.from_numpy(v) for k, v in tensors.items()}
    g = torch.Generator().manual_seed(SEED + 1)
    prev = np.zeros((LAYERS, HEADS))
    induction = np.zeros((LAYERS, HEADS))
    correct, total = 0, 0
    trials = 20
    for _ in range(trials):
        ids, length = batch(g, 1)
        ids = ids[0]
        n = len(ids)
        copy = n - length  # where the second copy starts
        out = hf_reference.gpt2(cfg, W, ids)
        w = out["weights"]  # (layers, heads, n, n)
        prev += np.stack([np.diagonal(w[l], -1, axis1=1, axis2=2).mean(-1) for l in range(LAYERS)])
        queries = np.arange(copy, n)  # the second copy; its first occurrence is L earlier
        keys = queries - length + 1  # the token after that first occurrence
        induction += w[:, :, queries, keys].mean(-1)
        predicted = out["logits"][copy:-1].argmax(-1)
        correct += int((predicted == ids[copy + 1:].numpy()).sum())
        total += n - 1 - copy
    return prev / trials, induction / trials, correct / total


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
    rows = "\n".join(f"| {s} | {a:.3f} | {b:.3f} |" for s, a, b in log)
    fmt = lambda a: ", ".join(f"{v:.3f}" for v in a)
    verdict = lambda score, name, kind: (f"**{name}** is the {kind} head." if score > 0.5 else
                                         f"No {kind} head: the model predicts the copy without one.")
    text = f"""# induction/: a tiny GPT-2 trained on repeated random sequences

A Hugging Face `gpt2` folder (2 layers, 4 heads of {D // HEADS}, width {D}, {POSITIONS} positions,
vocabulary of {VOCAB}: the letters `a`-`z` (ids 0-{len(CHARS) - 1}), `Ġ` ({SPACE}, a space) and
`<|endoftext|>` ({EOT})). `vocab.json` with an empty `merges.txt` makes every letter its own
token. F32 weights, Conv1D weights stored (in, out), tied head.

Made by `train_induction.py` (`/usr/bin/python3 tests/data/models/train_induction.py`; PyTorch
{torch.__version__}, one thread, seed {SEED}; its docstring gives the task). `wpe` starts at
0.1 x the sinusoidal table, the other weights at N(0, 0.02), biases at 0, norm weights at 1; the
MLP weights start at 0 and stay 0 (their gradients are 0): an attention-only model in GPT-2's
layout. Adam, learning rate {LR}, batches of {BATCH}, stopped at step {log[-1][0]} (at most
{STEPS}; earlier once the loss on the second copy is below {STOP_LOSS}). It took {seconds:.0f} s
on a shared, heavily loaded 2-core machine.

| step | loss (nats; ln {len(CHARS)} = {math.log(len(CHARS)):.3f} by chance) | on the second copy |
|---|---|---|
{rows}

The second copy is predictable only by induction: the reloaded checkpoint, run by
`hf_reference.gpt2`, predicts {100 * accuracy:.1f}% of its tokens (20 held-out sequences, seed
{SEED + 1}; chance is {100 / len(CHARS):.1f}%).

Head scores on those sequences (mean attention weights; a head is called found above 0.5):
- previous-token score, mean over queries i >= 1 of w[i, i-1], layer 0 heads 0-3:
  {fmt(prev[0])}. {verdict(prev[0, p_head], f"Layer 0 head {p_head}", "previous-token")}
- induction score, mean over the second copy's queries i of w[i, i - L + 1] (the token after
  the current token's first occurrence), layer 1 heads 0-3: {fmt(induction[1])}.
  {verdict(induction[1, i_head], f"Layer 1 head {i_head}", "induction")}
- for comparison, layer 1's previous-token scores: {fmt(prev[1])}; layer 0's induction
  scores: {fmt(induction[0])}.

Try: `attn attend --model tests/data/models/induction "<|endoftext|>kdqzmwhbnvxrkdqzmwhbnvxr"`.
"""
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
