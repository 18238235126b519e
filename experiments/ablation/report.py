#!/usr/bin/env python3
"""Writes docs/ablation.md from the ablation's result files (ablation.sh, stage "report").

Every number in the page comes from RESULTS: runs.tsv, buckets.tsv, speed-runs.tsv, bootstrap.tsv,
cost-*.tsv, stats.tsv, settings.tsv, machine.txt (and experiments/pooling/results/pooling.tsv for the
feed-forward pooling experiment). The template's prose refers to them through placeholders:

  {{table:NAME}}          main, bahdanau, sweep, buckets, cost_length, cost_hidden, stats, pooling
  {{plot:NAME}}           buckets, sweep (an SVG written beside the page, linked)
  {{KEY:ID}}              one figure of configuration ID (dot-luong, sweep-additive-h128, …):
                          bleu (mean ± std), bleu_mean, chrf, ppl, aer_argmax, aer_shift, params,
                          tok_s, sent_s (medians over speed-runs.tsv's rounds), speed_rounds,
                          p (bootstrap.tsv: the paired bootstrap p-value against dot with the
                          same decoder, first seed), seeds
  {{bleu_gap:A:B}}        mean BLEU of configuration A minus that of B
  {{seeds_ahead:A:B}}     "N of M": of the M seeds both A and B ran, those where A's BLEU is higher
  {{speed_spread:COL}}    how far apart the rounds of speed-runs.tsv are in column COL: the
                          median over configurations of fastest/slowest − 1, and the largest
  {{cost:MECH:L}}         forward+backward ms at source length L, hidden 512 (cost-length.tsv)
  {{cost_d:MECH:D}}       forward+backward ms at hidden D, source length 20 (cost-hidden.tsv)
  {{cost_ratio:A:B:L}}    cost of A over cost of B at length L
  {{cost_len_ratio:MECH:L1:L2}}  cost at source length L2 over cost at L1 (hidden 512)
  {{cost_d_ratio:MECH:D1:D2}}    cost at hidden D2 over cost at D1 (source length 20)
  {{growth:MECH}}         the fitted exponent of time in source length
  {{setting:KEY}}         a line of settings.tsv (steps, seeds, precision, …)
  {{machine}}             machine.txt as one line
  {{aer_diagonal}}        AER of the diagonal links on the same gold (aer-diagonal.tsv)
  {{stat:IN:MECH:D:COL}}  a figure of stats.tsv (input normal|tanh, dot|scaled-dot, width d)
  {{pool:TASK:T:LEN:MODEL:COL}}  a cell of experiments/pooling/results/pooling.tsv
  {{progress}}            how many of the planned runs are in runs.tsv
  {{total_minutes}}       the training minutes of every run in runs.tsv, summed

Python 3 standard library only (python3 on PATH is enough).
"""
import argparse
import csv
import math
import os
import re
import statistics
import sys

MAIN_LUONG = ["none-luong", "dot-luong", "general-luong", "additive-luong", "scaled-dot-luong",
              "multi-head-luong", "location-luong", "local-m-luong", "local-p-luong",
              "linear-luong"]
BAHDANAU = ["dot-bahdanau", "general-bahdanau", "additive-bahdanau"]
SWEEP = ["dot", "scaled-dot", "additive"]


