"""The ablation's result files (results/, the formats report.py reads), written one finished run at
a time by the Snakefile's rule ablation_run: a run's row of runs.tsv and its learning curve from
heed-train's metrics file, its scores, and the probes' rows; every table keeps one row per run
(a run collected again replaces its rows). Only the Python standard library.

Run, it prints score_row of heed-score's output on its standard input (the probes' rows).
"""
import fcntl
import os
import re
import sys

RUNS_HEADER = ("id\tfamily\tseed\tlr\thidden\tstatus\tsteps\tstop\tbest_val_ppl\tbest_step"
               "\tconverged_step\tbest_val_bleu\tminutes\ttok_per_s\tcpu")
AER = "aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences"
SATURATION = ("rows\tsource_median\tentropy\tentropy_fraction\tmax_weight\tscore_sd\tzero_rows"
              "\tgrad_scores_mean\tgrad_scores_median")
# Each table of one row (or a few) per run: its header. A table's key columns are id, seed, lr.
TABLES = {
    "runs.tsv": RUNS_HEADER,
    "scores.tsv": "id\tseed\tlr\ttest\tbleu\tchrf",
    "saturation.tsv": "id\tseed\tlr\t" + SATURATION,
    "parameters.tsv": "id\tseed\tlr\ttemperature\tscale\tidentity\tresidual",
    "silver.tsv": "id\tseed\tlr\treading\t" + AER,
    "silver-curves.tsv": "id\tseed\tlr\tstep\t" + AER,
    "long.tsv": "id\tseed\tlr\tbleu_long\tchrf_long\tbleu_joined\tchrf_joined",
    "long-length.tsv": "id\tseed\tlr\tratio_long\tbp_long\tratio_joined\tbp_joined",
    "long-forced.tsv": "id\tseed\tlr\tbleu\tchrf\tratio\tbp",
    "beam.tsv": "id\tseed\tlr\tbeam\tbleu\tchrf\tratio\tbp",
}


def dashes(columns):
    """A row of dashes, one per tab-separated column of COLUMNS."""
    return "\t".join("-" for _ in columns.split("\t"))


def awk_number(value):
    """VALUE as awk prints a number (%.6g, whole numbers as integers)."""
    return str(int(value)) if value == int(value) else "%.6g" % value


def metrics_rows(path):
    """heed-train's metrics file as dicts (no file: [])."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n").split("\t") for line in f]
    if not lines:
        return []
    header = lines[0]
    return [dict(zip(header, cells + [""] * (len(header) - len(cells)))) for cells in lines[1:]]


def curve(metrics):
    """The run's validations: step, val_ppl, val_bleu, lr, elapsed_s, event; a step logged twice
    (a resumed run) keeps its last line, in the place of its first."""
    rows = {}
    for m in metrics:
        if m.get("val_ppl", "") != "":
            rows[m["step"]] = [m["step"], m["val_ppl"], m["val_bleu"], m["lr"], m["elapsed_s"],
                               m["event"]]
    lines = ["step\tval_ppl\tval_bleu\tlr\telapsed_s\tevent"] + ["\t".join(r) for r in rows.values()]
    return "\n".join(lines) + "\n"


def run_summary(metrics):
    """runs.tsv's columns steps … tok_per_s of a run (8 empty ones without a metrics file): the
    updates trained, why it stopped, the best validation perplexity, its update, the first update
    within 1 % of it, the BLEU there, heed-train's minutes, the median of its logged speeds."""
    if not metrics:
        return [""] * 8
    steps, secs, stop, tokens, ppl, bleu, order = "", 0.0, "budget", [], {}, {}, []
    for m in metrics:
        steps, secs = m["step"], float(m.get("elapsed_s") or 0)
        if "early-stop" in m.get("event", ""):
            stop = "early-stop"
        if float(m.get("tokens_per_s") or 0) > 0:
            tokens.append(float(m["tokens_per_s"]))
        if m.get("val_ppl", "") != "":
            ppl[m["step"]], bleu[m["step"]] = float(m["val_ppl"]), m["val_bleu"]
            if m["step"] not in order:
                order.append(m["step"])
    best = None
    for s in order:
        if best is None or ppl[s] < ppl[best]:
            best = s
    converged = next((s for s in order if best is not None and ppl[s] <= 1.01 * ppl[best]), "")
    tokens.sort()
    return [steps, stop, "" if best is None else awk_number(ppl[best]), best or "", converged,
            "" if best is None else bleu[best], "%.1f" % (secs / 60),
            awk_number(tokens[(len(tokens) + 1) // 2 - 1]) if tokens else ""]


def sacrebleu(text, metric):
    """The score of METRIC (BLEU or chrF2) in heed-score's sacreBLEU lines ("" without)."""
    m = re.search(rf"^{metric}\|[^=]* = ([0-9.]*)", text, re.M)
    return m.group(1) if m else ""


def lengths(text):
    """[(ratio, brevity penalty)] of heed-score's BLEU lines ("(BP = 0.987 ratio = 0.987 …)")."""
    pairs = []
    for line in text.splitlines():
        if "BLEU|" in line:
            m = re.search(r"BP = ([0-9.]+) ratio = ([0-9.]+)", line)
            if not m:
                raise ValueError(f"no brevity penalty in heed-score's line: {line}")
            pairs.append((m.group(2), m.group(1)))
    if not pairs:
        raise ValueError("no BLEU line in heed-score's output")
    return pairs


def score_row(text):
    """BLEU, chrF, length ratio and brevity penalty of heed-score's output."""
    ratio, bp = lengths(text)[0]
    return [sacrebleu(text, "BLEU"), sacrebleu(text, "chrF2"), ratio, bp]


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip().replace("\t", " ")
    except OSError:
        pass
    return ""


class Tables:
    """The result tables of RESULTS, changed under one lock (results/.lock) so that runs
    collected at once take turns."""

    def __init__(self, results):
        self.dir = results
        os.makedirs(results, exist_ok=True)

    def __enter__(self):
        self.lock = open(os.path.join(self.dir, ".lock"), "a")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.lock, fcntl.LOCK_UN)
        self.lock.close()

    def replace(self, table, key, rows):
        """The rows of run KEY (id, seed, lr) in TABLE become ROWS (lists of cells after the key
        columns; runs.tsv's rows are whole)."""
        path = os.path.join(self.dir, table)
        lines = []
        if os.path.exists(path) and os.path.getsize(path):
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        else:
            lines = [TABLES[table]]
        ident = (lambda c: (c[0], c[2], c[3])) if table == "runs.tsv" else (lambda c: tuple(c[:3]))
        kept = [lines[0]] + [line for line in lines[1:] if ident(line.split("\t")) != tuple(key)]
        for row in rows:
            kept.append("\t".join((list(row) if table == "runs.tsv" else list(key) + list(row))))
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("\n".join(kept) + "\n")
        os.replace(path + ".tmp", path)

    def ensure(self):
        """Every table with its header, so that a study's first page has them all."""
        for table, header in TABLES.items():
            path = os.path.join(self.dir, table)
            if not os.path.exists(path) or not os.path.getsize(path):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(header + "\n")


def read_table(path):
    """A result table as dicts ([] without the file)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines:
        return []
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:] if line]


if __name__ == "__main__":
    print("\t".join(score_row(sys.stdin.read())))
