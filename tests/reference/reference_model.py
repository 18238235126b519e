#!/usr/bin/python3
"""Independent PyTorch implementation of heed's encoder-decoder (docs/attention.md).

Run with Debian's interpreter, /usr/bin/python3, which has python3-torch and python3-numpy.

  reference_model.py MODEL BATCH HEED_RESULT [--label-smoothing E] [--loss-rtol 1e-5]
                     [--grad-rtol 1e-4] [--grad-floor 1e-6]
  reference_model.py greedy MODEL SRC_TOKENS OUT     (greedy translations, for agreement)
  reference_model.py cases LIST       (many cases in one process: lines DIR, SMOOTHING, NAME)

MODEL is a heed model file (safetensors), BATCH a safetensors file with the int32 tensors
src [N,S], src_len [N], tgt_in [N,T], tgt_out [N,T], tgt_len [N], and HEED_RESULT a safetensors
file with heed's 'loss' [1] and one 'grad/<parameter name>' per parameter. The script rebuilds
the model from the config stored in MODEL's metadata, computes the loss and the gradients with
PyTorch autograd in float64, and compares. It prints one line per parameter and a summary line,
and exits 1 if any tolerance is exceeded.

The implementation deliberately uses PyTorch's own modules (packed bidirectional nn.LSTM/nn.GRU
for the encoder, nn.LSTMCell/nn.GRUCell for the decoder) so that it shares no code or layout
decisions with heed's oneDNN implementation.
"""
import argparse
import json
import math
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

DTYPES = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64,
          "BF16": np.uint16, "U8": np.uint8}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_len])
    meta = header.pop("__metadata__", {})
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        arr = np.frombuffer(data[base + begin:base + end], dtype=DTYPES[info["dtype"]])
        tensors[name] = arr.reshape(info["shape"]).copy()
    return tensors, meta


def sparsemax(e):
    """Martins & Astudillo 2016 over the last axis: max(e − τ, 0) with Σ = 1."""
    z, _ = torch.sort(e, dim=-1, descending=True)
    k = torch.arange(1, e.shape[-1] + 1, dtype=e.dtype)
    support = (1 + k * z > z.cumsum(-1)).to(e.dtype)
    tau = ((z * support).sum(-1, keepdim=True) - 1) / support.sum(-1, keepdim=True)
    return torch.clamp(e - tau, min=0)


def window_mask(centre, half_width, lengths, S):
    """[N, S] mask of the window [round(p) − D, round(p) + D] ∩ [0, len), the centre clamped into
    the sentence first (normalization.h window_span)."""
    p = torch.minimum(torch.clamp(centre.detach(), min=0), (lengths - 1).to(centre.dtype))
    middle = torch.floor(p + 0.5)
    pos = torch.arange(S, dtype=centre.dtype)[None, :]
    return ((pos >= middle[:, None] - half_width) & (pos <= middle[:, None] + half_width)
            & (pos < lengths[:, None]))


def context_of(a, keys):
    return torch.einsum("ns,nsk->nk", a, keys)


# Each mechanism: (model, q [N, Q], step, att) → context [N, C]; PRECOMPUTE: its key-side work,
# once per batch. A mechanism added to heed adds its entries here (docs/attention.md).
def _none(m, q, step, att):
    return q.new_zeros(q.shape[0], 0)


def _dot(m, q, step, att):
    e = torch.einsum("nk,nsk->ns", q, att["keys"])
    return context_of(m.normalize(e, att["mask"]), att["keys"])


def _scaled_dot(m, q, step, att):
    e = torch.einsum("nk,nsk->ns", q, att["keys"]) / math.sqrt(att["keys"].shape[-1])
    if m.option("learn-temperature", 0):
        # τ = exp(log_temperature) multiplies the scores.
        e = torch.exp(m.param("decoder/attention/log_temperature")[0]) * e
    return context_of(m.normalize(e, att["mask"]), att["keys"])


