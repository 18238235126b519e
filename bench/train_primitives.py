#!/usr/bin/python3
# Sums oneDNN's verbose execution lines (ONEDNN_VERBOSE=1, oneDNN 2.6's format) by primitive,
# propagation and problem: calls, milliseconds an update and, for RNN and matmul primitives, the
# FLOPs they do and their rate as a fraction of a matmul peak. bench/train_primitives.sh runs it;
# /usr/bin/python3 (Debian's), standard library only.
#
#   train_primitives.py --updates N --peak GFLOPS [--top K] < verbose.txt
# Output (stdout): TSV primitive, propagation, problem, calls, ms_per_update, gflop_per_update,
# gflops, peak_fraction (the last three '-' where the FLOPs are not counted: reorders, softmax,
# eltwise), rows by ms_per_update, descending; reorders grouped by layouts and sizes, RNNs over
# whole sequences (t*) by widths; then the rows left out, each primitive's total and the total.
import argparse
import collections
import re
import sys

# l1t14mb64sic256slc256dhc256dic256: layers, steps, rows, state, input, hidden widths.
RNN_PROBLEM = re.compile(r"l(\d+)t(\d+)mb(\d+)sic(\d+)slc(\d+)dhc(\d+)dic(\d+)")
RNN_GATES = {"vanilla_lstm": 4, "lbr_gru": 3, "vanilla_gru": 3, "vanilla_rnn": 1}


def rnn_flop(problem, aux, propagation):
    """Multiply-adds ×2 of the RNN's products: forward G·H × (input + state) per row and step;
    backward twice that (the data and the weight gradients)."""
    m = RNN_PROBLEM.fullmatch(problem)
    alg = re.search(r"alg:(\w+)", aux)
    if not m or not alg or alg.group(1) not in RNN_GATES:
        return None
    layers, steps, rows, sic, slc, dhc, _ = (int(x) for x in m.groups())
    directions = 2 if "bidirectional" in aux else 1
    forward = 2.0 * layers * directions * steps * rows * RNN_GATES[alg.group(1)] * dhc * (slc + sic)
    return forward * (2 if propagation.startswith("backward") else 1)


def matmul_flop(problem):
    """2·M·N·K (times the batch) from 'MxK:KxN:MxN' or 'BxMxK:BxKxN:BxMxN'."""
    try:
        a, b, _ = (tuple(int(x) for x in part.split("x")) for part in problem.split(":"))
    except ValueError:
        return None
    batch = 1
    for x in a[:-2]:
        batch *= x
    return 2.0 * batch * a[-2] * a[-1] * b[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--updates", type=int, required=True)
    parser.add_argument("--peak", type=float, required=True, help="matmul peak, GFLOP/s")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    if args.updates < 1 or args.peak <= 0 or args.top < 1:
        sys.exit("train_primitives.py: --updates and --top must be at least 1, --peak positive")
    rows = collections.defaultdict(lambda: [0, 0.0, 0.0])  # calls, ms, flop
    for line in sys.stdin:
        if not line.startswith("onednn_verbose,exec,"):
            continue
        fields = line.rstrip("\n").split(",")
        primitive, propagation = fields[3], fields[5]
        aux, problem, ms = fields[-3], fields[-2], float(fields[-1])
        if primitive == "rnn":
            flop = rnn_flop(problem, aux, propagation)
            # Whole sequences (an encoder's, of every length) as one row, t*; a decoder's
            # steps, t1, apart.
            problem = re.sub(r"t(\d+)", lambda m: m.group(0) if m.group(1) == "1" else "t*",
                             problem, count=1)
        elif primitive == "matmul":
            flop = matmul_flop(problem)
        else:
            flop = None
        if primitive == "reorder":  # the layouts say which copy it is
            layouts = re.findall(r"(?:src|dst)_(\w+):\w*:blocked:(\w+)", fields[6])
            problem = " -> ".join(f"{t}:{l}" for t, l in layouts) + " " + problem
        key = (primitive, propagation, problem, flop is not None)
        row = rows[key]
        row[0] += 1
        row[1] += ms
        row[2] += flop or 0.0
    if not rows:
        sys.exit("train_primitives.py: no oneDNN execution lines in the input "
                 "(ONEDNN_VERBOSE=1 unset, or not oneDNN 2.x)")
    total_ms = sum(r[1] for r in rows.values())
    print("primitive\tpropagation\tproblem\tcalls\tms_per_update\tgflop_per_update\tgflops\t"
          "peak_fraction")
    ordered = sorted(rows.items(), key=lambda kv: -kv[1][1])
    for (primitive, propagation, problem, counted), (calls, ms, flop) in ordered[:args.top]:
        if counted:
            gflops = flop / ms / 1e6
            rate = f"{flop / args.updates / 1e9:.3f}\t{gflops:.1f}\t{gflops / args.peak:.3f}"
        else:
            rate = "-\t-\t-"
        print(f"{primitive}\t{propagation}\t{problem}\t{calls}\t{ms / args.updates:.2f}\t{rate}")
    rest = ordered[args.top:]
    print(f"(the other {len(rest)})\t-\t-\t{sum(r[0] for _, r in rest)}\t"
          f"{sum(r[1] for _, r in rest) / args.updates:.2f}\t-\t-\t-")
    kinds = collections.defaultdict(lambda: [0, 0.0])
    for (primitive, *_), (calls, ms, _) in rows.items():
        kinds[primitive][0] += calls
        kinds[primitive][1] += ms
    for primitive, (calls, ms) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"(all {primitive})\t-\t-\t{calls}\t{ms / args.updates:.2f}\t-\t-\t-")
    print(f"(all oneDNN primitives)\t-\t-\t{sum(r[0] for r in rows.values())}\t"
          f"{total_ms / args.updates:.2f}\t-\t-\t-")


if __name__ == "__main__":
    main()
