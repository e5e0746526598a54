"""The forward passes of seven Hugging Face model families in plain PyTorch, written from the
published definitions (transformers' modeling_gpt2, modeling_bert, modeling_llama,
modeling_mistral, modeling_qwen2, modeling_bloom, modeling_t5: the eager attention path with
output_attentions=True), so that reference values can be made without transformers.

Each forward takes the config (dict, as config.json), the weights (dict name -> torch tensor,
names without the checkpoint's prefix, already of the compute dtype) and the token ids, and
returns a dict of numpy arrays:
  scores     (layers, heads, n, n)   what the model adds up before its mask: the scaled q.k plus
                                     the position bias (T5: q.k + bias, unscaled; BLOOM: Hugging
                                     Face's alibi m_h * j, j the key position)
  weights    (layers, heads, n, n)   the attention probabilities (masked entries exactly 0)
  context    (layers, heads, n, hd)  weights @ v of each query head (before the output projection)
  hidden     (layers + 1, n, d)      the residual stream: [0] what the first block receives, then
                                     after each block (before the final norm)
  positions  the scheme's contribution: learned rows (n, d); RoPE angles (n, hd/2); the ALiBi
             bias m_h * j (heads, n, n); the T5 bias (heads, n, n)
  logits     (n, vocab) for causal LMs (final norm, then the LM head or the tied embedding)
  lens       (layers, n, vocab) for causal LMs: softmax of that head (the final norm recomputed)
             on each block's output, the logit lens
  value_norms (layers, heads, n, n), value_weights (layers, n, n), value_rollout (n, n): the
             attention weighed by what the values carry (Kobayashi et al. 2020; _Record.value)
Run with /usr/bin/python3 (Debian's PyTorch 1.13). Nothing here trains or loads transformers.
"""
import math

import torch

__all__ = ["FORWARDS", "rope_inv_freq", "alibi_slopes", "t5_buckets"]


def _linear(x, w, b=None):
    """nn.Linear: x (n, in) @ w(out, in)^T + b."""
    y = x @ w.t()
    return y + b if b is not None else y


def _conv1d(x, w, b):
    """GPT-2's Conv1D: x (n, in) @ w (in, out) + b."""
    return x @ w + b


def _layer_norm(x, w, b, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def _rms_norm(x, w, eps):
    """LlamaRMSNorm / T5LayerNorm: x / sqrt(mean(x^2) + eps) * w (no mean, no bias)."""
    variance = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(variance + eps))


def _gelu_new(x):
    """GPT-2's and T5's gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def _bloom_gelu(x):
    """BLOOM's bloom_gelu_forward, with its rounded constant 0.79788456."""
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


def _attend(q, k, v, scale, bias, mask):
    """q (H, n, hd), k and v (H, n, hd) (already repeated for grouped K/V).
    scores = q k^T * scale (+ bias); weights = softmax over the unmasked keys (mask True = hidden)."""
    scores = (q @ k.transpose(-1, -2)) * scale if scale != 1.0 else q @ k.transpose(-1, -2)
    if bias is not None:
        scores = scores + bias
    masked = scores.masked_fill(mask, float("-inf")) if mask is not None else scores
    weights = torch.softmax(masked, dim=-1)
    return scores, weights, weights @ v


def _causal(n, window=None):
    """True where key j is hidden from query i: j > i, or (with a window W) i - j >= W."""
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    mask = j > i
    if window is not None:
        mask = mask | (j <= i - window)
    return mask


