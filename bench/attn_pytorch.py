#!/usr/bin/python3
"""The PyTorch side of bench/attn_vs_pytorch.sh: one attention mechanism's time on random inputs,
in the forms PyTorch NMT toolkits use (OpenNMT-py GlobalAttention dot/general/mlp, Vaswani's
scaled dot product, torch.nn.MultiheadAttention), shaped as heed-bench-attn's all-steps mode:
keys/values h [N, S, K], queries q [N, T, Q], every target step at once.

One timed run is what heed-bench-attn times: the key-side work (W_k h, U h), the scores, the
softmax, the context; with --pass forward-backward also the backward to q, h and the
parameters. No mask: every sentence is S long, PyTorch's best case.

Prints one TSV row per source length: mechanism source_length target_length median_ms p10_ms
p90_ms (or "n/a" and the reason in the last column when the broadcast form of additive attention
would need more memory than --max-gib). Run it with Debian's interpreter (/usr/bin/python3, which
has python3-torch) on OpenBLAS (LD_LIBRARY_PATH, see ../shared/peers/README.md).
"""
import argparse
import math
import sys
import time

import torch
import torch.nn.functional as F


def make(mechanism, hidden, heads):
    """(parameters, function of (q, h) -> context [N, T, K or A])."""
    def linear(rows, cols):
        w = torch.empty(rows, cols)
        torch.nn.init.uniform_(w, -0.1, 0.1)
        return w.requires_grad_()

    if mechanism in ("dot", "scaled-dot"):
        scale = 1.0 / math.sqrt(hidden) if mechanism == "scaled-dot" else 1.0

        def dot(q, h):
            scores = torch.bmm(q, h.transpose(1, 2))
            if scale != 1.0:
                scores = scores * scale
            return torch.bmm(F.softmax(scores, dim=-1), h)
        return [], dot
    if mechanism == "general":
        w = linear(hidden, hidden)

        def general(q, h):
            # OpenNMT-py applies W to the query (T rows) rather than the keys (S rows).
            scores = torch.bmm(F.linear(q, w), h.transpose(1, 2))
            return torch.bmm(F.softmax(scores, dim=-1), h)
        return [w], general
    if mechanism == "additive":
        w_q, w_k = linear(hidden, hidden), linear(hidden, hidden)
        bias = torch.zeros(hidden, requires_grad=True)
        v = linear(1, hidden)

        def additive(q, h):
            # OpenNMT-py's "mlp": broadcast to [N, T, S, A], tanh, project by v.
            wq = F.linear(q, w_q).unsqueeze(2)
            uh = F.linear(h, w_k, bias).unsqueeze(1)
            scores = F.linear(torch.tanh(wq + uh), v).squeeze(-1)
            return torch.bmm(F.softmax(scores, dim=-1), h)
        return [w_q, w_k, bias, v], additive
    if mechanism == "multi-head":
        mha = torch.nn.MultiheadAttention(hidden, heads, bias=False, batch_first=True)

        def multi_head(q, h):
            return mha(q, h, h, need_weights=False)[0]
        return list(mha.parameters()), multi_head
    raise SystemExit(f"attn_pytorch.py: unknown mechanism {mechanism}")


def quantile(times, q):
    times = sorted(times)
    position = q * (len(times) - 1)
    low = int(math.floor(position))
    high = min(low + 1, len(times) - 1)
    return times[low] + (times[high] - times[low]) * (position - low)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attention", required=True)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--source-length", default="10,20,50,100,200,500")
    parser.add_argument("--target-length", default="", help="default: equal to the source length")
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--pass", dest="pass_", default="forward-backward",
                        choices=["forward", "forward-backward"])
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-gib", type=float, default=12.0,
                        help="skip additive shapes whose [N, T, S, A] tensors need more")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    sources = [int(x) for x in args.source_length.split(",")]
    targets = [int(x) for x in args.target_length.split(",")] if args.target_length else sources
    if len(targets) != len(sources):
        raise SystemExit("attn_pytorch.py: --target-length needs one value per source length")
    params, attend = make(args.attention, args.hidden, args.heads)
    backward = args.pass_ == "forward-backward"
    n, d = args.batch, args.hidden
    for s, t in zip(sources, targets):
        if args.attention == "additive":
            # The forward keeps the sum and its tanh, the backward two more of that size.
            gib = 4 * n * t * s * d * 4 / 2**30
            if gib > args.max_gib:
                print(f"{args.attention}\t{s}\t{t}\tn/a\tn/a\tn/a\tneeds ~{gib:.0f} GiB", flush=True)
                continue
        q = torch.randn(n, t, d, requires_grad=backward)
        h = torch.randn(n, s, d, requires_grad=backward)
        upstream = torch.randn(n, t, d)
        times = []
        for i in range(args.warmup + args.repeats):
            for p in params:
                p.grad = None
            q.grad = h.grad = None
            start = time.perf_counter()
            if backward:
                attend(q, h).backward(upstream)
            else:
                with torch.no_grad():
                    attend(q, h)
            if i >= args.warmup:
                times.append((time.perf_counter() - start) * 1e3)
        print(f"{args.attention}\t{s}\t{t}\t{quantile(times, 0.5):.3f}\t{quantile(times, 0.1):.3f}"
              f"\t{quantile(times, 0.9):.3f}\t", flush=True)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(0)
