"""What the studies' reports share (experiments/*/report.py, bench/peers/marian/report.py):
result tables read, numbers and Markdown tables formatted, heed-score's and heed-align score's
multi-run comparisons worded, plots drawn as SVG that is the same byte for byte, generated text
spliced into a page between two marker lines and written atomically, the Debian Python packages a
report needs, and a parser whose usage errors exit 64.

The comparisons (--system --format tsv): a row per system against the first, the baseline, with
the difference, its 95 % interval from the hierarchical bootstrap, Holm-adjusted p-values, TOST
and Welch's interval over the runs alone, all computed by the tool; here they are only worded
(differs, level, undecided, provisional, †).

Only the Python standard library (matplotlib, imported when a plot is drawn). A report imports it
with
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "common"))
    import reporting as common
"""
import argparse
import copy
import csv
import math
import os
import pathlib
import statistics
import sys


def splice(path, begin, end, text):
    """Replaces what stands between the lines BEGIN and END of the page PATH with TEXT; a page
    without both markers is refused (exit 1 with one line naming them) and left as it was."""
    page = pathlib.Path(path).read_text(encoding="utf-8")
    if begin not in page or end not in page:
        sys.exit(f"{path}: lacks the marker lines {begin!r} and {end!r}")
    head, rest = page.split(begin, 1)
    _, tail = rest.split(end, 1)
    pathlib.Path(f"{path}.tmp").write_text(f"{head}{begin}\n{text}\n{end}{tail}", encoding="utf-8")
    os.replace(f"{path}.tmp", path)


def runs_rescaled(path):
    """Whether the comparison file PATH (heed-score / heed-align --system's TSV) comes from a
    build that rescales the drawn runs by √(n/(n−1)) (lib/heed/eval/multi_run.h): its method
    line says so. False for an older file, whose intervals' seed part is (n−1)/n too small."""
    with open(path, encoding="utf-8") as f:
        method = [line for line in f if line.startswith("# hierarchical bootstrap")]
    return bool(method) and "sqrt(n/(n-1))" in method[0]


def missing_packages(packages):
    """The Debian packages of PACKAGES ({module: package}) whose module does not import."""
    missing = []
    for module, package in packages.items():
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    return missing


def check_packages(packages, program):
    """69 after one line naming the missing packages (and how to install them), else 0."""
    missing = missing_packages(packages)
    if not missing:
        return 0
    print(f"{program}: needs the Debian package{'s' * (len(missing) > 1)} "
          f"{' and '.join(missing)} (apt-get install {' '.join(missing)}; "
          f"run it with /usr/bin/python3)", file=sys.stderr)
    return 69


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, but a usage error exits 64 (EX_USAGE) after one line naming it, as the
    heed tools do, not argparse's 2 after the usage text."""

    def error(self, message):
        self.exit(64, f"{self.prog}: {message} (see --help)\n")


# --- result tables and numbers --------------------------------------------------------------------
DASH = "—"  # a figure that is not there


def read_tsv(path, required=True):
    """The rows of a TSV file with a header as dicts, '#' comment lines left out; None for a file
    not there that is not REQUIRED (FileNotFoundError for one that is)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = [line for line in f if line.strip() and not line.startswith("#")]
    except FileNotFoundError:
        if required:
            raise
        return None
    return list(csv.DictReader(lines, delimiter="\t"))


def number(text):
    """TEXT as a finite float, or None ('-', 'n/a', '', nan)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def num(value, digits=2):
    return DASH if value is None else f"{value:.{digits}f}"


def pm(values, digits=2, signed=False):
    """The mean ± standard deviation of the seeds' values; one seed's value alone. SIGNED: the
    mean with its sign, as a difference is written."""
    if not values:
        return DASH
    sign = "+" if signed else ""
    if len(values) == 1:
        return f"{values[0]:{sign}.{digits}f}"
    return f"{statistics.mean(values):{sign}.{digits}f} ± {statistics.stdev(values):.{digits}f}"


def markdown_table(header, rows, align=""):
    """A Markdown table; ALIGN has a letter per column, r for right-aligned (the rest: left)."""
    marks = ["---:" if a == "r" else "---" for a in align.ljust(len(header), "l")]
    return "\n".join(["| " + " | ".join(str(c) for c in line) + " |"
                      for line in [header, marks] + list(rows)])