class _Record:
    def __init__(self):
        self.scores, self.weights, self.context, self.hidden = [], [], [], []
        self.value_norms, self.value_weights = [], []
        self.head = None  # the final norm and the unembedding, (m, d) -> (m, vocab)

    def value(self, w, v, wo):
        """w (H, n, n) weights, v (H, n, hd) each query head's values (K/V repeated), wo
        (H hd, d) the output projection as x @ wo. f_h(x_j) = v_h[j] wo[h hd:(h+1) hd] (H, n, d);
        value_norms[h, i, j] = w[h, i, j] ||f_h(x_j)||; value_weights[i, j] =
        ||sum_h w[h, i, j] f_h(x_j)||, rows divided by their sum."""
        H, n, hd = v.shape
        f = torch.einsum("hjc,hcd->hjd", v, wo.reshape(H, hd, -1))
        self.value_norms.append(w * f.norm(dim=-1)[:, None, :])
        s = torch.einsum("hij,hjd->ijd", w, f).norm(dim=-1)
        self.value_weights.append(s / s.sum(-1, keepdim=True))

    def layer(self, scores, weights, context):
        self.scores.append(scores)
        self.weights.append(weights)
        self.context.append(context)

    def result(self, positions, logits=None):
        out = {
            "scores": torch.stack(self.scores).numpy(),
            "weights": torch.stack(self.weights).numpy(),
            "context": torch.stack(self.context).numpy(),
            "hidden": torch.stack(self.hidden).numpy(),
            "positions": positions.numpy(),
        }
        if logits is not None:
            out["logits"] = logits.numpy()
        if self.head is not None:
            out["lens"] = torch.stack([torch.softmax(self.head(h), -1) for h in self.hidden[1:]]).numpy()
        if self.value_weights:
            out["value_norms"] = torch.stack(self.value_norms).numpy()
            out["value_weights"] = torch.stack(self.value_weights).numpy()
            r = torch.eye(self.value_weights[0].shape[0], dtype=self.value_weights[0].dtype)
            for vw in self.value_weights:  # rollout: A = rownorm(0.5 vw + 0.5 I), R = A R
                a = 0.5 * vw + 0.5 * torch.eye(vw.shape[0], dtype=vw.dtype)
                r = (a / a.sum(-1, keepdim=True)) @ r
            out["value_rollout"] = r.numpy()
        return out


def _heads(x, heads, hd):
    """(n, heads * hd) -> (heads, n, hd)."""
    return x.view(x.shape[0], heads, hd).transpose(0, 1)


def _merge(x):
    """(heads, n, hd) -> (n, heads * hd)."""
    return x.transpose(0, 1).reshape(x.shape[1], -1)