def _general(m, q, step, att):
    e = torch.einsum("nk,nsk->ns", q, att["pre"])
    return context_of(m.normalize(e, att["mask"]), att["keys"])


def _additive(m, q, step, att):
    wq = q @ m.param("decoder/attention/w_query").T
    e = torch.tanh(att["pre"] + wq[:, None, :]) @ m.param("decoder/attention/v")
    return context_of(m.normalize(e, att["mask"]), att["keys"])


def _coverage(m, q, step, att):
    """See et al. 2017: additive scores that also see cov = Σ of the earlier steps' weights, and
    the loss W·Σ_s min(a_s, cov_s) for the sentences whose target has a token at this step."""
    if step == 0:
        att["coverage"] = att["keys"].new_zeros(att["mask"].shape)
        att["aux"] = att["keys"].new_zeros(())
    cov = att["coverage"]
    hidden = torch.tanh(att["pre"] + (q @ m.param("decoder/attention/w_query").T)[:, None, :]
                        + cov[:, :, None] * m.param("decoder/attention/w_coverage"))
    a = m.normalize(hidden @ m.param("decoder/attention/v"), att["mask"])
    real = (step < att["tgt_len"]).to(a.dtype) if "tgt_len" in att else a.new_ones(a.shape[0])
    penalty = (torch.minimum(a, cov).sum(-1) * real).sum()
    att["aux"] = att["aux"] + m.option("coverage-loss") * penalty
    att["coverage"] = cov + a
    return context_of(a, att["keys"])


def _ff_pool(m, q, step, att):
    """Raffel & Ellis 2015: no query — e_s = tanh(w·h_s + b), the same pooled context at every
    step."""
    if "pooled" not in att:
        w, b = m.param("decoder/attention/w"), m.param("decoder/attention/b")
        e = torch.tanh(att["keys"] @ w + b)
        att["pooled"] = context_of(m.normalize(e, att["mask"]), att["keys"])
    return att["pooled"]


def _local_window(m, q, centre, att):
    """Luong et al. 2015 local attention around centre [N]: the general score q·W_a h_s over
    the window [round(p) − D, round(p) + D] (window_mask: the choice of window gets no
    gradient)."""
    S = att["keys"].shape[1]
    inside = window_mask(centre, m.option("window"), att["lengths"], S)
    e = torch.einsum("nk,nsk->ns", q, att["pre"])
    return m.normalize(e, inside)


def _local_m(m, q, step, att):
    # Monotonic: the window is centred on the target position itself.
    centre = torch.full((q.shape[0],), float(step), dtype=q.dtype)
    return context_of(_local_window(m, q, centre, att), att["keys"])


def _local_p(m, q, step, att):
    # Predictive: p = L·sigmoid(v_pᵀ tanh(W_p q)) with L each sentence's own length, and the
    # weights times a Gaussian of σ = D/2 around the real-valued p (not renormalised).
    z = torch.tanh(q @ m.param("decoder/attention/w_position").T) \
        @ m.param("decoder/attention/v_position")
    p = att["lengths"].to(q.dtype) * torch.sigmoid(z)
    sigma = m.option("window") / 2
    s = torch.arange(att["keys"].shape[1], dtype=q.dtype)[None, :]
    gauss = torch.exp(-(s - p[:, None]) ** 2 / (2 * sigma ** 2))
    return context_of(_local_window(m, q, p, att) * gauss, att["keys"])


def _multi_head(m, q, step, att):
    """Vaswani et al. 2017: H heads of scaled (--scale-scores 1) or unscaled dot products between
    projections, each head's weights normalised on its own, contexts concatenated and projected
    by w_out."""
    keys, values = att["pre"]  # [N, S, H, d]
    n, _, heads, d = keys.shape
    qh = (q @ m.param("decoder/attention/w_query").T).reshape(n, heads, d)
    e = torch.einsum("nhd,nshd->nhs", qh, keys)
    if m.option("scale-scores", 1):
        e = e / math.sqrt(d)
    a = m.normalize(e, att["mask"][:, None, :])
    c = torch.einsum("nhs,nshd->nhd", a, values).reshape(n, heads * d)
    return c @ m.param("decoder/attention/w_out").T