# --- plots ----------------------------------------------------------------------------------------
# SVG that is the same byte for byte on every run: fixed ids (the salt), no date, text as text.
SVG_STYLE = {"svg.fonttype": "none", "font.family": "sans-serif", "font.size": 10,
             "axes.spines.top": False, "axes.spines.right": False}


def chart(path, draw, x_label, y_label, title, salt, **legend):
    """A figure whose axes DRAW(axes) fills, labelled, its legend placed by LEGEND, written
    atomically to PATH as SVG; SALT fixes the ids (a study's own)."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure  # not pyplot: no global figures, no GUI
    with matplotlib.rc_context({**SVG_STYLE, "svg.hashsalt": salt}):
        figure = Figure(figsize=(6.4, 4.0))
        axes = figure.add_subplot()
        draw(axes)
        axes.set_xlabel(x_label)
        axes.set_ylabel(y_label)
        axes.set_title(title, loc="left")
        axes.grid(axis="y", color="#dddddd")
        axes.legend(frameon=False, **legend)
        figure.savefig(path + ".tmp", format="svg", bbox_inches="tight", metadata={"Date": None})
    os.replace(path + ".tmp", path)


# --- heed-score's and heed-align score's multi-run comparisons ------------------------------------
# The family-wise level the tools' Holm-adjusted p-values are read at.
ALPHA = 0.05
# A verdict resting on this many runs a side or fewer is marked provisional: a seed part from two
# or three runs is too uncertain for a bootstrap to show (t's 97.5 % point over seeds alone is
# 12.7 with two runs, 4.3 with three).
PROVISIONAL_RUNS = 3
# The tools' metric names and how a page writes them.
METRICS = {"BLEU": "BLEU", "chrF2": "chrF"}


def pvalue(text):
    """heed-score's p-value: (value, is_bound) — "< 0.001" is below the resampling floor."""
    if text is None:
        return None, False
    text = text.strip()
    if text.startswith("<"):
        return number(text[1:]), True
    return number(text), False


def p_phrase(label, text):
    """"p = 0.0040", or "p < 0.001" for heed-score's "< 0.001" (below the resampling floor)."""
    text = text.strip()
    return f"{label} {text}" if text.startswith("<") else f"{label} = {text}"