# ---------------------------------------------------------------------------------------------
def gpt2(cfg, W, ids):
    d, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    hd = d // H
    eps = cfg["layer_norm_epsilon"]
    n = len(ids)
    positions = W["wpe.weight"][:n]
    x = W["wte.weight"][ids] + positions
    rec = _Record()
    rec.hidden.append(x)
    mask = _causal(n)
    for l in range(L):
        p = f"h.{l}."
        h = _layer_norm(x, W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        qkv = _conv1d(h, W[p + "attn.c_attn.weight"], W[p + "attn.c_attn.bias"])
        q, k, v = (_heads(t, H, hd) for t in qkv.split(d, dim=-1))
        s, w, c = _attend(q, k, v, 1.0 / math.sqrt(hd), None, mask)
        rec.layer(s, w, c)
        rec.value(w, v, W[p + "attn.c_proj.weight"])
        x = x + _conv1d(_merge(c), W[p + "attn.c_proj.weight"], W[p + "attn.c_proj.bias"])
        h = _layer_norm(x, W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
        h = _gelu_new(_conv1d(h, W[p + "mlp.c_fc.weight"], W[p + "mlp.c_fc.bias"]))
        x = x + _conv1d(h, W[p + "mlp.c_proj.weight"], W[p + "mlp.c_proj.bias"])
        rec.hidden.append(x)
    rec.head = lambda y: _linear(_layer_norm(y, W["ln_f.weight"], W["ln_f.bias"], eps), W["wte.weight"])
    logits = rec.head(x)
    return rec.result(positions, logits)


# ---------------------------------------------------------------------------------------------
def bert(cfg, W, ids):
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    hd = d // H
    eps = cfg["layer_norm_eps"]
    n = len(ids)
    positions = W["embeddings.position_embeddings.weight"][:n]
    x = (W["embeddings.word_embeddings.weight"][ids] + W["embeddings.token_type_embeddings.weight"][0]
         + positions)
    x = _layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    rec = _Record()
    rec.hidden.append(x)
    for l in range(L):
        p = f"encoder.layer.{l}."
        q, k, v = (_heads(_linear(x, W[p + f"attention.self.{t}.weight"],
                                  W[p + f"attention.self.{t}.bias"]), H, hd)
                   for t in ("query", "key", "value"))
        s, w, c = _attend(q, k, v, 1.0 / math.sqrt(hd), None, None)
        rec.layer(s, w, c)
        rec.value(w, v, W[p + "attention.output.dense.weight"].t())
        a = _linear(_merge(c), W[p + "attention.output.dense.weight"],
                    W[p + "attention.output.dense.bias"])
        x = _layer_norm(a + x, W[p + "attention.output.LayerNorm.weight"],
                        W[p + "attention.output.LayerNorm.bias"], eps)
        h = _linear(x, W[p + "intermediate.dense.weight"], W[p + "intermediate.dense.bias"])
        h = torch.nn.functional.gelu(h)  # erf GELU ("gelu")
        h = _linear(h, W[p + "output.dense.weight"], W[p + "output.dense.bias"])
        x = _layer_norm(h + x, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
        rec.hidden.append(x)
    if "cls.predictions.transform.dense.weight" in W:  # BertForMaskedLM's head
        decoder = W.get("cls.predictions.decoder.weight", W["embeddings.word_embeddings.weight"])
        bias = W.get("cls.predictions.bias", W.get("cls.predictions.decoder.bias"))

        def mlm(y):
            y = torch.nn.functional.gelu(_linear(y, W["cls.predictions.transform.dense.weight"],
                                                 W["cls.predictions.transform.dense.bias"]))
            y = _layer_norm(y, W["cls.predictions.transform.LayerNorm.weight"],
                            W["cls.predictions.transform.LayerNorm.bias"], eps)
            return _linear(y, decoder, bias)
        rec.head = mlm
    return rec.result(positions)


# ---------------------------------------------------------------------------------------------
def rope_inv_freq(cfg, head_dim, dtype):
    """inv_freq (head_dim/2) after rope_scaling, as modeling_rope_utils computes it (in dtype:
    float32 is Hugging Face's own arithmetic)."""
    base = float(cfg.get("rope_theta", 10000.0))
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).to(dtype) / head_dim))
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "linear":
        inv_freq = inv_freq / scaling["factor"]
    elif kind == "llama3":
        factor = scaling["factor"]
        low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        low_wavelen, high_wavelen = old / low, old / high
        wavelen = 2 * math.pi / inv_freq
        inv_llama = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * inv_llama / factor + smooth * inv_llama
        medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
        inv_freq = torch.where(medium, smoothed, inv_llama)
    elif kind != "default":
        raise ValueError("rope_scaling type not made here: " + kind)
    return inv_freq


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def llama(cfg, W, ids):
    """Llama, Mistral and Qwen2: RMSNorm, RoPE (split halves), grouped K/V, SwiGLU; Mistral's
    sliding window; Qwen2's q/k/v biases (present in W or not)."""
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    KV = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or d // H
    eps = cfg["rms_norm_eps"]
    window = cfg.get("sliding_window") if cfg["model_type"] == "mistral" else None
    if cfg["model_type"] == "qwen2" and cfg.get("use_sliding_window"):
        raise ValueError("Qwen2 sliding window not made here")
    n = len(ids)
    dtype = W["embed_tokens.weight"].dtype
    inv_freq = rope_inv_freq(cfg, hd, dtype)
    angles = torch.arange(n, dtype=dtype)[:, None] * inv_freq[None, :]  # (n, hd/2)
    emb = torch.cat((angles, angles), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    x = W["embed_tokens.weight"][ids]
    rec = _Record()
    rec.hidden.append(x)
    mask = _causal(n, window)
    for l in range(L):
        p = f"layers.{l}."
        h = _rms_norm(x, W[p + "input_layernorm.weight"], eps)
        q = _heads(_linear(h, W[p + "self_attn.q_proj.weight"], W.get(p + "self_attn.q_proj.bias")), H, hd)
        k = _heads(_linear(h, W[p + "self_attn.k_proj.weight"], W.get(p + "self_attn.k_proj.bias")), KV, hd)
        v = _heads(_linear(h, W[p + "self_attn.v_proj.weight"], W.get(p + "self_attn.v_proj.bias")), KV, hd)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        k = k.repeat_interleave(H // KV, dim=0)  # query head h uses K/V head h // (H / KV)
        v = v.repeat_interleave(H // KV, dim=0)
        s, w, c = _attend(q, k, v, 1.0 / math.sqrt(hd), None, mask)
        rec.layer(s, w, c)
        rec.value(w, v, W[p + "self_attn.o_proj.weight"].t())
        x = x + _linear(_merge(c), W[p + "self_attn.o_proj.weight"])
        h = _rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        gate = _linear(h, W[p + "mlp.gate_proj.weight"])
        up = _linear(h, W[p + "mlp.up_proj.weight"])
        x = x + _linear(torch.nn.functional.silu(gate) * up, W[p + "mlp.down_proj.weight"])
        rec.hidden.append(x)
    head = W["lm_head.weight"] if "lm_head.weight" in W else W["embed_tokens.weight"]
    rec.head = lambda y: _linear(_rms_norm(y, W["norm.weight"], eps), head)
    logits = rec.head(x)
    return rec.result(angles, logits)


# ---------------------------------------------------------------------------------------------
def alibi_slopes(heads, dtype):
    """build_alibi_tensor's slopes, computed as Hugging Face does (float32 powers)."""
    closest = 2 ** math.floor(math.log2(heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest) - 3))), dtype=torch.float32)
    slopes = torch.pow(base, torch.arange(1, 1 + closest, dtype=torch.int32))
    if closest != heads:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest) - 3))), dtype=torch.float32)
        remaining = min(closest, heads - closest)
        extra = torch.pow(extra_base, torch.arange(1, 1 + 2 * remaining, 2, dtype=torch.int32))
        slopes = torch.cat([slopes, extra])
    return slopes.to(dtype)