def _linear(m, q, step, att):
    """Katharopoulos et al. 2020 with φ = elu + 1 and the keys as values:
    c = Σ_s φ(q)·φ(h_s) h_s / Σ_s φ(q)·φ(h_s) over the sentence's positions."""
    keys = att["keys"]
    phi_k = (F.elu(keys) + 1) * att["mask"][:, :, None]
    kernel = torch.einsum("nk,nsk->ns", F.elu(q) + 1, phi_k)
    return torch.einsum("ns,nsk->nk", kernel, keys) / kernel.sum(-1, keepdim=True)


def _multi_head_pre(m, keys):
    heads = int(m.option("heads"))
    n, S, _ = keys.shape
    k = keys @ m.param("decoder/attention/w_key").T
    v = keys @ m.param("decoder/attention/w_value").T
    return k.reshape(n, S, heads, -1), v.reshape(n, S, heads, -1)


MECHANISMS = {"none": _none, "dot": _dot, "scaled-dot": _scaled_dot, "general": _general,
              "additive": _additive, "mlp": _additive, "coverage": _coverage,
              "ff-pool": _ff_pool, "local-m": _local_m, "local-p": _local_p,
              "multi-head": _multi_head, "linear": _linear}
PRECOMPUTE = {
    "general": lambda m, keys: keys @ m.param("decoder/attention/weight").T,
    "local-m": lambda m, keys: keys @ m.param("decoder/attention/weight").T,
    "local-p": lambda m, keys: keys @ m.param("decoder/attention/weight").T,
    "additive": lambda m, keys: (keys @ m.param("decoder/attention/w_key").T
                                 + m.param("decoder/attention/bias")),
    "multi-head": _multi_head_pre,
}
PRECOMPUTE["coverage"] = PRECOMPUTE["additive"]  # U h_s + b, the same parameter names


def _location(m, q, step, att):
    # Luong location: a = softmax(W_a q) over the first S of W_a's P positions; no keys.
    S = att["keys"].shape[1]
    if int(att["lengths"].max()) > m.option("max-positions"):
        raise SystemExit("source longer than --max-positions")
    e = q @ m.param("decoder/attention/weight")[:S].T
    return context_of(m.normalize(e, att["mask"]), att["keys"])


def _cosine(m, q, step, att):
    # AllenNLP CosineAttention: each vector divided by (its L2 norm + 1e-13).
    keys = att["keys"]
    q_unit = q / (torch.linalg.vector_norm(q, dim=-1, keepdim=True) + 1e-13)
    k_unit = keys / (torch.linalg.vector_norm(keys, dim=-1, keepdim=True) + 1e-13)
    e = (k_unit * q_unit[:, None, :]).sum(-1)
    return context_of(m.normalize(e, att["mask"]), keys)


def _scaled_general(m, q, step, att):
    # TF LuongAttention(scale=True): g · qᵀ W_a h_s.
    e = m.param("decoder/attention/scale")[0] * torch.bmm(att["pre"], q[:, :, None])[:, :, 0]
    return context_of(m.normalize(e, att["mask"]), att["keys"])


def _normed_additive(m, q, step, att):
    # TF BahdanauAttention(normalize=True): g · v/‖v‖ in place of v.
    v = m.param("decoder/attention/v")
    v_normed = m.param("decoder/attention/scale") * v / torch.sqrt((v * v).sum())
    hidden = torch.tanh(att["pre"] + (q @ m.param("decoder/attention/w_query").T)[:, None, :])
    e = torch.einsum("nsa,a->ns", hidden, v_normed)
    return context_of(m.normalize(e, att["mask"]), att["keys"])


