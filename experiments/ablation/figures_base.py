"""What the ablation's report modules share (report.py and its figures_*.py): the result files'
readers, the errors that name what is missing, the number formats and the small statistics the
page quotes; what every study's report shares is experiments/common/reporting.py's, the
comparisons themselves heed-score's.
"""
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import reporting as common  # noqa: E402
from reporting import (DASH, METRICS, markdown_table, num, number, pm,  # noqa: E402,F401
                       read_comparisons, read_comparisons_rows)

MECHANISMS = ["none", "dot", "scaled-dot", "general", "additive", "multi-head", "location",
              "local-m", "local-p", "linear"]


# Result files the workflow always writes, and the Snakefile's rule that writes them.
REQUIRED = {"settings.tsv": "ablation_settings", "plan.tsv": "plan", "runs.tsv": "ablation_run",
            "scores.tsv": "ablation_run"}


class ReportError(Exception):
    """Something the template asks for that the results cannot give (exit 65)."""
    exit_code = 65


class MissingInput(ReportError):
    """A result file or the template not there (exit 66)."""
    exit_code = 66


def missing(path):
    stage = REQUIRED.get(os.path.basename(path))
    where = "" if stage is None else f" (the Snakefile's rule {stage} writes it)"
    return MissingInput(f"{path} not found{where}")


def read_lines(path, required=True):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readlines()
    except FileNotFoundError:
        if not required:
            return None
        raise missing(path) from None


def read_tsv(path, required=True):
    """Rows of a TSV file as dicts, '#' comment lines skipped; None for an optional file absent."""
    try:
        return common.read_tsv(path, required)
    except FileNotFoundError:
        raise missing(path) from None


def numbers(rows, column):
    """COLUMN's values in ROWS that are numbers ('n/a', '-' and empty cells left out)."""
    return [v for v in (number(row.get(column)) for row in rows) if v is not None]


def sig(value, digits=2):
    return DASH if value is None else f"{value:.{digits}g}"


def thousands(value):
    """A number with thousands separators; text that is no number as written."""
    if isinstance(value, str):
        return value if number(value) is None else f"{float(value):,.0f}"
    return DASH if value is None else f"{value:,.0f}"


def mean(values):
    return statistics.mean(values) if values else None


# Student's t, 0.975 quantile, by degrees of freedom (index 0 unused).
T_975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def span(values, digits=1, unit=""):
    """The range of VALUES as "low–high", or one figure when they agree to DIGITS."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"{low}{unit}" if low == high else f"{low}–{high}{unit}"


def group_words(group):
    """A row of length-groups.tsv as its source lengths: "3–7", or "10" for one length."""
    if group["shortest"] == group["longest"]:
        return group["shortest"]
    return f"{group['shortest']}–{group['longest']}"


# The pooling study's held-out and transfer sets: 10 batches of 100 sequences each
# (tools/pooling/task.h).
POOLING_HELD_OUT = 1000


def wilson(p, n, z=1.959964):
    """Wilson's 95 % score interval for a proportion P observed over N trials: (low, high)."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def ratio(a, b):
    return None if not a or not b else a / b


def check_mechanism(mechanism):
    if mechanism not in MECHANISMS:
        raise ReportError(f"unknown attention mechanism '{mechanism}'")
    return mechanism


def cost_at(rows, mechanism, column, value, measure="median_ms"):
    for row in rows or []:
        if row.get("mechanism") == mechanism and row.get(column) == str(value):
            return number(row.get(measure))
    return None


def option(options, name):
    """The value of heed-train option NAME in an options string, or None."""
    match = re.search(r"(?:^|\s)--%s\s+(\S+)" % re.escape(name), options)
    return match.group(1) if match else None


def greedy_pooled(results, row):
    """The greedy pooled BLEU (scores.tsv) of the run of ROW, a row of a probe's table."""
    score = results.scores.get((row["id"], row["seed"], row["lr"], "pooled"))
    if score is None or number(score["bleu"]) is None:
        raise ReportError(f"{row['id']} seed {row['seed']} lr {row['lr']}: probed, but no pooled "
                          f"BLEU in scores.tsv")
    return number(score["bleu"])


def beam_gains(results, rows):
    """What beam search adds to each run of ROWS (beam.tsv's) over its greedy pooled BLEU."""
    return [number(r["bleu"]) - greedy_pooled(results, r) for r in rows]


def finished(results):
    return [i for i in results.configs if results.rows(i)]


def unit_rows(results, table, config_id):
    """The rows of TABLE (saturation, long) of CONFIG_ID's compared runs."""
    units = {(row["seed"], row["lr"]) for row in results.rows(config_id)}
    return [row for row in table if row["id"] == config_id and (row["seed"], row["lr"]) in units]