class Comparison:
    """One row of heed-score --system's TSV: a configuration against its family's baseline."""

    def __init__(self, row, baseline, margin):
        self.system = row["system"]
        self.metric = row["metric"]
        self.baseline = baseline
        self.runs = int(row["runs"])
        self.baseline_runs = None
        self.baseline_seeded = True  # False: a baseline without seeds (the diagonal), one run
        self.difference = number(row["difference"])
        self.low, self.high = number(row["ci95_low"]), number(row["ci95_high"])
        self.p_text, self.p_holm_text, self.tost_text = row["p_value"], row["p_holm"], row["tost_p"]
        self.p_holm, self.p_holm_bound = pvalue(row["p_holm"])
        # heed-score from 2026-12-04 on: the TOST p Holm-adjusted over the family as the
        # differences are, "equivalent" decided by it, and Welch's interval over the runs' scores
        # alone (seeds, not sentences) beside the hierarchical one; "-" where a side has one run.
        # Older files lack the columns: the unadjusted TOST, no seed-level interval.
        self.tost_adjusted = "tost_p_holm" in row
        if self.tost_adjusted:
            self.tost_text = row["tost_p_holm"]
        self.equivalent = row["equivalent"] == "yes"
        self.seed_low, self.seed_high = number(row.get("welch_low")), number(row.get("welch_high"))
        self.seed_p_holm_text = row.get("welch_p_holm")
        self.margin = margin

    @property
    def significant(self):
        if self.p_holm is None:
            return False
        # "< x": below the resampling floor x, so below ALPHA whenever x is at most ALPHA.
        return self.p_holm <= ALPHA if self.p_holm_bound else self.p_holm < ALPHA

    @property
    def interval(self):
        return f"{self.difference:+.2f} [{self.low:+.2f}, {self.high:+.2f}]"

    @property
    def seed_interval(self):
        """Welch's 95 % interval over the runs' scores alone, "[low, high]" (None: a side has one
        run, or the file is older than the column)."""
        if self.seed_low is None or self.seed_high is None:
            return None
        return f"[{self.seed_low:+.2f}, {self.seed_high:+.2f}]"

    def flipped(self):
        """The same comparison read the other way round (the baseline minus this system): the
        difference and both intervals negated; p-values and verdicts are symmetric."""
        other = copy.copy(self)
        other.difference, other.low, other.high = -self.difference, -self.high, -self.low
        if self.seed_low is not None and self.seed_high is not None:
            other.seed_low, other.seed_high = -self.seed_high, -self.seed_low
        other.system, other.baseline = self.baseline, self.system
        return other

    @property
    def provisional(self):
        """A verdict on at most PROVISIONAL_RUNS runs a side (a seeded baseline's counted): its
        seed part rests on so few runs that it is marked, whatever its p."""
        sides = [self.runs] + ([self.baseline_runs or 0] if self.baseline_seeded else [])
        return min(sides) <= PROVISIONAL_RUNS

    @property
    def runs_text(self):
        """"5 and 5 runs", the two sides' (one side for a baseline without seeds)."""
        if not self.baseline_seeded:
            return f"{self.runs} run{'s' * (self.runs != 1)}"
        return f"{self.runs} and {self.baseline_runs} runs"

    @property
    def verdict(self):
        """The comparison in words, from the statistics (the page's wording never hard-codes it)."""
        unit = METRICS.get(self.metric, self.metric)
        margin = f"±{self.margin:g} {unit}"
        holm, tost = p_phrase("Holm p", self.p_holm_text), p_phrase("TOST p", self.tost_text)
        if self.equivalent and self.significant:
            text = (f"level: within {margin} ({tost}), though not identical: {self.interval}, "
                    f"{holm}")
        elif self.equivalent:
            text = f"level: within {margin} ({tost}); {self.interval}"
        elif self.significant:
            side = "higher" if self.difference > 0 else "lower"
            text = (f"differs: {abs(self.difference):.2f} {unit} {side} "
                    f"[{self.low:+.2f}, {self.high:+.2f}] ({holm})")
        else:
            text = (f"undecided: {self.interval}; neither a difference ({holm}) nor equivalence "
                    f"within {margin} ({tost})")
        if self.seed_interval:
            text += f"; over seeds alone {self.seed_interval}"
        if self.runs < 2 or (self.baseline_seeded and (self.baseline_runs or 0) < 2):
            text += " (†)"
        elif self.provisional:
            text += f" (provisional: {self.runs_text})"
        return text

    @property
    def verdict_word(self):
        """"differs", "level" or "undecided", with "provisional" after it where it is."""
        word = self.verdict.split(":", 1)[0]
        return f"{word}, provisional" if self.provisional and not self.one_run else word

    @property
    def one_run(self):
        return self.runs < 2 or (self.baseline_seeded and (self.baseline_runs or 0) < 2)

    @property
    def cell(self):
        """The comparison in a table's cell: "+0.32 [-0.16, +0.81] undecided", † as above."""
        return f"{self.interval} {self.verdict_word}{' †' if self.one_run else ''}"

    @property
    def number_cell(self):
        """The comparison as an exploratory cell, numbers without a verdict word: the
        difference, its interval, and over seeds alone where there is one."""
        seeds = f"; seeds {self.seed_interval}" if self.seed_interval else ""
        return f"{self.interval}{seeds}{' †' if self.one_run else ''}"


def read_comparisons(file, margin, baseline_seeded=True):
    """The rows of one heed-score or heed-align score --system TSV: {(system, metric):
    Comparison} against its first system, the baseline, which has no row of its own."""
    return read_comparisons_rows(read_tsv(file), margin, baseline_seeded)


def read_comparisons_rows(rows, margin, baseline_seeded=True):
    """read_comparisons of the rows already read."""
    table = {}
    for row in rows:
        if row["difference"] in ("-", ""):
            continue
        comparison = Comparison(row, rows[0]["system"], margin)
        comparison.baseline_seeded = baseline_seeded
        comparison.baseline_runs = next(int(b["runs"]) for b in rows
                                        if b["system"] == rows[0]["system"]
                                        and b["metric"] == row["metric"])
        table[(row["system"], row["metric"])] = comparison
    return table