MECHANISMS.update({"location": _location, "cosine": _cosine, "scaled-general": _scaled_general,
                   "normed-additive": _normed_additive})
PRECOMPUTE.update({
    "scaled-general": lambda m, keys: torch.einsum("qk,nsk->nsq", m.param("decoder/attention/weight"),
                                                   keys),
    "normed-additive": lambda m, keys: (torch.einsum("ak,nsk->nsa", m.param("decoder/attention/w_key"),
                                                     keys) + m.param("decoder/attention/bias")),
})


class Model(torch.nn.Module):
    def __init__(self, cfg, weights):
        super().__init__()
        self.cfg = cfg
        self.p = torch.nn.ParameterDict()
        for name, value in weights.items():
            self.p[name.replace("/", "__")] = torch.nn.Parameter(
                torch.tensor(value, dtype=torch.float64))
        self.cell = cfg["cell"]
        H = cfg["hidden"]
        self.bi = cfg["bidirectional"]
        self.enc_layers = cfg["encoder_layers"]
        self.dec_layers = cfg["decoder_layers"]
        hd = H // 2 if self.bi else H
        rnn_cls = torch.nn.LSTM if self.cell == "lstm" else torch.nn.GRU
        # One module per encoder layer, both directions, packed: exact for variable lengths.
        self.enc = torch.nn.ModuleList()
        for layer in range(self.enc_layers):
            in_size = cfg["embed"] if layer == 0 else H
            rnn = rnn_cls(in_size, hd, batch_first=True, bidirectional=self.bi).double()
            dirs = [("fwd", "")] + ([("bwd", "_reverse")] if self.bi else [])
            for d, suffix in dirs:
                for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    setattr(rnn, f"{kind}_l0{suffix}",
                            self.param(f"encoder/rnn_{layer}/{d}/{kind}"))
            self.enc.append(rnn)
        cell_cls = torch.nn.LSTMCell if self.cell == "lstm" else torch.nn.GRUCell
        self.dec = torch.nn.ModuleList()
        for layer in range(self.dec_layers):
            w = self.param(f"decoder/rnn_{layer}/weight_ih")
            cell = cell_cls(w.shape[1], H).double()
            for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                setattr(cell, kind, self.param(f"decoder/rnn_{layer}/{kind}"))
            self.dec.append(cell)

    def param(self, name):
        return self.p[name.replace("/", "__")]

    def has(self, name):
        return name.replace("/", "__") in self.p

    def encode(self, src, src_len):
        x = F.embedding(src, self.param("encoder/embedding/weight"))
        finals = None
        for rnn in self.enc:
            packed = pack_padded_sequence(x, src_len, batch_first=True, enforce_sorted=False)
            out, state = rnn(packed)
            x, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
            h_n = state[0] if self.cell == "lstm" else state
            finals = torch.cat([h_n[0], h_n[1]], dim=-1) if self.bi else h_n[0]
        return x, finals  # [N,S,K], [N,K]

    def attention(self, q, step, att):
        """The context for queries q [N, Q] at target position step; att holds the batch's keys
        [N, S, K], their mask [N, S], lengths, the key-side precomputation and any state a
        mechanism keeps across steps (docs/attention.md)."""
        kind = self.cfg["attention"]
        if kind not in MECHANISMS:
            raise SystemExit(f"reference has no attention '{kind}'")
        return MECHANISMS[kind](self, q, step, att)

    def normalize(self, e, mask):
        """The configured normaliser over the positions mask allows; exactly 0 elsewhere."""
        e = e.masked_fill(~mask, -1e9)
        if self.cfg.get("attention_normalizer", "softmax") == "sparsemax":
            return sparsemax(e) * mask
        return torch.softmax(e, dim=-1)

    def option(self, name, default=None):
        """A mechanism option from the config; default for an option older files lack."""
        options = self.cfg.get("attention_options", {})
        if default is not None:
            return options.get(name, default)
        return options[name]

    def begin_attention(self, keys, src_len):
        S = keys.shape[1]
        att = {"keys": keys, "lengths": src_len,
               "mask": torch.arange(S)[None, :] < src_len[:, None]}
        kind = self.cfg["attention"]
        if kind in PRECOMPUTE:
            att["pre"] = PRECOMPUTE[kind](self, keys)
        return att

    def initial_state(self, finals, att, n):
        """The bridge (docs/attention.md "Bridges"): every decoder layer's initial hidden state;
        cell states 0."""
        H = self.cfg["hidden"]
        bridge = self.cfg["bridge"]
        keys, mask = att["keys"], att["mask"]
        states = []
        for layer in range(self.dec_layers):
            if bridge == "dense":
                w = self.param("bridge/weight")[layer * H:(layer + 1) * H]
                b = self.param("bridge/bias")[layer * H:(layer + 1) * H]
                h = torch.tanh(finals @ w.T + b)
            elif bridge == "zero":
                h = finals.new_zeros(n, H)
            elif bridge == "mean":
                h = (keys * mask[:, :, None]).sum(1) / att["lengths"][:, None]
            elif bridge == "last":
                h = finals
            elif bridge == "ff-pool":
                e = torch.tanh(keys @ self.param("bridge/pool/w") + self.param("bridge/pool/b"))
                a = torch.softmax(e.masked_fill(~mask, -1e9), dim=-1)
                h = torch.einsum("ns,nsk->nk", a, keys)
            else:
                raise SystemExit(f"reference has no bridge '{bridge}'")
            states.append((h, torch.zeros_like(h)) if self.cell == "lstm" else h)
        return states

    def step_rnn(self, x, states):
        new = []
        for layer, cell in enumerate(self.dec):
            s = cell(x, states[layer])
            new.append(s)
            x = s[0] if self.cell == "lstm" else s
        return x, new

    def decoder_step(self, emb_t, step, states, feed, att):
        """One decoder step (docs/attention.md): returns the output o_t, the new states and the
        input-feeding vector."""
        cfg = self.cfg
        if cfg["decoder"] == "luong":
            x = torch.cat([emb_t, feed], -1) if cfg["input_feeding"] else emb_t
            h, states = self.step_rnn(x, states)
            c = self.attention(h, step, att)
            o = torch.tanh(torch.cat([c, h], -1) @ self.param("decoder/attn_out/weight").T)
            return o, states, o
        if cfg["decoder"] == "concat":
            # The output layer reads [c_t; h_t] itself: no attentional layer, no feeding.
            h, states = self.step_rnn(emb_t, states)
            return torch.cat([self.attention(h, step, att), h], -1), states, feed
        top = states[-1][0] if self.cell == "lstm" else states[-1]
        c = self.attention(top, step, att)
        o, states = self.step_rnn(torch.cat([emb_t, c], -1), states)
        return o, states, feed

    def greedy(self, src, src_len, ratio=2.0, offset=10, min_length=0):
        """Greedy decoding as heed-translate --beam-size 1 does it: argmax each step, a sentence
        ends at </s> (id 3, not allowed before min_length tokens) or after ratio·len + offset
        tokens. Returns lists of ids."""
        keys, finals = self.encode(src, src_len)
        n, S = src.shape
        att = self.begin_attention(keys, src_len)
        states = self.initial_state(finals, att, n)
        feed = keys.new_zeros(n, self.cfg["hidden"])
        y = torch.full((n,), 2, dtype=torch.long)  # <s>
        limits = [max(1, int(ratio * int(l)) + offset) for l in src_len]
        out = [[] for _ in range(n)]
        done = [False] * n
        for step in range(max(limits)):
            emb = F.embedding(y, self.param("decoder/embedding/weight"))
            o, states, feed = self.decoder_step(emb, step, states, feed, att)
            logits = o @ self.param("decoder/output/weight").T + self.param("decoder/output/bias")
            if step < min_length:
                logits[:, 3] = float("-inf")
            y = logits.argmax(-1)
            for i in range(n):
                if done[i]:
                    continue
                if int(y[i]) == 3:
                    done[i] = True
                else:
                    out[i].append(int(y[i]))
                    if len(out[i]) >= limits[i]:
                        done[i] = True
            if all(done):
                break
        return out

    def loss(self, src, src_len, tgt_in, tgt_out, tgt_len, label_smoothing):
        cfg = self.cfg
        keys, finals = self.encode(src, src_len)
        n, S = src.shape
        att = self.begin_attention(keys, src_len)
        att["tgt_len"] = tgt_len  # later steps are padding: no att["aux"] (coverage)
        states = self.initial_state(finals, att, n)
        emb = F.embedding(tgt_in, self.param("decoder/embedding/weight"))
        H = cfg["hidden"]
        feed = emb.new_zeros(n, H)
        outs = []
        for t in range(tgt_in.shape[1]):
            o, states, feed = self.decoder_step(emb[:, t], t, states, feed, att)
            outs.append(o)
        o = torch.stack(outs, 1)
        logits = o @ self.param("decoder/output/weight").T + self.param("decoder/output/bias")
        tmask = torch.arange(tgt_in.shape[1])[None, :] < tgt_len[:, None]
        ce = F.cross_entropy(logits[tmask], tgt_out[tmask].long(),
                             label_smoothing=label_smoothing)
        # A mechanism's own loss term (coverage: att["aux"], summed over the steps of real target
        # tokens) joins the objective per target token.
        if "aux" in att:
            ce = ce + att["aux"] / tmask.sum()
        return ce