def read_tsv(path):
    """Rows of a TSV file as dicts, '#' comment lines skipped; [] if the file is absent."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class Results:
    def __init__(self, directory, pooling):
        self.dir = directory
        self.runs = read_tsv(os.path.join(directory, "runs.tsv"))
        self.buckets = read_tsv(os.path.join(directory, "buckets.tsv"))
        # speed-runs.tsv: one row per configuration and round; the page shows medians.
        self.speed = {}
        for r in read_tsv(os.path.join(directory, "speed-runs.tsv")):
            self.speed.setdefault(r["id"], []).append(r)
        self.bootstrap = {r["id"]: r for r in read_tsv(os.path.join(directory, "bootstrap.tsv"))}
        self.cost_length = read_tsv(os.path.join(directory, "cost-length.tsv"))
        self.cost_hidden = read_tsv(os.path.join(directory, "cost-hidden.tsv"))
        self.stats = read_tsv(os.path.join(directory, "stats.tsv"))
        self.pooling = read_tsv(pooling) if pooling else []
        self.settings = {}
        path = os.path.join(directory, "settings.tsv")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    key, _, value = line.rstrip("\n").partition("\t")
                    self.settings[key] = value
        path = os.path.join(directory, "machine.txt")
        self.machine = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.machine = "; ".join(l.strip("# \n") for l in f if l.strip())
        diagonal = read_tsv(os.path.join(directory, "aer-diagonal.tsv"))
        self.aer_diagonal = number(diagonal[0]["aer"]) if diagonal else None
        self.growth = {}
        path = os.path.join(directory, "cost-length.tsv")
        if os.path.exists(path):
            # heed-bench-attn writes "# growth<TAB>mechanism<TAB>…<TAB>exponent<TAB>points".
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.startswith("# growth\t"):
                        fields = line.rstrip("\n").split("\t")
                        if number(fields[-2]) is not None:
                            self.growth[fields[1]] = float(fields[-2])

    def rows(self, run_id):
        return [r for r in self.runs if r["id"] == run_id]

    def values(self, run_id, column):
        return [v for v in (number(r[column]) for r in self.rows(run_id)) if v is not None]

    def seed1(self, run_id):
        rows = self.rows(run_id)
        return rows[0] if rows else None


def mean_std(values, digits=2):
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.mean(values):.{digits}f} ± {statistics.stdev(values):.{digits}f}"


def mean(values, digits=2):
    return f"{statistics.mean(values):.{digits}f}" if values else "—"


def median_of(rows, column):
    values = [v for v in (number(r[column]) for r in rows) if v is not None]
    return statistics.median(values) if values else None


def thousands(value):
    return "—" if value is None else f"{value:,.0f}"


def figure(results, key, run_id):
    speed = results.speed.get(run_id, [])
    row = results.seed1(run_id)
    if key == "bleu":
        return mean_std(results.values(run_id, "bleu"))
    if key == "bleu_mean":
        return mean(results.values(run_id, "bleu"))
    if key == "chrf":
        return mean_std(results.values(run_id, "chrf"))
    if key == "ppl":
        return mean_std(results.values(run_id, "best_val_ppl"))
    if key in ("aer_argmax", "aer_shift"):
        return mean_std(results.values(run_id, key), 1)
    if key == "params":
        return thousands(number(row["attention_params"])) if row else "—"
    if key == "layer_params":
        return thousands(number(row["attentional_layer_params"])) if row else "—"
    if key == "tok_s":
        return thousands(median_of(speed, "train_tok_per_s"))
    if key == "sent_s":
        value = median_of(speed, "translate_sent_per_s")
        return "—" if value is None else f"{value:.0f}"
    if key == "speed_rounds":
        return str(len(speed))
    if key == "p":
        value = number(results.bootstrap.get(run_id, {}).get("p"))
        return "—" if value is None else f"{value:.3f}"
    if key == "seeds":
        return str(len(results.rows(run_id)))
    raise KeyError(f"unknown figure '{key}'")


def markdown_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def config_table(results, ids):
    header = ["configuration", "seeds", "test2016 BLEU", "p vs dot", "chrF", "val ppl",
              "attention params", "attentional layer", "train tok/s", "translate sent/s",
              "AER argmax", "AER shift"]
    rows = []
    for run_id in ids:
        if not results.rows(run_id):
            continue
        rows.append([f"`{run_id}`", figure(results, "seeds", run_id), figure(results, "bleu", run_id),
                     figure(results, "p", run_id), figure(results, "chrf", run_id),
                     figure(results, "ppl", run_id), figure(results, "params", run_id),
                     figure(results, "layer_params", run_id), figure(results, "tok_s", run_id),
                     figure(results, "sent_s", run_id), figure(results, "aer_argmax", run_id),
                     figure(results, "aer_shift", run_id)])
    return markdown_table(header, rows) if rows else "_No runs finished yet._"


def sweep_id(mechanism, hidden):
    return f"{mechanism}-luong" if hidden == 512 else f"sweep-{mechanism}-h{hidden}"


def sweep_points(results):
    hiddens = sorted({int(r["hidden"]) for r in results.runs if r["id"].startswith("sweep-")} |
                     {512})
    return hiddens


def sweep_table(results):
    hiddens = sweep_points(results)
    rows = []
    for mechanism in SWEEP:
        cells = []
        for hidden in hiddens:
            row = results.seed1(sweep_id(mechanism, hidden))
            ppl = number(row["best_val_ppl"]) if row else None
            cells.append("—" if not row else
                         row["bleu"] + ("" if ppl is None else f" ({ppl:.1f})"))
        rows.append([f"`{mechanism}`"] + cells)
    return markdown_table(["mechanism"] + [f"d = {h}" for h in hiddens], rows)


def bucket_means(results, run_id):
    """bucket → (sentences, mean BLEU over seeds)."""
    out = {}
    for row in results.buckets:
        if row["id"] != run_id:
            continue
        out.setdefault(row["bucket"], (row["sentences"], []))[1].append(number(row["bleu"]))
    return {b: (n, statistics.mean([v for v in vs if v is not None])) for b, (n, vs) in out.items()}


BUCKETS = ["1-10", "11-15", "16-20", "21-99"]


def bucket_label(bucket):
    lo, hi = bucket.split("-")
    return f"{lo}+" if hi == "99" else f"{lo}–{hi}"


def buckets_table(results):
    ids = [i for i in MAIN_LUONG + BAHDANAU if results.rows(i)]
    if not ids:
        return "_No runs finished yet._"
    first = bucket_means(results, ids[0])
    header = ["configuration"] + [f"{bucket_label(b)} words ({first.get(b, ('?',))[0]})"
                                  for b in BUCKETS]
    rows = []
    for run_id in ids:
        means = bucket_means(results, run_id)
        rows.append([f"`{run_id}`"] + [f"{means[b][1]:.2f}" if b in means else "—" for b in BUCKETS])
    return markdown_table(header, rows)


def cost_at(rows, mechanism, column, value):
    """median_ms of the row of cost-length.tsv or cost-hidden.tsv with this mechanism and value."""
    for row in rows:
        if row.get("mechanism") == mechanism and row.get(column) == str(value):
            return number(row["median_ms"])
    return None


def cost_ms(results, mechanism, length):  # hidden 512
    return cost_at(results.cost_length, mechanism, "source_length", length)


def cost_hidden_ms(results, mechanism, hidden):  # source length 20
    return cost_at(results.cost_hidden, mechanism, "hidden", hidden)


def ms_text(value):
    return "—" if value is None else f"{value:.2f}"


def cost_table(rows, column, label, growth=None):
    """Mechanisms (in the file's order) by the values of COLUMN; a growth column if given."""
    values = sorted({int(r[column]) for r in rows if r.get(column)})
    mechanisms = list(dict.fromkeys(r["mechanism"] for r in rows if r.get("mechanism")))
    table = []
    for mechanism in mechanisms:
        cells = [ms_text(cost_at(rows, mechanism, column, v)) for v in values]
        if growth is not None:
            exponent = growth.get(mechanism)
            cells.append("—" if exponent is None else f"{exponent:.2f}")
        table.append([f"`{mechanism}`"] + cells)
    if not table:
        return "_Not measured yet._"
    header = ["mechanism"] + [f"{label} = {v}" for v in values]
    return markdown_table(header + (["growth exponent"] if growth is not None else []), table)


def stats_table(results):
    """One row per input distribution and width: dot against scaled-dot side by side."""
    by_key = {(r["input"], r["dim"], r["mechanism"]): r for r in results.stats}
    rows = []
    for (inp, dim, mechanism) in by_key:
        if mechanism != "dot" or (inp, dim, "scaled-dot") not in by_key:
            continue
        dot, scaled = by_key[(inp, dim, "dot")], by_key[(inp, dim, "scaled-dot")]
        rows.append([inp, dim,
                     f"{float(dot['entropy_fraction']):.2f} / {float(scaled['entropy_fraction']):.2f}",
                     f"{float(dot['max_weight']):.2f} / {float(scaled['max_weight']):.2f}",
                     f"{float(dot['grad_scores_median']):.2g} / {float(scaled['grad_scores_median']):.2g}"])
    if not rows:
        return "_Not measured yet._"
    return markdown_table(["input", "d", "entropy / maximum (dot / scaled)",
                           "largest weight (dot / scaled)",
                           "median gradient through the softmax (dot / scaled)"], rows)


def generic_table(rows, columns=None):
    if not rows:
        return "_Not measured yet._"
    columns = columns or list(rows[0].keys())
    return markdown_table(columns, [[r.get(c, "") for c in columns] for r in rows])


def svg_lines(path, title, x_labels, series, y_label, log_x=False):
    """A small line chart: x_labels (strings, evenly spaced), series {name: [y or None]}."""
    width, height, left, right, top, bottom = 640, 400, 60, 170, 40, 50
    values = [v for ys in series.values() for v in ys if v is not None]
    if not values:
        return False
    lo, hi = math.floor(min(values) - 1), math.ceil(max(values) + 1)
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i):
        return left + (plot_w * i / max(1, len(x_labels) - 1))

    def y(v):
        return top + plot_h * (hi - v) / (hi - lo)

    colours = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d",
               "#666666", "#1f78b4", "#b2df8a", "#fb9a99", "#cab2d6", "#000000"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="14">{title}</text>',
           f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>',
           f'<text x="15" y="{top + plot_h / 2}" transform="rotate(-90 15 {top + plot_h / 2})" '
           f'text-anchor="middle">{y_label}</text>']
    step = max(1, round((hi - lo) / 8))
    for tick in range(int(lo), int(hi) + 1, step):
        out.append(f'<line x1="{left - 4}" y1="{y(tick):.1f}" x2="{left + plot_w}" y2="{y(tick):.1f}" '
                   f'stroke="#ddd"/><text x="{left - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick}</text>')
    for i, label in enumerate(x_labels):
        out.append(f'<text x="{x(i):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{label}</text>')
    for k, (name, ys) in enumerate(series.items()):
        colour = colours[k % len(colours)]
        points = [(x(i), y(v)) for i, v in enumerate(ys) if v is not None]
        if len(points) > 1:
            out.append('<polyline fill="none" stroke-width="2" stroke="%s" points="%s"/>' % (
                colour, " ".join(f"{px:.1f},{py:.1f}" for px, py in points)))
        for px, py in points:
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>')
        out.append(f'<line x1="{width - right + 15}" y1="{top + 10 + 18 * k}" x2="{width - right + 35}" '
                   f'y2="{top + 10 + 18 * k}" stroke="{colour}" stroke-width="2"/>'
                   f'<text x="{width - right + 40}" y="{top + 14 + 18 * k}">{name}</text>')
    out.append("</svg>")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(path + ".tmp", path)
    return True