def bloom(cfg, W, ids):
    d = cfg.get("hidden_size", cfg.get("n_embed"))
    H = cfg.get("n_head", cfg.get("num_attention_heads"))
    L = cfg.get("n_layer", cfg.get("num_hidden_layers"))
    hd = d // H
    eps = cfg["layer_norm_epsilon"]
    n = len(ids)
    dtype = W["word_embeddings.weight"].dtype
    slopes = alibi_slopes(H, dtype)
    # alibi[h, i, j] = m_h * j for every query i (softmax ignores the per-row constant)
    alibi = (slopes[:, None, None] * torch.arange(n, dtype=dtype)[None, None, :]).expand(H, n, n)
    x = _layer_norm(W["word_embeddings.weight"][ids], W["word_embeddings_layernorm.weight"],
                    W["word_embeddings_layernorm.bias"], eps)
    rec = _Record()
    rec.hidden.append(x)
    mask = _causal(n)
    for l in range(L):
        p = f"h.{l}."
        h = _layer_norm(x, W[p + "input_layernorm.weight"], W[p + "input_layernorm.bias"], eps)
        fused = _linear(h, W[p + "self_attention.query_key_value.weight"],
                        W[p + "self_attention.query_key_value.bias"])
        fused = fused.view(n, H, 3, hd)  # per head: its q, then k, then v
        q, k, v = (fused[:, :, t, :].transpose(0, 1) for t in range(3))
        s, w, c = _attend(q, k, v, 1.0 / math.sqrt(hd), alibi, mask)
        rec.layer(s, w, c)
        rec.value(w, v, W[p + "self_attention.dense.weight"].t())
        x = x + _linear(_merge(c), W[p + "self_attention.dense.weight"],
                        W[p + "self_attention.dense.bias"])
        h = _layer_norm(x, W[p + "post_attention_layernorm.weight"],
                        W[p + "post_attention_layernorm.bias"], eps)
        h = _bloom_gelu(_linear(h, W[p + "mlp.dense_h_to_4h.weight"], W[p + "mlp.dense_h_to_4h.bias"]))
        x = x + _linear(h, W[p + "mlp.dense_4h_to_h.weight"], W[p + "mlp.dense_4h_to_h.bias"])
        rec.hidden.append(x)
    rec.head = lambda y: _linear(_layer_norm(y, W["ln_f.weight"], W["ln_f.bias"], eps),
                                 W["word_embeddings.weight"])
    logits = rec.head(x)
    return rec.result(alibi.contiguous(), logits)