def vocab_of(meta, key):
    return [line.split("\t")[0] for line in meta[key].split("\n") if line]


def greedy_main(argv):
    """reference_model.py greedy MODEL SRC_TOKENS OUT: greedy translations of tokenized source
    lines (model tokens, space-separated), one output line each, in float64."""
    ap = argparse.ArgumentParser(prog="reference_model.py greedy")
    ap.add_argument("model")
    ap.add_argument("source")
    ap.add_argument("output")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--min-length", type=int, default=0)
    ap.add_argument("--max-length-ratio", type=float, default=2.0)
    ap.add_argument("--max-length-offset", type=int, default=10)
    args = ap.parse_args(argv)
    weights, meta = read_safetensors(args.model)
    cfg = json.loads(meta["config"])
    src_vocab = {t: i for i, t in enumerate(vocab_of(meta, "src_vocab"))}
    tgt_vocab = vocab_of(meta, "tgt_vocab")
    torch.set_grad_enabled(False)
    model = Model(cfg, weights)
    with open(args.source, encoding="utf-8") as f:
        lines = [line.split() for line in f]
    results = [""] * len(lines)
    order = sorted((i for i in range(len(lines)) if lines[i]), key=lambda i: -len(lines[i]))
    for b in range(0, len(order), args.batch):
        idx = order[b:b + args.batch]
        S = max(len(lines[i]) for i in idx)
        src = torch.zeros(len(idx), S, dtype=torch.long)
        for r, i in enumerate(idx):
            src[r, :len(lines[i])] = torch.tensor([src_vocab.get(t, 1) for t in lines[i]])
        src_len = torch.tensor([len(lines[i]) for i in idx])
        for r, ids in enumerate(model.greedy(src, src_len, args.max_length_ratio,
                                             args.max_length_offset, args.min_length)):
            results[idx[r]] = " ".join(tgt_vocab[t] for t in ids)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("".join(r + "\n" for r in results))
    return 0


