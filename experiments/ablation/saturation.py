#!/usr/bin/python3
"""The saturation statistics of a trained model's attention (the Snakefile's probes).

Reads the attention weights heed-align writes with --soft (one JSON object per sentence pair,
"weights": one row per target token over the source tokens, the model's own subword tokens) and
prints one TSV line of statistics over all rows (with --header, the column names first):

  rows               target tokens (rows of weights) read
  source_median      the median number of source tokens of a row
  entropy            −Σ w log w in nats, the mean over rows
  entropy_fraction   entropy / log S per row (1: uniform, 0: one-hot), the mean over rows
  max_weight         the largest weight of a row, the mean over rows
  score_sd           the standard deviation of the scores over a row's source tokens, the mean
                     over rows: for a softmax, score_s − mean = log w_s − mean(log w), so it is
                     read from the weights; rows with a weight of exactly 0 (the softmax
                     underflowed, or a local window) are left out of it
  zero_rows          the fraction of rows with a weight of exactly 0
  grad_scores_mean   ‖dL/dscores‖ = ‖w ⊙ (g − ⟨w, g⟩)‖ for a random unit upstream gradient g on
  grad_scores_median the weights (heed-bench-attn --stats draws the same: N(0, 1), normalised per
                     row): the mean and the median over rows — what the softmax lets through

These are heed-bench-attn --stats' columns (docs/attention.md), measured on the trained model's
rows over a test set instead of on random vectors, so the two tables can be read side by side.
Pure Python (no NumPy): a test set's rows are a few hundred thousand numbers.

  /usr/bin/python3 saturation.py [--header] [--seed N] SOFT.jsonl
"""
import json
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import reporting as common  # noqa: E402  (experiments/common/reporting.py)

COLUMNS = ["rows", "source_median", "entropy", "entropy_fraction", "max_weight", "score_sd",
           "zero_rows", "grad_scores_mean", "grad_scores_median"]


def row_stats(weights, rng):
    """(entropy, entropy fraction, max weight, score sd or None, ‖dL/dscores‖) of one row."""
    count = len(weights)
    entropy = -sum(w * math.log(w) for w in weights if w > 0)
    fraction = entropy / math.log(count) if count > 1 else 0.0
    if min(weights) > 0:
        logs = [math.log(w) for w in weights]
        score_sd = statistics.pstdev(logs) if count > 1 else 0.0
    else:
        score_sd = None
    g = [rng.gauss(0.0, 1.0) for _ in weights]
    length = math.sqrt(sum(x * x for x in g)) or 1.0
    g = [x / length for x in g]
    inner = sum(w * x for w, x in zip(weights, g))
    grad = math.sqrt(sum((w * (x - inner)) ** 2 for w, x in zip(weights, g)))
    return entropy, fraction, max(weights), score_sd, grad


def main():
    parser = common.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("soft", help="heed-align --soft output (JSON lines)")
    parser.add_argument("--header", action="store_true", help="print the column names first")
    parser.add_argument("--seed", type=int, default=1, help="seed of the upstream gradients")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    entropies, fractions, maxima, sds, grads, sources = [], [], [], [], [], []
    zero_rows = 0
    try:
        with open(args.soft, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                try:
                    rows = json.loads(line)["weights"]
                    for weights in rows:
                        if not weights or any(not 0 <= w <= 1.0001 for w in weights):
                            raise ValueError("a row of weights outside [0, 1]")
                        entropy, fraction, top, sd, grad = row_stats(weights, rng)
                        entropies.append(entropy)
                        fractions.append(fraction)
                        maxima.append(top)
                        grads.append(grad)
                        sources.append(len(weights))
                        if sd is None:
                            zero_rows += 1
                        else:
                            sds.append(sd)
                except (ValueError, KeyError, TypeError) as error:
                    print(f"saturation.py: {args.soft}:{number}: {error}", file=sys.stderr)
                    return 65
    except OSError as error:
        print(f"saturation.py: {error}", file=sys.stderr)
        return 66
    if not entropies:
        print(f"saturation.py: {args.soft}: no rows of weights", file=sys.stderr)
        return 65
    values = [len(entropies), statistics.median(sources), statistics.mean(entropies),
              statistics.mean(fractions), statistics.mean(maxima),
              statistics.mean(sds) if sds else float("nan"), zero_rows / len(entropies),
              statistics.mean(grads), statistics.median(grads)]
    if args.header:
        print("\t".join(COLUMNS))
    print("\t".join(f"{v:g}" if isinstance(v, int) else f"{v:.6g}" for v in values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