# ---------------------------------------------------------------------------------------------
def t5_buckets(relative, num_buckets, max_distance):
    """T5Attention._relative_position_bucket, bidirectional (the encoder), of relative = j - i."""
    buckets = torch.zeros_like(relative)
    num_buckets //= 2
    buckets += (relative > 0).to(torch.long) * num_buckets
    relative = torch.abs(relative)
    max_exact = num_buckets // 2
    small = relative < max_exact
    large = max_exact + (torch.log(relative.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(small, relative, large)


def t5(cfg, W, ids):
    """The T5 encoder stack: RMS layer norm, no score scaling, layer 0's bias for every layer."""
    H, L, hd = cfg["num_heads"], cfg["num_layers"], cfg["d_kv"]
    eps = cfg["layer_norm_epsilon"]
    n = len(ids)
    embed = W.get("encoder.embed_tokens.weight", W["shared.weight"])
    relative = torch.arange(n)[None, :] - torch.arange(n)[:, None]  # j - i
    buckets = t5_buckets(relative, cfg["relative_attention_num_buckets"],
                         cfg["relative_attention_max_distance"])
    table = W["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]  # (B, H)
    bias = table[buckets].permute(2, 0, 1).contiguous()  # (H, n, n)
    x = embed[ids]
    rec = _Record()
    rec.hidden.append(x)
    gated = cfg["feed_forward_proj"].startswith("gated-")
    for l in range(L):
        p = f"encoder.block.{l}.layer."
        h = _rms_norm(x, W[p + "0.layer_norm.weight"], eps)
        q, k, v = (_heads(_linear(h, W[p + f"0.SelfAttention.{t}.weight"]), H, hd) for t in "qkv")
        s, w, c = _attend(q, k, v, 1.0, bias, None)
        rec.layer(s, w, c)
        rec.value(w, v, W[p + "0.SelfAttention.o.weight"].t())
        x = x + _linear(_merge(c), W[p + "0.SelfAttention.o.weight"])
        h = _rms_norm(x, W[p + "1.layer_norm.weight"], eps)
        if gated:  # gated-gelu: gelu_new(wi_0 h) * wi_1 h
            h = _gelu_new(_linear(h, W[p + "1.DenseReluDense.wi_0.weight"])) * _linear(
                h, W[p + "1.DenseReluDense.wi_1.weight"])
        else:
            h = torch.relu(_linear(h, W[p + "1.DenseReluDense.wi.weight"]))
        x = x + _linear(h, W[p + "1.DenseReluDense.wo.weight"])
        rec.hidden.append(x)
    return rec.result(bias)


FORWARDS = {"gpt2": gpt2, "bert": bert, "llama": llama, "mistral": llama, "qwen2": llama,
            "bloom": bloom, "t5": t5}