def check_case(model_path, batch_path, result_path, label_smoothing, loss_rtol=1e-5,
               grad_rtol=1e-4, grad_floor=1e-6):
    """heed's loss and gradients of one dumped case against this model's: (passed, report lines)."""
    weights, meta = read_safetensors(model_path)
    cfg = json.loads(meta["config"])
    batch, _ = read_safetensors(batch_path)
    heed, _ = read_safetensors(result_path)
    torch.set_grad_enabled(True)
    model = Model(cfg, weights)
    b = {k: torch.tensor(v.astype(np.int64)) for k, v in batch.items()}
    loss = model.loss(b["src"], b["src_len"], b["tgt_in"], b["tgt_out"], b["tgt_len"],
                      label_smoothing)
    loss.backward()

    ok = True
    lines = []
    heed_loss = float(heed["loss"].reshape(-1)[0])
    rel = abs(heed_loss - loss.item()) / max(abs(loss.item()), 1e-12)
    ok &= rel <= loss_rtol
    lines.append(f"loss\theed={heed_loss:.8g}\ttorch={loss.item():.8g}\trel={rel:.2e}")
    worst = 0.0
    for name in weights:
        g_ref = model.param(name).grad
        g_ref = np.zeros(weights[name].shape) if g_ref is None else g_ref.numpy()
        g_heed = heed["grad/" + name].astype(np.float64)
        # The worst element's error relative to the tensor's largest gradient (with an absolute
        # floor for all-zero gradients). heed computes in float32 against float64 here, so an
        # element far below its tensor's scale carries float32 rounding of the larger terms it
        # was summed from; per-element ratios of such elements say nothing about correctness.
        scale = max(float(np.abs(g_ref).max()), grad_floor)
        err = float(np.abs(g_heed - g_ref).max()) / scale
        worst = max(worst, err)
        flag = "" if err <= grad_rtol else "\tFAIL"
        ok &= err <= grad_rtol
        lines.append(f"grad\t{name}\tmax_rel={err:.2e}{flag}")
    lines.append(f"summary\tloss_rel={rel:.2e}\tworst_grad_rel={worst:.2e}\t"
                 f"{'PASS' if ok else 'FAIL'}")
    return ok, lines