def plot(results, name, page_dir):
    path = os.path.join(results.dir, f"{name}.svg")
    if name == "buckets":
        series = {}
        for run_id in MAIN_LUONG:
            means = bucket_means(results, run_id)
            if means:
                series[run_id.replace("-luong", "")] = [means[b][1] if b in means else None
                                                        for b in BUCKETS]
        drawn = svg_lines(path, "test2016 BLEU by source length (Luong decoder, mean over seeds)",
                          [bucket_label(b) + " words" for b in BUCKETS], series, "BLEU")
    elif name == "sweep":
        hiddens = sweep_points(results)
        series = {}
        for mechanism in SWEEP:
            series[mechanism] = [number(results.seed1(sweep_id(mechanism, h))["bleu"])
                                 if results.seed1(sweep_id(mechanism, h)) else None for h in hiddens]
        drawn = svg_lines(path, "test2016 BLEU against hidden size d (seed 1)",
                          [f"d = {h}" for h in hiddens], series, "BLEU")
    else:
        raise KeyError(f"unknown plot '{name}'")
    if not drawn:
        return "_No runs finished yet._"
    return f"![{name}]({os.path.relpath(path, page_dir)})"


def fill(template, results, page_dir):
    tables = {
        "main": lambda: config_table(results, MAIN_LUONG),
        "bahdanau": lambda: config_table(results, ["dot-luong"] + BAHDANAU),
        "sweep": lambda: sweep_table(results),
        "buckets": lambda: buckets_table(results),
        "cost_length": lambda: cost_table(results.cost_length, "source_length", "S",
                                          results.growth),
        "cost_hidden": lambda: cost_table(results.cost_hidden, "hidden", "d"),
        "stats": lambda: stats_table(results),
        "pooling": lambda: generic_table(results.pooling, [
            "task", "T", "lengths", "model", "solved", "steps_to_solve", "final_accuracy",
            "params", "seconds", "note"]),
    }

    def replace(match):
        parts = match.group(1).split(":")
        kind = parts[0]
        if kind == "table":
            return tables[parts[1]]()
        if kind == "plot":
            return plot(results, parts[1], page_dir)
        if kind == "cost":
            return ms_text(cost_ms(results, parts[1], int(parts[2])))
        if kind == "cost_d":
            return ms_text(cost_hidden_ms(results, parts[1], int(parts[2])))
        if kind == "cost_ratio":
            a, b = cost_ms(results, parts[1], int(parts[3])), cost_ms(results, parts[2], int(parts[3]))
            return "—" if not a or not b else f"{a / b:.1f}"
        if kind in ("cost_len_ratio", "cost_d_ratio"):  # KIND:MECH:FROM:TO, cost at TO / at FROM
            cost = cost_ms if kind == "cost_len_ratio" else cost_hidden_ms
            a, b = cost(results, parts[1], int(parts[2])), cost(results, parts[1], int(parts[3]))
            return "—" if not a or not b else f"{b / a:.1f}"
        if kind == "growth":
            value = results.growth.get(parts[1])
            return "—" if value is None else f"{value:.2f}"
        if kind == "setting":
            return results.settings.get(parts[1], "—")
        if kind == "stat":  # stat:INPUT:MECHANISM:DIM:COLUMN from stats.tsv
            match = [r for r in results.stats if r["input"] == parts[1] and
                     r["mechanism"] == parts[2] and r["dim"] == parts[3]]
            value = number(match[0][parts[4]]) if match else None
            return "—" if value is None else f"{value:.2g}"
        if kind == "pool":  # pool:TASK:T:LENGTHS:MODEL:COLUMN from pooling.tsv, as written
            match = [r for r in results.pooling if [r["task"], r["T"], r["lengths"], r["model"]]
                     == parts[1:5]]
            text = match[0][parts[5]] if match else "—"
            return f"{int(text):,}" if re.fullmatch(r"[0-9]+", text) else text
        if kind == "bleu_gap":  # bleu_gap:A:B, mean BLEU of A minus mean BLEU of B
            a, b = results.values(parts[1], "bleu"), results.values(parts[2], "bleu")
            return "—" if not a or not b else f"{statistics.mean(a) - statistics.mean(b):.1f}"
        if kind == "seeds_ahead":  # seeds_ahead:A:B, paired by seed
            a, b = ({r["seed"]: number(r["bleu"]) for r in results.rows(i)} for i in parts[1:3])
            both = [seed for seed in a if seed in b and a[seed] is not None and b[seed] is not None]
            return "—" if not both else f"{sum(a[s] > b[s] for s in both)} of {len(both)}"
        if kind == "speed_spread":  # speed_spread:COLUMN of speed-runs.tsv
            spreads = []
            for rows in results.speed.values():
                values = [v for v in (number(r[parts[1]]) for r in rows) if v]
                if len(values) > 1:
                    spreads.append(100 * (max(values) / min(values) - 1))
            if not spreads:
                return "—"
            return f"a median {statistics.median(spreads):.0f} %, at most {max(spreads):.0f} %"
        if kind == "aer_diagonal":
            return "—" if results.aer_diagonal is None else f"{results.aer_diagonal:.1f}"
        if kind == "machine":
            return results.machine or "—"
        if kind == "total_minutes":
            minutes = [number(r["minutes"]) for r in results.runs]
            return f"{sum(m for m in minutes if m is not None):.0f}"
        if kind == "progress":
            planned = results.settings.get("planned_runs", "—")
            return f"{len(results.runs)} of {planned} planned runs"
        return figure(results, kind, parts[1])

    return re.sub(r"\{\{([a-z_]+(?::[A-Za-z0-9_.-]+)*)\}\}", replace, template)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--template", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--pooling", default=None,
                        help="heed-pooling results (default: experiments/pooling/results/pooling.tsv)")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pooling = args.pooling or os.path.join(root, "experiments", "pooling", "results", "pooling.tsv")
    results = Results(args.results, pooling)
    with open(args.template, encoding="utf-8") as f:
        template = f.read()
    page = fill(template, results, os.path.dirname(os.path.abspath(args.output)))
    with open(args.output + ".tmp", "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(args.output + ".tmp", args.output)


if __name__ == "__main__":
    sys.exit(main())