def cases_main(argv):
    """Every case of a list, in one process (importing torch once, not once a case): lines of
    DIR<TAB>LABEL_SMOOTHING<TAB>NAME[<TAB>GRAD_RTOL], each DIR holding heed_reference_case's three
    files (GRAD_RTOL: the gradients' tolerance, 1e-4 unless given). One line per case,
    "ok   NAME: summary" or "FAIL NAME: summary" and the failing rows; exit 1 if any failed."""
    ap = argparse.ArgumentParser(prog="reference_model.py cases")
    ap.add_argument("list")
    args = ap.parse_args(argv)
    failed = 0
    with open(args.list, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for number, row in enumerate(rows, 1):
        if len(row) not in (3, 4):
            sys.exit(f"{args.list}:{number}: expected DIR, LABEL_SMOOTHING, NAME and optionally "
                     "GRAD_RTOL, tab-separated")
        folder, smoothing, name = row[:3]
        grad_rtol = float(row[3]) if len(row) == 4 else 1e-4
        ok, lines = check_case(f"{folder}/model.safetensors", f"{folder}/batch.safetensors",
                               f"{folder}/result.safetensors", float(smoothing),
                               grad_rtol=grad_rtol)
        summary = lines[-1].split("\t", 1)[1]
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {summary}", flush=True)
        if not ok:
            failed += 1
            for line in lines[:-1]:
                if line.startswith("loss") or line.endswith("FAIL"):
                    print(line)
    return 1 if failed else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "greedy":
        return greedy_main(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "cases":
        return cases_main(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("batch")
    ap.add_argument("heed_result")
    ap.add_argument("--label-smoothing", type=float, default=0.0)
    ap.add_argument("--loss-rtol", type=float, default=1e-5)
    ap.add_argument("--grad-rtol", type=float, default=1e-4)
    ap.add_argument("--grad-floor", type=float, default=1e-6,
                    help="absolute floor of the relative-error denominator")
    args = ap.parse_args()
    ok, lines = check_case(args.model, args.batch, args.heed_result, args.label_smoothing,
                           args.loss_rtol, args.grad_rtol, args.grad_floor)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
