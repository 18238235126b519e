#!/usr/bin/python3
"""Writes docs/ablation.md and its plots from the ablation's result files (the Snakefile's page).

Every number in the page comes from RESULTS (README.md and the Snakefile's rules say what writes
each file): settings.tsv,
plan.tsv, runs.tsv, scores.tsv, curves/*.tsv, lr-choice.tsv, compare/FAMILY.SET.tsv (heed-score
--system --format tsv), skipped.tsv, and when the cost stage ran cost-length.tsv, cost-hidden.tsv,
stats.tsv and machine.txt, when the probes ran saturation.tsv, parameters.tsv, long.tsv,
long-set.tsv and long/ID.tsv, silver.tsv and silver-baselines.tsv, counterpart/ID.tsv, when the
share stage ran share/MECHANISM.MODE.tsv, protocol-changes.md if the protocol changed during the
study (and the pooling study's tables, experiments/pooling/results/, for question 3,
experiments/alignment-hansards/results: silver.tsv for how silver links agree with gold,
compare/*.tsv for the mechanisms' attention against each other on gold). The page is regenerated
after every finished run, so a configuration without runs yet prints "—" or is left out of a
table, and a comparison without both sides is not made; a result file that the workflow always
writes and that is missing is an error naming it.

The page is the Jinja2 template ablation.md.j2, rendered with
  r        a Results: r.status, r.settings.updates, r.tests (the test sets and "pooled"),
           r.bleu('general', 'test2016'), r.chrf(...), r.ppl('dot'), r.cmp('general', 'pooled',
           'BLEU'), r.verdict('general', 'pooled', 'BLEU'), r.cost('dot', 20), … (the methods
           below say what each reads)
  tables   the Markdown tables: bleu, chrf, training, lr_check, skipped, comparisons (one per
           family, by name), arrangements, sweep, cost_length, bytes_length, cost_hidden, stats,
           saturation, parameters,
           long, silver, counterpart, share, and for question 3 the pooling study's
           pooling_paper (Raffel & Ellis's Table 1 beside heed's runs), pooling_controls (the dense
           controls) and pooling_positions
           (trained with the markers at some positions, tested at others), rendered by
           experiments/pooling/report.py ("" until the study has those rows)
  literature  literature.md beside the template (hand-written, with its sources), as it is
  plots    the plots' Markdown links: curves_ppl, curves_bleu, sweep, silver_curves, by_length
           (SVGs drawn by matplotlib into RESULTS)
  answers  the answers written by hand from this study's results, RESULTS/answers.md.j2: a
           Jinja2 macro per answer (ANSWERS names them), rendered with the context above; {}
           without the file (another study, or before its answers are written)
and numbers are formatted in the template by the filters num(digits), sig(digits), thousands
and pm(digits) (mean ± standard deviation over seeds; mean, the mean alone, goes through num). A
name the context does not have, a configuration the study does not know and a number printed
without a filter are errors naming the template's line, never an empty or invented figure.

Needs Debian's python3-jinja2 and python3-matplotlib: run it with /usr/bin/python3. --check only
says whether they are there. Exits 69 naming a missing package, 66 naming a missing result file,
65 for a template that asks for what the results do not hold.
"""
import csv
import functools
import glob
import gzip
import itertools
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import page as common  # noqa: E402  (experiments/common/page.py)
# heed-score's and heed-align score's --system files, read as every study reads them.
from comparisons import METRICS, read_comparisons, read_comparisons_rows  # noqa: E402
from comparisons import Comparison  # noqa: E402,F401  (report.Comparison, for the tests)
import importlib.util
import traceback

# Question 3's tables are the pooling study's own (experiments/pooling/report.py), imported by
# path: both scripts are named report.py.
_spec = importlib.util.spec_from_file_location(
    "pooling_report", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pooling",
                                   "report.py"))
POOLING_REPORT = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(POOLING_REPORT)

try:
    import jinja2
except ImportError:
    jinja2 = None
try:
    import matplotlib
except ImportError:
    matplotlib = None

# The Python modules the report needs and the Debian packages that hold them.
PACKAGES = {"jinja2": "python3-jinja2", "matplotlib": "python3-matplotlib"}
MECHANISMS = ["none", "dot", "scaled-dot", "general", "additive", "multi-head", "location",
              "local-m", "local-p", "linear"]
# Result files the workflow always writes, and the Snakefile's rule that writes them.
REQUIRED = {"settings.tsv": "ablation_settings", "plan.tsv": "plan", "runs.tsv": "ablation_run",
            "scores.tsv": "ablation_run"}
DASH = "—"


class ReportError(Exception):
    """Something the template asks for that the results cannot give (exit 65)."""
    exit_code = 65


class MissingInput(ReportError):
    """A result file or the template not there (exit 66)."""
    exit_code = 66


def missing_packages():
    modules = {"jinja2": jinja2, "matplotlib": matplotlib}
    return [package for module, package in PACKAGES.items() if modules[module] is None]


def read_lines(path, required=True):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readlines()
    except FileNotFoundError:
        if not required:
            return None
        stage = REQUIRED.get(os.path.basename(path))
        where = "" if stage is None else f" (the Snakefile's rule {stage} writes it)"
        raise MissingInput(f"{path} not found{where}") from None


def read_tsv(path, required=True):
    """Rows of a TSV file as dicts, '#' comment lines skipped; None for an optional file absent."""
    lines = read_lines(path, required)
    if lines is None:
        return None
    lines = [line for line in lines if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def numbers(rows, column):
    """COLUMN's values in ROWS that are numbers ('n/a', '-' and empty cells left out)."""
    return [v for v in (number(row.get(column)) for row in rows) if v is not None]


# --- formatting: the template's filters, also used by the tables ----------------------------------

def num(value, digits=2):
    return DASH if value is None else f"{value:.{digits}f}"


def sig(value, digits=2):
    return DASH if value is None else f"{value:.{digits}g}"


def thousands(value):
    """A number with thousands separators; text that is no number as written."""
    if isinstance(value, str):
        return value if number(value) is None else f"{float(value):,.0f}"
    return DASH if value is None else f"{value:,.0f}"


def pm(values, digits=2, signed=False):
    """The mean ± standard deviation of the seeds' values; one seed's value alone. SIGNED: the
    mean with its sign, as a difference is written."""
    if not values:
        return DASH
    sign = "+" if signed else ""
    if len(values) == 1:
        return f"{values[0]:{sign}.{digits}f}"
    return f"{statistics.mean(values):{sign}.{digits}f} ± {statistics.stdev(values):.{digits}f}"


def mean(values):
    return statistics.mean(values) if values else None


# Student's t, 0.975 quantile, by degrees of freedom (index 0 unused).
T_975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]

FILTERS = {"num": num, "sig": sig, "thousands": thousands, "pm": pm, "mean": mean}


def finalize(value):
    """What {{ … }} prints: text and counts as they are, None as a dash, never a bare float."""
    if value is None:
        return DASH
    if isinstance(value, (str, int, jinja2.Undefined)):
        return value  # an Undefined raises when printed, naming what is missing
    raise ReportError(f"{value!r} printed without a format: give it a filter "
                      f"({', '.join(FILTERS)})")


# --- the figures ----------------------------------------------------------------------------------

def span(values, digits=1, unit=""):
    """The range of VALUES as "low–high", or one figure when they agree to DIGITS."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"{low}{unit}" if low == high else f"{low}–{high}{unit}"


def group_words(group):
    """A row of length-groups.tsv as its source lengths: "3–7", or "10" for one length."""
    if group["shortest"] == group["longest"]:
        return group["shortest"]
    return f"{group['shortest']}–{group['longest']}"


class Results:
    """The result files of one study, and the figures the page quotes from them."""

    def __init__(self, directory, pooling, alignment=None):
        self.dir = directory
        self.second = None  # the second setting's Results, where it has runs (main)

        def path(name):
            return os.path.join(directory, name)

        self.settings, self.test_sets = {}, []
        for line in read_lines(path("settings.tsv")):
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "test" and len(fields) >= 3:
                self.test_sets.append({"name": fields[1], "sentences": int(fields[2])})
            elif len(fields) >= 2:
                self.settings[fields[0]] = fields[1]
        self.tests = [t["name"] for t in self.test_sets] + ["pooled"]
        self.plan = read_tsv(path("plan.tsv"))
        # id → {family (its own), families (its own and those it joins), stage, hidden, options,
        # seeds}, in plan order
        self.configs = {}
        baselines = {}  # family → the configuration that names it with a '+'
        for row in self.plan:
            names = row["family"].split(",")
            families = [f.lstrip("+") for f in names]
            baselines.update({f[1:]: row["id"] for f in names if f.startswith("+")})
            config = self.configs.setdefault(row["id"], {
                "family": families[0], "families": families, "stage": row["stage"],
                "hidden": row["hidden"], "options": row["options"], "seeds": set()})
            if row["stage"] != "lr-check":
                config["stage"] = row["stage"]
                config["seeds"].add(row["seed"])
        # family → [ids]: the baseline (the configuration that names it with a '+', else the
        # first, as plan.py's family_ids) first, then the others, their own or joined, in order
        self.families = {family: [] for config in self.configs.values()
                         for family in config["families"][:1]}  # the own ones first, in order
        for family in sorted({f for c in self.configs.values() for f in c["families"][1:]}):
            self.families.setdefault(family, [])  # then those only joined, by name
        for config_id, config in self.configs.items():
            for family in config["families"]:
                self.families[family].append(config_id)
        for family, ids in self.families.items():
            if family in baselines:
                ids.remove(baselines[family])
                ids.insert(0, baselines[family])
        self.runs = read_tsv(path("runs.tsv"))
        self.scores = {}
        for row in read_tsv(path("scores.tsv")):
            self.scores[(row["id"], row["seed"], row["lr"], row["test"])] = row
        self.lr_choice = read_tsv(path("lr-choice.tsv"), required=False) or []
        self.skipped = read_tsv(path("skipped.tsv"), required=False) or []
        self.margin = number(self.settings.get("margin")) or 0.5
        self.compare = {}  # (family, test) → {(system, metric): Comparison}
        for file in sorted(glob.glob(path("compare/*.tsv"))):
            family, _, test = os.path.basename(file)[:-4].rpartition(".")
            self.compare[(family, test)] = read_comparisons(file, self.margin)
        # The kept argmax links against the silver links: FAMILY or "diagonal" → {system: ...}.
        aer_margin = number(self.settings.get("aer_margin")) or 1
        self.silver_compare = {
            os.path.basename(file)[:-4]: {
                system: c for (system, _), c in read_comparisons(
                    file, aer_margin, os.path.basename(file) != "diagonal.tsv").items()}
            for file in sorted(glob.glob(path("silver-compare/*.tsv")))}
        self.curves = {}
        for file in glob.glob(path("curves/*.tsv")):
            self.curves[os.path.basename(file)[:-4]] = read_tsv(file)
        self.cost_length = read_tsv(path("cost-length.tsv"), required=False)
        self.cost_hidden = read_tsv(path("cost-hidden.tsv"), required=False)
        self.stats = read_tsv(path("stats.tsv"), required=False)
        # The probes (stage "probes") and the phase benchmarks (stage "share").
        self.saturation = read_tsv(path("saturation.tsv"), required=False) or []
        self.parameters = read_tsv(path("parameters.tsv"), required=False) or []
        self.long = read_tsv(path("long.tsv"), required=False) or []
        self.long_set = read_tsv(path("long-set.tsv"), required=False) or []
        self.long_length = read_tsv(path("long-length.tsv"), required=False) or []
        self.long_forced = read_tsv(path("long-forced.tsv"), required=False) or []
        self.beam = read_tsv(path("beam.tsv"), required=False) or []
        # The pooled set by source length (stage stats): the groups, and per group and family
        # heed-score's rows (the systems' mean and sd as well as the comparisons).
        self.length_groups = read_tsv(path("length-groups.tsv"), required=False) or []
        self.length_rows = {}  # (family, group) → [rows of compare/FAMILY.length-K.tsv]
        for file in sorted(glob.glob(path("compare/*.length-*.tsv"))):
            family, _, name = os.path.basename(file)[:-4].rpartition(".")
            self.length_rows[(family, name[len("length-"):])] = read_tsv(file)
        self.long_drop = {}  # id → {metric: Comparison of whole against one by one}
        for file in sorted(glob.glob(path("long/*.tsv"))):
            for (_, metric), comparison in read_comparisons(file, self.margin).items():
                self.long_drop.setdefault(os.path.basename(file)[:-4], {})[metric] = comparison
        self.counterpart = {}  # mechanistic check → {metric: Comparison with its counterpart}
        for file in sorted(glob.glob(path("counterpart/*.tsv"))):
            for (system, metric), comparison in read_comparisons(file, self.margin).items():
                self.counterpart.setdefault(system, {})[metric] = comparison
        self.silver = read_tsv(path("silver.tsv"), required=False) or []
        self.silver_baselines = read_tsv(path("silver-baselines.tsv"), required=False) or []
        # Alignment along training: {(id, seed, lr): {step: AER}} of the runs read at every
        # validation's model (silver-curves.tsv).
        self.silver_curves = {}
        for row in read_tsv(path("silver-curves.tsv"), required=False) or []:
            aer = number(row["aer"])
            if aer is not None:
                self.silver_curves.setdefault((row["id"], row["seed"], row["lr"]), {})[
                    int(row["step"])] = aer
        # The Hansards alignment study: how silver links agree with gold where both exist
        # (silver.tsv), and the mechanisms' attention compared on gold (compare/NAME.tsv, NAME the
        # baseline: dot, diagonal, aligner; AER margin 1 as study.sh compares; one run of a
        # deterministic baseline is all it has).
        self.silver_check, self.gold_compare, self.gold_unrescaled = {}, {}, set()
        if alignment:
            self.silver_check = {row["set"]: row for row in (read_tsv(
                os.path.join(alignment, "silver.tsv"), required=False) or [])}
            for file in sorted(glob.glob(os.path.join(alignment, "compare", "*.tsv"))):
                name = os.path.basename(file)[:-4]
                if name != "left-out":
                    self.gold_compare[name] = {system: c for (system, _), c in read_comparisons(
                        file, 1, name == "dot").items()}
                    if not common.runs_rescaled(file):
                        self.gold_unrescaled.add(name)
        # (mechanism, mode) → [one round: {"phases": {phase: row}, "notes": ["# …" lines]}]
        self.share = {}
        for file in sorted(glob.glob(path("share/*.tsv"))):
            stem = os.path.basename(file)[:-4]
            match = re.fullmatch(r"(.+)\.(train|greedy|beam5)(?:\.r\d+)?", stem)
            if not match:
                continue
            lines = read_lines(file)
            self.share.setdefault((match.group(1), match.group(2)), []).append({
                "phases": {row["phase"]: row for row in read_tsv(file)},
                "notes": [line[2:].strip() for line in lines if line.startswith("# ")]})
        # The pooling study's parts, as its own report reads them: {part: rows}.
        self.pooling = {}
        for name, _ in POOLING_REPORT.PARTS:
            file = os.path.join(pooling, f"{name}.tsv") if pooling else None
            if file and os.path.exists(file):
                self.pooling[name] = POOLING_REPORT.read_rows(file)
        # Changes made to the protocol while the study ran, written by hand (a study that
        # changes nothing has no such file): the page prints them under its setup.
        changes = read_lines(path("protocol-changes.md"), required=False) or []
        self.protocol_changes = "".join(changes).strip()
        machine = read_lines(path("machine.txt"), required=False) or []
        self.machine = "; ".join(line.strip("# \n") for line in machine if line.strip()) or DASH
        # heed-bench-attn writes "# growth<TAB>mechanism<TAB>…<TAB>exponent<TAB>points".
        self.growth = {}
        for line in read_lines(path("cost-length.tsv"), required=False) or []:
            if line.startswith("# growth\t"):
                fields = line.rstrip("\n").split("\t")
                if number(fields[-2]) is not None:
                    self.growth[fields[1]] = float(fields[-2])

    # The study.
    def planned_rate(self, row):
        """The rate of a planned run (a row of plan.tsv) as its row in runs.tsv gives it: "chosen"
        and "chosen:ID" are the compared rate, "chosen:ID*F" its own check's run at factor F (None
        until its check is chosen)."""
        spec = row["lr"]
        if not spec.startswith("chosen"):
            return spec
        if "*" in spec:
            factor = number(spec.rsplit("*", 1)[1])
            return next((c["lr"] for c in self.lr_choice
                         if c["id"] == row["id"] and number(c["factor"]) == factor), None)
        return self.lr(row["id"])

    @property
    def done(self):
        """The planned runs that have a row in runs.tsv (a row the plan no longer holds, such as a
        run at a rate the protocol later changed, is counted apart: outside_plan)."""
        finished = {(row["id"], row["seed"], row["lr"]) for row in self.runs}
        return sum((row["id"], row["seed"], self.planned_rate(row)) in finished for row in self.plan)

    @property
    def outside_plan(self):
        return len(self.runs) - self.done

    @property
    def planned(self):
        # plan.tsv, not settings.tsv's planned_runs: `snakemake plan` rewrites the plan alone when
        # runs are added, and the page must count them at once.
        return len(self.plan)

    @property
    def status(self):
        failed = sum(row["status"] != "ok" for row in self.runs)
        text = f"{self.done} of {self.planned} runs done"
        if failed:
            text += f" ({failed} failed: their rows in `runs.tsv` say how)"
        if self.outside_plan > 0:
            text += (f", and {self.outside_plan} outside the plan, kept in `runs.tsv` (a run the "
                     f"protocol's changes left behind: `protocol-changes.md`)")
        return text

    @property
    def cpus(self):
        """The CPUs the finished runs trained on, each with its number of runs, in the order
        first seen: oneDNN chooses its kernels by CPU, so where there are several a run is a
        function of its seed and of its machine's kernels."""
        counts = {}
        for row in self.runs:
            counts[row["cpu"]] = counts.get(row["cpu"], 0) + 1
        return list(counts.items())

    @property
    def repeats(self):
        """Pairs of finished runs that are one run under two names: the same options (a rate an
        option fixes aside), hidden size, seed and rate. On one CPU they must agree to the last
        digit; on two, their difference is what the kernels change."""
        first, pairs = {}, []
        for row in self.runs:
            config = self.configs.get(row["id"])
            if row["status"] != "ok" or config is None:
                continue
            options = tuple(re.sub(r"(?:^|\s)--lr\s+\S+", " ", config["options"]).split())
            key = (options, config["hidden"], row["seed"], row["lr"])
            if key in first and first[key]["id"] != row["id"]:
                pairs.append((first[key], row))
            first.setdefault(key, row)
        return pairs

    def repeat_spread(self, first, again, column):
        """For a run repeated on another CPU (FIRST, then AGAIN): COLUMN's values (best_val_ppl,
        or bleu: pooled) over AGAIN's configuration's runs on AGAIN's CPU at its rate, how many
        of their standard deviations FIRST's value lies from their mean, and the half width of
        the 95 % prediction interval of one more run in the same unit (None, None under 2)."""
        rows = [row for row in self.rows(again["id"], again["lr"]) if row["cpu"] == again["cpu"]]
        def value(row):
            return number(row[column]) if column != "bleu" else self.run_score(row, "bleu")
        values = [value(row) for row in rows]
        if len(values) < 2 or statistics.stdev(values) == 0:
            return values, None, None
        n = len(values)
        # The 95 % prediction interval of one more run, in standard deviations: t's 0.975
        # quantile with n − 1 degrees of freedom times √(1 + 1/n).
        t = T_975[n - 1] if n - 1 < len(T_975) else 1.96 + 2.4 / (n - 1)
        return (values, (value(first) - statistics.mean(values)) / statistics.stdev(values),
                t * math.sqrt(1 + 1 / n))

    def run_score(self, row, column, test="pooled"):
        """A finished run's score (bleu or chrf) on TEST, from scores.tsv."""
        cell = self.scores.get((row["id"], row["seed"], row["lr"], self.check_test(test)))
        value = number(cell[column]) if cell else None
        if value is None:
            raise ReportError(f"{row['id']} seed {row['seed']} lr {row['lr']}: no {test} "
                              f"{column} in scores.tsv")
        return value

    @property
    def test_list(self):
        return ", ".join(f"{t['name']} ({t['sentences']:,} sentences)" for t in self.test_sets)

    @property
    def total_minutes(self):
        return sum(numbers(self.runs, "minutes"))

    # Configurations and their runs.
    def check(self, config_id):
        if config_id not in self.configs:
            raise ReportError(f"unknown configuration '{config_id}'")
        return config_id

    def check_test(self, test):
        if test not in self.tests:
            raise ReportError(f"unknown test set '{test}' (the study's: {', '.join(self.tests)})")
        return test

    def lr(self, config_id):
        """The learning rate of the configuration's compared runs: the choice of the check that
        sets it, as plan.tsv names it ("chosen" or "chosen:ID*F": its own; "chosen:ID": ID's),
        the study's rate without one."""
        owner = config_id if self.configs[self.check(config_id)]["stage"] == "core" else None
        for row in self.plan:
            if row["id"] == config_id and row["lr"].startswith("chosen"):
                owner = (config_id if row["lr"] == "chosen" or "*" in row["lr"]
                         else row["lr"][len("chosen:"):])
                break
        if owner is None:  # a rate its options fix, else the study's: the plan's
            return next(row["lr"] for row in self.plan if row["id"] == config_id)
        for row in self.lr_choice:
            if row["id"] == owner and row["chosen"] == "yes":
                return row["lr"]
        return self.settings.get("lr")

    def check_bleu(self, choice):
        """The validation BLEU of a check's run (a row of lr-choice.tsv) at its best perplexity,
        or None (failed, unfinished)."""
        seed = next((row["seed"] for row in self.plan
                     if row["id"] == choice["id"] and row["stage"] == "lr-check"), None)
        run = next((row for row in self.runs if row["id"] == choice["id"] and row["seed"] == seed
                    and row["lr"] == choice["lr"] and row["status"] == "ok"), None)
        return number(run["best_val_bleu"]) if run else None

    @property
    def rate_disagreements(self):
        """The finished checks where the validation BLEU would have chosen another rate than the
        perplexity did: [(id, the chosen rate, its BLEU, the rate of the best BLEU, that BLEU)]."""
        found = []
        for config_id, choice in {**checks(self, carried=False), **checks(self, carried=True)}.items():
            if not all(row["best_val_ppl"] for row in choice):
                continue  # unfinished
            chosen = next((row["lr"] for row in choice if row["chosen"] == "yes"), None)
            scored = [(self.check_bleu(row), row["lr"]) for row in choice]
            scored = [(bleu, lr) for bleu, lr in scored if bleu is not None]
            if chosen and scored:
                best_bleu, best = max(scored)
                chosen_bleu = next((bleu for bleu, lr in scored if lr == chosen), None)
                if best != chosen and chosen_bleu is not None:
                    found.append((config_id, chosen, chosen_bleu, best, best_bleu))
        return found

    def rows(self, config_id, lr=None):
        """Its finished runs at LR (default: the compared rate), failed ones left out."""
        lr = lr or self.lr(config_id)
        return [row for row in self.runs
                if row["id"] == config_id and row["lr"] == lr and row["status"] == "ok"]

    def seeds(self, config_id):
        return len(self.rows(config_id))

    def planned_seeds(self, config_id):
        return len(self.configs[self.check(config_id)]["seeds"])

    def complete(self, stage, seeds=None):
        """Whether every configuration of STAGE has a row for each planned seed at its compared
        rate, finished or failed: what an answer that rests on the stage waits for. SEEDS: for
        its first SEEDS seeds only (an answer written when the stage had that many, whose later
        seeds add to it rather than complete it)."""
        rates = {c: self.lr(c) for c, config in self.configs.items() if config["stage"] == stage}
        return bool(rates) and all(
            sum(row["id"] == c and row["lr"] == lr for row in self.runs) >=
            min(self.planned_seeds(c), seeds or self.planned_seeds(c))
            for c, lr in rates.items())

    def best_at_budget(self, config_id):
        """How many of its compared runs had their best validation at their last update, the
        budget's end: still improving when it ran out, so maybe short of their best."""
        return sum(row["stop"] == "budget" and row["best_step"] == row["steps"]
                   for row in self.rows(config_id))

    def score(self, config_id, test, column):
        test = self.check_test(test)
        values = []
        for row in self.rows(config_id):
            cell = self.scores.get((row["id"], row["seed"], row["lr"], test))
            value = number(cell[column]) if cell else None
            if value is not None:
                values.append(value)
        return values

    def bleu(self, config_id, test="pooled"):
        return self.score(config_id, test, "bleu")

    def chrf(self, config_id, test="pooled"):
        return self.score(config_id, test, "chrf")

    def values(self, config_id, column):
        return numbers(self.rows(config_id), column)

    def ppl(self, config_id):
        return self.values(config_id, "best_val_ppl")

    def best_step(self, config_id):
        return self.values(config_id, "best_step")

    def converged_step(self, config_id):
        return self.values(config_id, "converged_step")

    def early_stops(self, config_id):
        return sum(row["stop"] == "early-stop" for row in self.rows(config_id))

    def family(self, config_id):
        return self.configs[self.check(config_id)]["family"]

    def cmp(self, config_id, test="pooled", metric="BLEU", family=None):
        """Its comparison with the baseline of its family (or of FAMILY, one it joins) on TEST
        (None until both have runs)."""
        if family is None:
            family = self.family(config_id)
        elif config_id not in self.families.get(family, [])[1:]:
            raise ReportError(f"'{config_id}' is not compared in family '{family}'")
        if metric not in METRICS:
            raise ReportError(f"unknown metric '{metric}' (BLEU or chrF2)")
        return self.compare.get((family, self.check_test(test)), {}).get((config_id, metric))

    def verdict(self, config_id, test="pooled", metric="BLEU", family=None):
        comparison = self.cmp(config_id, test, metric, family)
        if comparison is None:
            baseline = self.families[family or self.family(config_id)][0]
            return (f"not compared yet (`{config_id}` has {self.seeds(config_id)} finished runs, "
                    f"`{baseline}` {self.seeds(baseline)})")
        return comparison.verdict

    def silver_verdict(self, config_id, against="family"):
        """Its argmax links against its family's baseline's ("family") or the diagonal's
        ("diagonal"), scored on the silver links (silver-compare/*.tsv)."""
        name = self.family(config_id) if against == "family" else against
        comparison = self.silver_compare.get(name, {}).get(config_id)
        if comparison is None:
            return "not compared yet (links kept for the compared runs of both needed)"
        return comparison.verdict

    def gold_verdict(self, config_id, against="dot"):
        """Its attention as the Hansards study compares it on gold: against `dot`'s, the
        diagonal's or the classic aligner's (its compare/AGAINST.tsv)."""
        comparison = self.gold_compare.get(against, {}).get(config_id)
        if comparison is None:
            return "not compared yet (the Hansards study's compare stage)"
        verdict = f"{comparison.verdict} (against `{comparison.baseline}`)" \
            if against == "aligner" else comparison.verdict
        return verdict + (" ‡" if against in self.gold_unrescaled else "")

    # Cost: forward+backward ms of one batch's attention (cost-*.tsv).
    def cost(self, mechanism, length):
        return cost_at(self.cost_length, check_mechanism(mechanism), "source_length", length)

    def cost_d(self, mechanism, hidden):
        return cost_at(self.cost_hidden, check_mechanism(mechanism), "hidden", hidden)

    def cost_mb(self, mechanism, length):
        """The working buffers of one batch's attention at source length LENGTH, MB."""
        found = cost_at(self.cost_length, check_mechanism(mechanism), "source_length", length,
                        "bytes")
        return None if found is None else found / 1e6

    def cost_ratio(self, a, b, length):
        return ratio(self.cost(a, length), self.cost(b, length))

    def cost_growth(self, mechanism, short, long):
        return ratio(self.cost(mechanism, long), self.cost(mechanism, short))

    @staticmethod
    def cost_mode(rows):
        """What a cost file times, from its own columns: mode, pass, precision, batch, T."""
        if not rows:
            return DASH
        first = rows[0]
        keys = ["mode", "pass", "precision", "batch", "target_length", "threads"]
        if any(k not in first for k in keys):
            return "(the file does not say its mode)"
        return (f"`--mode {first['mode']} --pass {first['pass']}`, {first['precision']}, "
                f"batch {first['batch']}, {first['target_length']} target steps, "
                f"{first['threads']} threads")

    @property
    def cost_length_mode(self):
        return self.cost_mode(self.cost_length)

    @property
    def cost_hidden_mode(self):
        return self.cost_mode(self.cost_hidden)

    def silver_vs_gold(self, name, column="aer"):
        """A figure of the Hansards study's silver-against-gold check (None when not there)."""
        row = self.silver_check.get(name)
        return number(row.get(column)) if row else None

    @property
    def long_summary(self):
        """What the long inputs are, from long-set.tsv."""
        words = [int(r["words"]) for r in self.long_set]
        joins = [int(r["sentences"]) for r in self.long_set]
        if not words:
            return "No long inputs yet (stage \"probes\")"
        text = (f"{len(words):,} inputs of {min(words)}–{max(words)} source words (median "
                f"{statistics.median(words):g}), each {min(joins)}–{max(joins)} consecutive "
                f"sentences of {self.test_sets[0]['name']} joined")
        # Sentences are joined until the input reaches the least length: with short sentences
        # the inputs end well below the most allowed, and the lengths between are not probed.
        low, high = number(self.settings.get("long_min")), number(self.settings.get("long_max"))
        if low is not None and high is not None and max(words) < high:
            text += (f" (sentences are joined until an input has {low:g} words, and one past "
                     f"{high:g} is left out: with this corpus's sentences no input is longer than "
                     f"{max(words)}, so {max(words) + 1}–{high:g} words are not probed)")
        sentences, longest = number(self.settings.get("train_sentences")), number(
            self.settings.get("train_longest"))
        trained_long = number(self.settings.get("train_long"))
        if None not in (low, sentences, longest, trained_long):
            text += (f"; of the {sentences:,.0f} training sentences {trained_long:,.0f} have "
                     f"{low:g} source words or more, the longest {longest:g}")
        return text

    @property
    def compared_groups(self):
        """(the first family, its groups by source length compared so far: length-groups.tsv's
        rows), the groups empty before stage stats."""
        family = next(iter(self.families), None)
        return family, [g for g in self.length_groups if (family, g["group"]) in self.length_rows]

    @property
    def longest_group(self):
        """The first family's last group by source length (stage stats), or None."""
        family, groups = self.compared_groups
        if not groups:
            return None
        g = groups[-1]
        return {"family": family, "group": g["group"],
                "label": f"{group_words(g)} source words, {int(g['sentences']):,} sentences"}

    def length_verdict(self, config_id):
        """CONFIG_ID against its baseline on the longest group, as exploratory numbers (a group
        is one of several looked at, no verdict: None before it is compared)."""
        g = self.longest_group
        if g is None:
            return None
        c = read_comparisons_rows(self.length_rows[(g["family"], g["group"])],
                                  self.margin).get((config_id, "BLEU"))
        return f"{c.number_cell} BLEU (exploratory)" if c else None

    def beam_comparison(self, config_id, greedy=False, family=None):
        """CONFIG_ID against the baseline of its family (or of FAMILY, one it joins) with beam
        search on the pooled set (compare/FAMILY.beam.tsv), or greedy on the same runs
        (FAMILY.beam-greedy.tsv); None: not yet."""
        name = "beam-greedy" if greedy else "beam"
        return self.compare.get((family or self.family(config_id), name), {}).get(
            (config_id, "BLEU"))

    def pooling_best(self, part, task, model, length=None):
        """The pooling study's row that its tables show for MODEL on TASK in PART (at T = LENGTH):
        the rate that solved in the fewest updates, else the best final accuracy (None: not run)."""
        rows = [row for row in self.pooling.get(part, []) if row["task"] == task
                and row["model"] == model and (length is None or int(row["T"]) == length)]
        return POOLING_REPORT.best_run(rows) if rows else None

    def pooling_transfer(self, task, model, part="generalisation-markers"):
        """The best run's accuracy on its transfer set (the markers at positions not trained
        on), in %, with its Wilson 95 % interval over the POOLING_HELD_OUT sequences: {"value",
        "low", "high"} (None: not run)."""
        best = self.pooling_best(part, task, model)
        if best is None or best["transfer"] in ("-", ""):
            return None
        accuracy = float(best["transfer"].split(",")[0].rsplit(":", 1)[1])
        low, high = wilson(accuracy, POOLING_HELD_OUT)
        return {"value": 100 * accuracy, "low": 100 * low, "high": 100 * high}

    def pooling_updates(self, part, task, model, length):
        """Updates the best rate took to solve MODEL on TASK at T = LENGTH in PART (None: none
        solved, or not run)."""
        best = self.pooling_best(part, task, model, length)
        return int(best["steps_to_solve"]) if best and best["solved"] == "yes" else None

    def learned(self, config_id, column):
        """What CONFIG_ID's scorer parameters learned (parameters.tsv's COLUMN), its runs' values."""
        return learned(self, config_id, column)

    def saturation_of(self, config_id, column):
        """A statistic of CONFIG_ID's trained attention (saturation.tsv's COLUMN: entropy_fraction,
        max_weight, score_sd, …), its compared runs' values."""
        return numbers(unit_rows(self, self.saturation, self.check(config_id)), column)

    def long_part(self, config_id, part):
        """Where CONFIG_ID's BLEU goes on the long inputs, its compared runs' values of PART:
        ratio_long, bp_long, precision_long (and _joined: one by one), share (of the loss that
        is the brevity penalty's), ends_long (long_length_parts)."""
        return long_length_parts(self, self.check(config_id))[part]

    def attention_share(self, mechanism, mode="train"):
        """Attention's share of a training update ("train") or of a decoding step ("greedy",
        "beam5"), the median over the share stage's rounds (None: not measured)."""
        shares = [number(r["phases"]["attention"]["share"])
                  for r in self.share.get((check_mechanism(mechanism), mode), [])
                  if "attention" in r["phases"]]
        return statistics.median(shares) if shares else None

    def counterpart_verdict(self, config_id, metric="BLEU"):
        """A mechanistic check against its counterpart on the pooled set ("" before both ran)."""
        c = self.counterpart.get(config_id, {}).get(metric)
        return f"{c.verdict} (against `{c.baseline}`)" if c else ""

    def beam_verdict(self, config_id):
        """The beam's verdict in words, greedy decoding's on the same runs, and whether the beam
        changes the difference (None: not yet)."""
        beamed, greedy = self.beam_comparison(config_id), self.beam_comparison(config_id, True)
        if beamed is None or greedy is None:
            return None
        text = (f"{beamed.number_cell} BLEU (exploratory, {beamed.runs_text}); greedy, the same "
                f"runs: {greedy.number_cell}")
        change = self.beam_change(config_id)
        if change:
            text += (f"; the beam's change of the difference: {change[0]:+.2f} BLEU (permutation "
                     f"p = {change[1]:.3f} over the runs, Holm {change[2]:.3f})")
        return text

    def beam_change(self, config_id):
        """What the beam does to CONFIG_ID's difference from its baseline: (its mean gain over
        greedy minus the baseline's, the exact two-sided permutation p over the two sets of runs'
        gains, that p Holm-adjusted over the family's such comparisons), the sentences fixed;
        None: fewer than two runs a side."""
        return self.beam_changes(self.family(config_id)).get(config_id)

    @functools.lru_cache(maxsize=None)  # every configuration of a family asks for the same
    def beam_changes(self, family):
        baseline, *others = self.families[family]
        base = beam_gains(self, unit_rows(self, self.beam, baseline))
        tests = {}
        for config_id in others:
            own = beam_gains(self, unit_rows(self, self.beam, config_id))
            if len(own) >= 2 and len(base) >= 2:
                tests[config_id] = permutation_test(own, base)
        adjusted = holm({c: p for c, (_, p) in tests.items()})
        return {c: (delta, p, adjusted[c]) for c, (delta, p) in tests.items()}

    @property
    def beam_summary(self):
        """What beam search changes (None before any run is beam searched): the range of what
        it adds to a configuration's mean BLEU, and the comparisons whose verdict it changes
        against greedy decoding's on the same runs."""
        gains, same, changed = [], 0, []
        for config_id in finished(self):
            rows = unit_rows(self, self.beam, config_id)
            if rows:
                gains.append(mean(beam_gains(self, rows)))
            beamed, greedy = self.beam_comparison(config_id), self.beam_comparison(config_id, True)
            if beamed is None or greedy is None:
                continue
            if beamed.verdict_word == greedy.verdict_word:
                same += 1
            else:
                changed.append(f"`{config_id}` {greedy.verdict_word} → {beamed.verdict_word}")
        if not gains:
            return None
        beam = self.settings.get('beam', '?')
        if min(gains) >= 0:
            text = f"beam {beam} adds {span(gains, 2)} BLEU to a configuration's mean"
        else:
            text = (f"beam {beam} changes a configuration's mean BLEU by {min(gains):+.2f} to "
                    f"{max(gains):+.2f}")
        text += " on the pooled test sets"
        if same or changed:
            text += (f"; of {same + len(changed)} comparisons with a baseline, {same} keep the "
                     f"verdict greedy decoding gives the same runs")
            if changed:
                text += f" ({'; '.join(changed)})"
        return text

    @property
    def long_brevity(self):
        """How early whole translations of the long inputs stop: the range of the configurations'
        mean output length against the reference's, and which configurations lose most of their
        BLEU (in log) to the brevity penalty and which less (None before any run is probed)."""
        ratios, ends, ends_apart, most, less = [], [], [], {}, {}
        for config_id in finished(self):
            parts = long_length_parts(self, config_id)
            if parts["ratio_long"]:
                ratios.append(mean(parts["ratio_long"]))
            if parts["ends_long"]:
                ends.append(mean(parts["ends_long"]))
                ends_apart.append(mean(parts["ends_joined"]))
            if parts["share"]:
                share = 100 * mean(parts["share"])
                (most if share > 50 else less)[config_id] = share

        def said(group):
            return ", ".join(f"`{c}`" for c in group) + f" ({span(group.values(), 0, ' %')})"

        if not ratios or not (most or less):
            return None
        text = f"whole, they come out {span(ratios, 2)} of the reference's length"
        if ends:
            text += (f" and end {span(ends)} sentences per input (one by one: "
                     f"{mean(ends_apart):.1f})")
        text += "; the brevity penalty is "
        if most:
            text += (f"most of the loss in log BLEU for {said(most)}, for which the probe "
                     "measures where a model trained on single sentences stops more than how its "
                     "attention reads a long input")
            text += f"; less than half for {said(less)}" if less else ""
        else:
            text += f"less than half of the loss in log BLEU for {said(less)}"
        text += ' (Long inputs, "Where the loss goes")'
        # Made to go on (long-forced.tsv): how much of the BLEU one by one comes back.
        forced, apart = [], []
        for config_id in finished(self):
            rows = unit_rows(self, self.long_forced, config_id)
            if rows:
                forced.append(mean(numbers(rows, "bleu")))
                apart.append(mean(numbers(unit_rows(self, self.long, config_id), "bleu_joined")))
        if forced:
            text += (f". Made to go on to about the expected length (Long inputs, \"Made to go "
                     f"on\"), they reach {span(forced)} BLEU, against {span(apart)} one by one")
        return text

    @property
    def share_setup(self):
        """What the phase benchmarks ran, from their own "# " lines: the machine, the shapes of
        an update and of the decoding steps, the model (its mechanism varies), the rounds, and
        the range of the matmul peaks they measured."""
        notes = [n for rounds in self.share.values() for r in rounds for n in r["notes"]]
        if not notes:
            return DASH
        keep = []
        for prefix in ("cpu:", "isa:", "onednn:", "update:", "decoding:"):
            keep += [n for n in dict.fromkeys(notes) if n.startswith(prefix)]
        model = next((n for n in notes if n.startswith("model:")), None)
        if model:
            keep.append(re.sub(r"^model: [^,]+, ", "model: ", model))
        peaks = {}
        for n in notes:
            for kind, value in re.findall(r"(f32|bf16)=([0-9.]+)", n if n.startswith("matmul_peak") else ""):
                peaks.setdefault(kind, []).append(float(value))
        keep += [f"{kind} matmul peak {min(v):.0f}–{max(v):.0f} GFLOP/s" for kind, v in peaks.items()]
        rounds = max(len(r) for r in self.share.values())
        return "; ".join(keep) + f"; {rounds} interleaved round{'s' * (rounds > 1)}"

    def stat(self, distribution, mechanism, dim, column):
        if not self.stats:
            return None
        if column not in self.stats[0]:
            raise ReportError(f"stats.tsv has no column '{column}'")
        for row in self.stats:
            if (row.get("input"), row.get("mechanism"), row.get("dim")) == (
                    distribution, check_mechanism(mechanism), str(dim)):
                return number(row[column])
        return None


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


# --- tables ---------------------------------------------------------------------------------------

def markdown_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


NO_RUNS = "_No runs finished yet._"


def finished(results):
    return [i for i in results.configs if results.rows(i)]


def score_table(results, metric):
    ids = finished(results)
    if not ids:
        return NO_RUNS
    header = ["configuration", "hidden", "seeds"] + [
        f"{t['name']} ({t['sentences']:,})" for t in results.test_sets] + ["pooled"]
    rows = [[f"`{i}`", results.configs[i]["hidden"],
             f"{results.seeds(i)} of {results.planned_seeds(i)}"] +
            [pm(results.score(i, t, metric)) for t in results.tests] for i in ids]
    return markdown_table(header, rows)


def training_table(results):
    ids = finished(results)
    if not ids:
        return NO_RUNS
    header = ["configuration", "lr", "best val ppl", "at update", "updates to convergence",
              "stopped early", "best val BLEU", "minutes", "train tok/s"]
    rows = []
    for i in ids:
        runs = results.rows(i)
        rows.append([f"`{i}`", results.lr(i), pm(results.ppl(i)),
                     thousands(mean(results.best_step(i))),
                     thousands(mean(results.converged_step(i))),
                     f"{results.early_stops(i)} of {len(runs)}",
                     pm(results.values(i, "best_val_bleu")),
                     num(mean(results.values(i, "minutes")), 1),
                     thousands(statistics.median(results.values(i, "tok_per_s"))
                               if results.values(i, "tok_per_s") else None)])
    return markdown_table(header, rows)


def ppl_cell(text):
    """A perplexity of lr-choice.tsv: the number, "failed" for a run that failed, or "—"."""
    return num(number(text)) if number(text) is not None else (text or DASH)


def chosen_cell(choice):
    """The chosen rate of one check's rows, marked when the check is unfinished or its choice is
    at the edge of its grid (the best rate tried, not shown to be the best: the next one out was
    not run)."""
    chosen_row = next((row for row in choice if row["chosen"] == "yes"), None)
    chosen = chosen_row["lr"] if chosen_row else DASH
    if not all(row["best_val_ppl"] for row in choice):
        return f"{chosen} (check unfinished)"
    if chosen_row and len(choice) > 1:
        tried = sorted(float(row["factor"]) for row in choice)
        factor = float(chosen_row["factor"])
        if factor == tried[-1] and factor > 1:
            return f"{chosen} (the highest rate tried)"
        if factor == tried[0] and factor < 1:
            return f"{chosen} (the lowest rate tried)"
    return chosen


def checks(results, carried):
    """{owner: its rows of lr-choice.tsv}: the core configurations' checks (from the study's
    rate), or those of a rate carried over to another hidden size or scorer (carried=True)."""
    by_id = {}
    for row in results.lr_choice:
        config = results.configs.get(row["id"])
        if config and (config["stage"] != "core") == carried:
            by_id.setdefault(row["id"], []).append(row)
    return by_id


def check_cell(results, row):
    """A check run's cell: its best validation perplexity, which chooses the rate, and the
    validation BLEU at that checkpoint, which does not (the two can disagree)."""
    bleu = results.check_bleu(row)
    return ppl_cell(row["best_val_ppl"]) + (f" / {num(bleu)}" if bleu is not None else "")


def lr_check_table(results):
    rows_by_id = checks(results, carried=False)
    if not rows_by_id or all(len(rows) < 2 for rows in rows_by_id.values()):
        return "_No learning-rate check in this study._"
    factors = sorted({row["factor"] for rows in rows_by_id.values() for row in rows}, key=float)
    rate = {row["factor"]: row["lr"] for rows in rows_by_id.values() for row in rows}
    header = ["configuration"] + [f"lr × {f} ({rate[f]})" for f in factors] + ["chosen"]
    rows = []
    for config_id, choice in rows_by_id.items():
        by_factor = {row["factor"]: row for row in choice}
        rows.append([f"`{config_id}`"] + [check_cell(results, by_factor[f])
                                          if f in by_factor else DASH for f in factors] +
                    [chosen_cell(choice)])
    return markdown_table(header, rows)


def carried_check_table(results):
    """The checks of a rate carried over to another hidden size or scorer: each cell a check
    run's (check_cell) at the carried rate × the factor (the rate in brackets)."""
    rows_by_id = checks(results, carried=True)
    if not rows_by_id:
        return ""
    factors = sorted({row["factor"] for rows in rows_by_id.values() for row in rows}, key=float)
    header = (["configuration", "hidden", "rate carried over"] + [f"× {f}" for f in factors] +
              ["chosen"])
    rows = []
    for config_id, choice in rows_by_id.items():
        by_factor = {row["factor"]: row for row in choice}
        source = next((row["lr"][len("chosen:"):].split("*")[0] for row in results.plan
                       if row["id"] == config_id and "*" in row["lr"]), None)
        rows.append([f"`{config_id}`", results.configs[config_id]["hidden"],
                     f"{choice[0]['base']}" + (f" (`{source}`'s)" if source else "")] +
                    [f"{check_cell(results, by_factor[f])} ({by_factor[f]['lr']})"
                     if f in by_factor else DASH for f in factors] + [chosen_cell(choice)])
    return markdown_table(header, rows)


def skipped_table(results):
    if not results.skipped:
        return "_None: heed-train knows every configuration's options._"
    return markdown_table(["configuration", "heed-train said"],
                          [[f"`{row['id']}`", row["message"].replace("|", "\\|")]
                           for row in results.skipped])


def comparison_table(results, family):
    """Rows: each configuration of FAMILY but its baseline × each test set; BLEU and chrF."""
    ids = results.families[family]
    rows = []
    for config_id in ids[1:]:
        for test in results.tests:
            cells = [f"`{config_id}`", test]
            any_cell = False
            for metric in METRICS:
                c = results.cmp(config_id, test, metric, family)
                if c is None:
                    cells += [DASH] * 4
                    continue
                any_cell = True
                # One test set of several is a view, read without a verdict (exploratory): the
                # verdicts are the pooled set's, the family's planned comparison.
                word = (c.verdict_word + (" †" if c.one_run else "")) if test == "pooled" \
                    else "exploratory"
                cells += [c.interval, c.seed_interval or DASH, c.p_holm_text, c.tost_text, word]
            if any_cell:
                rows.append(cells)
    if not rows:
        return f"_Not compared yet: `{ids[0]}` and at least one other need finished runs._"
    header = ["configuration", "test set", "BLEU difference [95 % CI]", "over seeds [95 % CI]",
              "p Holm", "TOST p", "BLEU", "chrF difference [95 % CI]", "over seeds [95 % CI]",
              "p Holm", "TOST p", "chrF"]
    return markdown_table(header, rows)


def arrangements_table(results):
    """Scorer and its rate × arrangement (the own families of the stage "arrangement", with every
    configuration in them): pooled BLEU, mean ± sd."""
    families = list(dict.fromkeys(c["family"] for c in results.configs.values()
                                  if c["stage"] == "arrangement"))
    if not families:
        return "_No arrangement configurations in this study._"
    scorers = {}
    for family in families:
        for config_id in results.families[family]:
            scorer = option(results.configs[config_id]["options"], "attention") or config_id
            scorers.setdefault((scorer, results.lr(config_id)), {})[family] = config_id
    rows = [[f"`{scorer}`", lr] + [pm(results.bleu(cells[f])) if f in cells else DASH
                                   for f in families]
            for (scorer, lr), cells in scorers.items()]
    return markdown_table(["scorer", "rate"] + [f"`{f}`" for f in families], rows)


def sweep_points(results):
    """{series: {dim: config id}} of the stage "sweep" (a series is the id without "-aN")."""
    series = {}
    for config_id, config in results.configs.items():
        if config["stage"] != "sweep":
            continue
        dim = option(config["options"], "attention-dim")
        if dim is None:
            continue
        name = re.sub(r"-a%s$" % dim, "", config_id)
        series.setdefault(name, {})[int(dim)] = config_id
    return series


def sweep_table(results):
    series = sweep_points(results)
    if not series:
        return "_No sweep in this study._"
    dims = sorted({d for points in series.values() for d in points})
    rows = [[f"`{name}`"] + [pm(results.bleu(points[d])) + f" ({results.seeds(points[d])})"
                             if d in points and results.rows(points[d]) else DASH for d in dims]
            for name, points in series.items()]
    return markdown_table(["scorer"] + [f"A = {d}" for d in dims], rows)


def cost_table(rows, column, label, growth=None, measure="median_ms"):
    """Per mechanism, MEASURE (milliseconds; "bytes" printed as MB) at each value of COLUMN."""
    if not rows:
        return "_Not measured (the cost stage has not run)._"
    if rows and measure not in rows[0]:
        return f"_Not measured (the cost file has no column `{measure}`)._"
    values = sorted({int(r[column]) for r in rows if r.get(column)})
    mechanisms = list(dict.fromkeys(r["mechanism"] for r in rows if r.get("mechanism")))
    scale = 1e-6 if measure == "bytes" else 1
    table = []
    for mechanism in mechanisms:
        cells = []
        for v in values:
            value = cost_at(rows, mechanism, column, v, measure)
            cells.append(num(None if value is None else value * scale, 1 if measure == "bytes" else 2))
        if growth is not None:
            cells.append(num(growth.get(mechanism)))
        table.append([f"`{mechanism}`"] + cells)
    header = ["mechanism"] + [f"{label} = {v}" for v in values]
    return markdown_table(header + (["growth exponent"] if growth is not None else []), table)


def stats_table(results):
    if not results.stats:
        return "_Not measured (the cost stage has not run)._"
    by_key = {(r["input"], r["dim"], r["mechanism"]): r for r in results.stats}
    rows = []
    for (inp, dim, mechanism) in by_key:
        if mechanism != "dot" or (inp, dim, "scaled-dot") not in by_key:
            continue
        dot, scaled = by_key[(inp, dim, "dot")], by_key[(inp, dim, "scaled-dot")]

        def pair(column, fmt):
            return " / ".join(fmt(float(r[column])) for r in (dot, scaled))

        rows.append([inp, dim, pair("entropy_fraction", num), pair("max_weight", num),
                     pair("grad_scores_median", sig)])
    return markdown_table(["input", "d", "entropy / maximum (dot / scaled)",
                           "largest weight (dot / scaled)",
                           "median gradient through the softmax (dot / scaled)"], rows)


def unit_rows(results, table, config_id):
    """The rows of TABLE (saturation, long) of CONFIG_ID's compared runs."""
    units = {(row["seed"], row["lr"]) for row in results.rows(config_id)}
    return [row for row in table if row["id"] == config_id and (row["seed"], row["lr"]) in units]


def saturation_table(results):
    """Per configuration, the mean over its seeds of each statistic of its trained attention;
    under it, heed-bench-attn --stats' random tanh vectors at the models' width."""
    rows = []
    widths = set()
    for config_id in finished(results):
        probed = [r for r in unit_rows(results, results.saturation, config_id)
                  if number(r["entropy"]) is not None]
        if not probed:
            continue
        widths.add(results.configs[config_id]["hidden"])

        def cell(column, fmt=num):
            return fmt(mean(numbers(probed, column)))

        rows.append([f"`{config_id}`", f"{len(probed)}", cell("entropy_fraction"),
                     cell("max_weight"), cell("score_sd"), cell("zero_rows", lambda v: num(v, 3)),
                     cell("grad_scores_median", sig)])
    if not rows:
        return "_No trained model probed yet (stage \"probes\")._"
    for row in results.stats or []:
        if row.get("input") == "tanh" and row.get("dim") in widths:
            rows.append([f"random tanh vectors, `{row['mechanism']}`, d = {row['dim']}, "
                         f"S = {row['source_length']}", DASH, num(number(row["entropy_fraction"])),
                         num(number(row["max_weight"])), DASH, DASH,
                         sig(number(row["grad_scores_median"]))])
    return markdown_table(["configuration", "runs", "entropy / maximum", "largest weight",
                           "score spread (sd)", "rows with a 0 weight",
                           "median gradient through the softmax"], rows)


def learned(results, config_id, column):
    """COLUMN of parameters.tsv (what the scorer's parameters learned) over CONFIG_ID's compared
    runs."""
    return numbers(unit_rows(results, results.parameters, config_id), column)


def parameters_table(results):
    """Per configuration whose scorer has a learned temperature, what it learned (parameters.py),
    mean ± sd over its compared runs. W_a's distance from a scaled identity, which parameters.py
    also measures, is not shown: it depends on the bases of the encoder's and decoder's states,
    which training picks independently (the template says so)."""
    rows = []
    for config_id in finished(results):
        values = {c: learned(results, config_id, c) for c in ("temperature", "scale")}
        if not any(values.values()):
            continue
        runs = max(len(v) for v in values.values())
        rows.append([f"`{config_id}`", f"{runs}", pm(values["temperature"]),
                     pm(values["scale"], 3)])
    if not rows:
        return "_No trained scorer with a temperature probed yet._"
    return markdown_table(["configuration", "runs", "τ", "τ / √K (`dot`: 1)"], rows)


def counterpart_table(results):
    """Each mechanistic check against its counterpart on the pooled set: BLEU and chrF."""
    rows = []
    for config_id, by_metric in results.counterpart.items():
        cells = [f"`{config_id}`", f"`{next(iter(by_metric.values())).baseline}`"]
        for metric in METRICS:
            c = by_metric.get(metric)
            cells += [c.verdict if c else DASH]
        rows.append(cells)
    if not rows:
        return "_Not compared yet: a mechanistic check and its counterpart need finished runs._"
    return markdown_table(["check", "against", "BLEU", "chrF"], rows)


def silver_table(results):
    """Per configuration: AER of its argmax and shift links against the silver links, mean ± sd
    over its compared runs, and its argmax links against its family's baseline's and the
    diagonal's (difference [95 % interval], verdict); the diagonal baseline under them."""
    rows = []
    for config_id in finished(results):
        probed = unit_rows(results, results.silver, config_id)
        cells = []
        for reading in ("argmax", "shift"):
            values = numbers([r for r in probed if r["reading"] == reading], "aer")
            cells.append(pm(values))
        if all(c == DASH for c in cells):
            continue
        runs = len({r["seed"] for r in probed if number(r["aer"]) is not None})
        family = results.family(config_id)
        rows.append([f"`{config_id}`", f"{runs}"] + cells + [
            DASH if c is None else c.cell
            for c in (results.silver_compare.get(family, {}).get(config_id),
                      results.silver_compare.get("diagonal", {}).get(config_id))])
    if not rows:
        return "_No trained model probed yet (stage \"probes\")._"
    for row in results.silver_baselines:
        rows.append([f"{row['baseline']} (every target word to the source word at its relative "
                     f"position)" if row["baseline"] == "diagonal" else row["baseline"], DASH,
                     num(number(row["aer"])), DASH, DASH, DASH])
    return markdown_table(["configuration", "runs", "AER, argmax", "AER, shift",
                           "argmax against its family's baseline", "argmax against the diagonal"],
                          rows)


def silver_curve_runs(results):
    """{id: ((seed, lr), {step: AER})}: each configuration's run read along training, in the
    configurations' order (one run each: the driver reads one seed's)."""
    first = {}
    for (run_id, seed, lr), points in sorted(results.silver_curves.items()):
        first.setdefault(run_id, ((seed, lr), points))
    return {i: first[i] for i in results.configs if i in first}


def silver_curve_table(results):
    """AER of the argmax links against the silver links at each validation's model."""
    runs = silver_curve_runs(results)
    if not runs:
        return "_No run read along training yet._"
    steps = sorted({step for _, points in runs.values() for step in points})
    header = ["updates"] + [f"`{i}` (seed {seed}, lr {lr})" for i, ((seed, lr), _) in runs.items()]
    rows = [[f"{step:,}"] + [num(points.get(step)) for _, points in runs.values()]
            for step in steps]
    return markdown_table(header, rows) + "\n\n" + silver_curve_summary(results, runs)


def silver_curve_summary(results, runs):
    """Per run read along training: its lowest AER and where, the AER of the model it keeps
    (the best by validation perplexity, the one compared above) and of its last; facts, no
    reading of them."""
    parts = []
    for run_id, ((seed, lr), points) in runs.items():
        lowest = min(sorted(points), key=lambda step: points[step])
        last = max(points)
        kept = next((int(row["best_step"]) for row in results.runs
                     if (row["id"], row["seed"], row["lr"]) == (run_id, seed, lr)
                     and row["status"] == "ok"), None)
        text = (f"`{run_id}` lowest {num(points[lowest])} at update {lowest:,}, "
                f"{num(points[last])} at the last read ({last:,})")
        if kept is not None:
            text += (f", {num(points[kept])} at the model it keeps (best validation perplexity, "
                     f"update {kept:,})" if kept in points else
                     f"; the model it keeps (update {kept:,}) not read")
        parts.append(text)
    return "AER along training: " + "; ".join(parts) + "."


def long_table(results):
    """Per configuration: BLEU of the long inputs translated one by one and whole, the
    difference with its interval, and the comparison with the baseline on the whole inputs."""
    rows = []
    for config_id in finished(results):
        probed = unit_rows(results, results.long, config_id)
        if not probed:
            continue
        drop = results.long_drop.get(config_id, {}).get("BLEU")
        family = results.family(config_id)
        versus = results.compare.get((family, "long"), {}).get((config_id, "BLEU"))
        rows.append([f"`{config_id}`", f"{len(probed)}", pm(numbers(probed, "bleu_joined")),
                     pm(numbers(probed, "bleu_long")), drop.interval if drop else DASH,
                     (drop.verdict_word + (" †" if drop.runs < 2 else "")) if drop else DASH,
                     versus.verdict if versus else DASH])
    if not rows:
        return "_No trained model probed yet (stage \"probes\")._"
    return markdown_table(["configuration", "runs", "BLEU one by one", "BLEU whole",
                           "whole − one by one [95 % CI]", "verdict",
                           "whole inputs against the baseline"], rows)


SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)")


def sentence_ends(text):
    """How many sentences TEXT ends: full stops, question and exclamation marks (Latin or CJK)
    before a space or the end."""
    return len(SENTENCE_END.findall(text))


@functools.lru_cache(maxsize=None)  # the table and the limits read the same runs
def long_sentence_ends(results, unit, whole_name="long"):
    """(sentence ends per long input in UNIT's whole translations, in its one-by-one ones), from
    the kept translations (hyps/UNIT.WHOLE_NAME.txt.gz, and the first test set's grouped as
    long-set.tsv groups them); None when either is missing."""
    whole = read_gzip_lines(os.path.join(results.dir, "hyps", f"{unit}.{whole_name}.txt.gz"))
    apart = read_gzip_lines(os.path.join(results.dir, "hyps",
                                         f"{unit}.{results.test_sets[0]['name']}.txt.gz"))
    if whole is None or apart is None or len(whole) != len(results.long_set):
        return None
    ends_apart = 0
    for group in results.long_set:
        first, count = int(group["first"]), int(group["sentences"])
        ends_apart += sum(sentence_ends(line) for line in apart[first - 1:first - 1 + count])
    inputs = len(whole)
    return sum(sentence_ends(line) for line in whole) / inputs, ends_apart / inputs


def read_gzip_lines(path):
    """The lines of a gzipped text file, None when it is not there."""
    if not os.path.isfile(path):
        return None
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def long_length_parts(results, config_id):
    """CONFIG_ID's compared runs on the long inputs, per run: the output's length against the
    reference's and BLEU's brevity penalty, whole (_long) and one by one (_joined); BLEU divided
    by the penalty (precision_: the n-gram precisions' geometric mean); and the share of the loss
    (in log BLEU) that is the penalty's, log(BP whole / BP one by one) / log(BLEU whole / BLEU one
    by one), where there is a loss."""
    bleu = {(r["seed"], r["lr"]): r for r in unit_rows(results, results.long, config_id)}
    parts = {"ratio_long": [], "ratio_joined": [], "bp_long": [], "bp_joined": [],
             "precision_long": [], "precision_joined": [], "share": [], "ends_long": [],
             "ends_joined": []}
    for length in unit_rows(results, results.long_length, config_id):
        scores = bleu.get((length["seed"], length["lr"]))
        if scores is None:
            continue
        ends = long_sentence_ends(results, f"{config_id}-s{length['seed']}-lr{length['lr']}")
        if ends is not None:
            parts["ends_long"].append(ends[0])
            parts["ends_joined"].append(ends[1])
        values = {c: number(length[c])
                  for c in ("ratio_long", "ratio_joined", "bp_long", "bp_joined")}
        values.update({c: number(scores[c]) for c in ("bleu_long", "bleu_joined")})
        # A penalty of 0 (no output at all) leaves BLEU without it undefined.
        if None in values.values() or not (values["bp_long"] > 0 and values["bp_joined"] > 0):
            continue
        for side in ("long", "joined"):
            parts["ratio_" + side].append(values["ratio_" + side])
            parts["bp_" + side].append(values["bp_" + side])
            parts["precision_" + side].append(values["bleu_" + side] / values["bp_" + side])
        # A share only of a loss: both BLEU above 0, whole below one by one.
        if 0 < values["bleu_long"] < values["bleu_joined"]:
            loss = math.log(values["bleu_long"] / values["bleu_joined"])
            parts["share"].append(math.log(values["bp_long"] / values["bp_joined"]) / loss)
    return parts


def long_length_table(results):
    """Per configuration, where its long inputs' BLEU goes (long_length_parts, mean ± sd)."""
    rows = []
    for config_id in finished(results):
        parts = long_length_parts(results, config_id)
        if not parts["ratio_long"]:
            continue

        def both(column, digits=2):
            return f"{pm(parts[column + '_long'], digits)} / {pm(parts[column + '_joined'], digits)}"

        share = f"{100 * mean(parts['share']):.0f} %" if parts["share"] else DASH
        if parts["share"] and len(parts["share"]) < len(parts["ratio_long"]):
            share += f" ({len(parts['share'])} runs)"
        rows.append([f"`{config_id}`", f"{len(parts['ratio_long'])}",
                     both("ends", 1) if parts["ends_long"] else DASH, both("ratio"), both("bp"),
                     both("precision"), share])
    if not rows:
        return "_No long inputs scored yet (stage \"probes\")._"
    return markdown_table(["configuration", "runs", "sentences ended per input, whole / one by one",
                           "output / reference length, whole / one by one",
                           "brevity penalty, whole / one by one",
                           "BLEU ÷ brevity penalty, whole / one by one",
                           "share of the loss that is brevity"], rows)


def long_forced_table(results):
    """Per configuration, the long inputs made to go on (long-forced.tsv): BLEU one by one, whole
    and made to go on, of the same runs; the forced translations' sentence ends per input, length
    against the reference's and BLEU without the brevity penalty; and against the baseline."""
    rows = []
    for config_id in finished(results):
        forced = unit_rows(results, results.long_forced, config_id)
        if not forced:
            continue
        long = {(r["seed"], r["lr"]): r for r in unit_rows(results, results.long, config_id)}
        same = [long[(r["seed"], r["lr"])] for r in forced if (r["seed"], r["lr"]) in long]
        ends = [e[0] for e in (long_sentence_ends(results, f"{config_id}-s{r['seed']}-lr{r['lr']}",
                                                  "long-forced") for r in forced) if e]
        precision = [b / p for b, p in ((number(r["bleu"]), number(r["bp"])) for r in forced)
                     if b is not None and p]
        family = results.family(config_id)
        versus = results.compare.get((family, "long-forced"), {}).get((config_id, "BLEU"))
        rows.append([f"`{config_id}`", f"{len(forced)}", pm(numbers(same, "bleu_joined")),
                     pm(numbers(same, "bleu_long")), pm(numbers(forced, "bleu")),
                     pm(ends, 1), pm(numbers(forced, "ratio")), pm(precision),
                     versus.verdict if versus else DASH])
    if not rows:
        return "_No trained model made to go on yet (stage \"probes\")._"
    return markdown_table(["configuration", "runs", "BLEU one by one", "BLEU whole",
                           "BLEU made to go on", "sentences ended per input",
                           "output / reference length", "BLEU ÷ brevity penalty",
                           "made to go on, against the baseline"], rows)


def permutation_test(a, b):
    """mean(A) − mean(B) and its exact two-sided permutation p: the share of the ways to split
    A + B into groups of A's and B's sizes whose difference is at least as far from 0."""
    pooled, observed = a + b, statistics.mean(a) - statistics.mean(b)
    splits = extreme = 0
    for chosen in itertools.combinations(range(len(pooled)), len(a)):
        rest = [v for i, v in enumerate(pooled) if i not in chosen]
        delta = statistics.mean(pooled[i] for i in chosen) - statistics.mean(rest)
        splits += 1
        extreme += abs(delta) >= abs(observed) - 1e-9
    return observed, extreme / splits


def holm(pvalues):
    """Holm's step-down adjustment of {name: p}: the i-th smallest of m is multiplied by m − i + 1,
    kept at least the one before it, at most 1."""
    adjusted, running = {}, 0.0
    ordered = sorted(pvalues.items(), key=lambda item: item[1])
    for i, (name, p) in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - i) * p))
        adjusted[name] = running
    return adjusted


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


def beam_table(results):
    """Per configuration, the pooled test sets translated with beam search (beam.tsv) beside the
    same runs' greedy translations (scores.tsv): BLEU both ways, what the beam adds, chrF, length
    against the reference's, and against the baseline both ways on the same runs."""
    rows = []
    for config_id in finished(results):
        beamed = unit_rows(results, results.beam, config_id)
        if not beamed:
            continue
        greedy = [greedy_pooled(results, r) for r in beamed]

        def versus(greedy_decoding):  # a view of the runs with a model: numbers, no verdict
            c = results.beam_comparison(config_id, greedy_decoding)
            return c.number_cell if c else DASH

        change = results.beam_change(config_id)
        rows.append([f"`{config_id}`", f"{len(beamed)}", pm(greedy), pm(numbers(beamed, "bleu")),
                     pm(beam_gains(results, beamed), signed=True), pm(numbers(beamed, "chrf")),
                     pm(numbers(beamed, "ratio")), versus(True), versus(False),
                     f"{change[0]:+.2f} (p = {change[1]:.3f}, Holm {change[2]:.3f})" if change
                     else DASH])
    if not rows:
        return "_No run beam searched yet (stage \"probes\")._"
    beam = results.settings.get("beam", "?")
    return markdown_table(["configuration", "runs", "BLEU greedy", f"BLEU beam {beam}",
                           "beam − greedy", f"chrF beam {beam}",
                           f"output / reference length, beam {beam}",
                           "against the baseline, greedy", f"against the baseline, beam {beam}",
                           "the beam's change of the difference"], rows)


def length_tables(results):
    """The first family on the pooled set's groups by source length: BLEU (mean ± sd over the
    compared runs) per configuration and group, and each configuration against the baseline
    (difference [95 % CI], verdict: Holm over the family within each group)."""
    family, groups = results.compared_groups
    if not groups:
        return {"bleu": "_Not compared yet (stage \"stats\")._", "against": ""}
    header = [f"{group_words(g)} words ({int(g['sentences']):,})" for g in groups]
    comparisons = {g["group"]: read_comparisons_rows(results.length_rows[(family, g["group"])],
                                                     results.margin) for g in groups}
    bleu_rows, against_rows = [], []
    for config_id in results.families[family]:
        bleu_cells, against_cells = [], []
        for g in groups:
            rows = [r for r in results.length_rows[(family, g["group"])]
                    if r["system"] == config_id and r["metric"] == "BLEU"]
            if not rows:
                bleu_cells.append(DASH)
                against_cells.append(DASH)
                continue
            row = rows[0]
            sd = number(row["sd"])
            bleu_cells.append(row["mean"] + (f" ± {row['sd']}" if sd is not None else ""))
            if row["difference"] in ("-", ""):
                against_cells.append(DASH)
                continue
            c = comparisons[g["group"]][(config_id, "BLEU")]
            against_cells.append(c.number_cell)  # a view of five: numbers, no verdict
        if any(cell != DASH for cell in bleu_cells):
            bleu_rows.append([f"`{config_id}`"] + bleu_cells)
        if any(cell != DASH for cell in against_cells):
            against_rows.append([f"`{config_id}`"] + against_cells)
    return {"bleu": markdown_table(["configuration"] + header, bleu_rows),
            "against": markdown_table(["against `" + results.families[family][0] + "`"] + header,
                                      against_rows) if against_rows else ""}


def share_table(results):
    """Per mechanism: the attention's time and share of a training update, and of a greedy and a
    beam decoding step (the phase benchmarks, stepped with input feeding): the median over the
    interleaved rounds, the whole's range over them in brackets."""
    mechanisms = list(dict.fromkeys(m for m, _ in results.share))
    if not mechanisms:
        return "_Not measured (the stage \"share\" runs on an idle machine)._"
    rows = []
    for mechanism in mechanisms:
        cells = [f"`{mechanism}`"]
        for mode, total, unit in (("train", "update", "ms"), ("greedy", "step", "us_per_step"),
                                  ("beam5", "step", "us_per_step")):
            rounds = [r["phases"] for r in results.share.get((mechanism, mode), [])
                      if total in r["phases"] and "attention" in r["phases"]]
            if not rounds:
                cells += [DASH, DASH]
                continue
            whole = [number(p[total][unit]) for p in rounds]
            part = [number(p["attention"][unit]) for p in rounds]
            share = [number(p["attention"]["share"]) for p in rounds]
            spread = f" ({min(whole):,.0f}–{max(whole):,.0f})" if len(whole) > 1 else ""
            cells += [f"{statistics.median(whole):,.1f}{spread}",
                      f"{statistics.median(part):,.1f} ({100 * statistics.median(share):.0f} %)"]
        cells.append(num(cost_at(results.cost_length, mechanism, "source_length", 20)))
        rows.append(cells)
    return markdown_table(["mechanism", "training update ms", "attention ms (share)",
                           "greedy step µs", "attention µs (share)", "beam-5 step µs",
                           "attention µs (share)", "all steps at once, fwd+bwd ms (S = 20)"],
                          rows)


def tables(results):
    return {
        "bleu": score_table(results, "bleu"),
        "chrf": score_table(results, "chrf"),
        "training": training_table(results),
        "lr_check": lr_check_table(results),
        "carried_check": carried_check_table(results),
        "skipped": skipped_table(results),
        "comparisons": {family: comparison_table(results, family)
                        for family in results.families},
        "arrangements": arrangements_table(results),
        "sweep": sweep_table(results),
        "cost_length": cost_table(results.cost_length, "source_length", "S", results.growth),
        "bytes_length": cost_table(results.cost_length, "source_length", "S", measure="bytes"),
        "cost_hidden": cost_table(results.cost_hidden, "hidden", "d"),
        "stats": stats_table(results),
        "saturation": saturation_table(results),
        "parameters": parameters_table(results),
        "long": long_table(results),
        "long_length": long_length_table(results),
        "long_forced": long_forced_table(results),
        "beam": beam_table(results),
        "length": length_tables(results),
        "silver": silver_table(results),
        "silver_curves": silver_curve_table(results),
        "counterpart": counterpart_table(results),
        "share": share_table(results),
        "pooling_paper": "\n".join(POOLING_REPORT.paper_table(results.pooling)),
        "pooling_positions": "\n".join(POOLING_REPORT.transfer_table(
            results.pooling["generalisation-markers"])) if "generalisation-markers" in results.pooling else "",
        # The dense controls: the flattened layer and the per-step reading, T = 50 to 5,000.
        "pooling_controls": "\n".join(POOLING_REPORT.outcome_table(
            results.pooling.get("controls-short", []) + results.pooling.get("controls-long", [])))
        if "controls-short" in results.pooling else "",
    }


# --- plots ----------------------------------------------------------------------------------------

# SVG that is the same byte for byte on every run: fixed ids, no date, text as text.
SVG_STYLE = {"svg.hashsalt": "heed-ablation", "svg.fonttype": "none", "font.family": "sans-serif",
             "font.size": 10, "axes.spines.top": False, "axes.spines.right": False}


def chart(path, draw, x_label, y_label, title):
    """A figure whose axes DRAW(axes) fills, labelled and written atomically to PATH as SVG."""
    from matplotlib.figure import Figure  # not pyplot: no global figures, no GUI
    with matplotlib.rc_context(SVG_STYLE):
        figure = Figure(figsize=(6.4, 4.0))
        axes = figure.add_subplot()
        draw(axes)
        axes.set_xlabel(x_label)
        axes.set_ylabel(y_label)
        axes.set_title(title, loc="left")
        axes.grid(axis="y", color="#dddddd")
        axes.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        figure.savefig(path + ".tmp", format="svg", bbox_inches="tight", metadata={"Date": None})
    os.replace(path + ".tmp", path)


def curve_series(results, config_id, column):
    """[(update, mean, low, high, seeds)] over the runs of CONFIG_ID at each validation."""
    by_step = {}
    for row in results.rows(config_id):
        unit = f"{row['id']}-s{row['seed']}-lr{row['lr']}"
        for point in results.curves.get(unit, []):
            value = number(point.get(column))
            if value is not None:
                by_step.setdefault(int(point["step"]), []).append(value)
    return [(step, statistics.mean(v), min(v), max(v), len(v))
            for step, v in sorted(by_step.items())]


def curves_chart(results, path, column, label):
    """One line per core configuration (every configuration without a core): the mean over its
    seeds at each validation, and a band from the lowest to the highest seed."""
    ids = [i for i in results.configs if results.configs[i]["stage"] == "core"] or \
        list(results.configs)
    lines = {i: curve_series(results, i, column) for i in ids}
    lines = {i: points for i, points in lines.items() if points}
    if not lines:
        return False

    def draw(axes):
        for config_id, points in lines.items():
            steps = [p[0] for p in points]
            seeds = results.seeds(config_id)
            label_text = (f"{config_id} ({seeds} seed{'s' * (seeds != 1)}, "
                          f"lr {results.lr(config_id)})")
            line, = axes.plot(steps, [p[1] for p in points], marker="o", markersize=3,
                              linewidth=1.5, label=label_text)
            axes.fill_between(steps, [p[2] for p in points], [p[3] for p in points],
                              color=line.get_color(), alpha=0.15, linewidth=0)
        if column == "val_ppl":  # the early validations' perplexities would flatten the rest
            low = min(p[2] for points in lines.values() for p in points)
            axes.set_ylim(low * 0.97, low * 2.0)

    chart(path, draw, "updates", label,
          f"{label} against updates: mean over seeds, band min–max")
    return True


def sweep_chart(results, path):
    """Pooled BLEU against the attention dimension, one line per sweep series."""
    data = {}
    for name, points in sweep_points(results).items():
        xs = [(d, results.bleu(i)) for d, i in sorted(points.items()) if results.bleu(i)]
        if xs:
            data[name] = xs
    if not data:
        return False

    def draw(axes):
        for name, xs in data.items():
            means = [statistics.mean(v) for _, v in xs]
            spread = [[m - min(v) for m, (_, v) in zip(means, xs)],
                      [max(v) - m for m, (_, v) in zip(means, xs)]]
            axes.errorbar([d for d, _ in xs], means, yerr=spread, marker="o", markersize=4,
                          capsize=3, linewidth=1.5, label=name)
        axes.set_xscale("log", base=2)
        dims = sorted({d for xs in data.values() for d, _ in xs})
        axes.set_xticks(dims, [str(d) for d in dims])

    chart(path, draw, "attention dimension A", "pooled BLEU",
          "pooled BLEU against A: mean over seeds, bars min–max")
    return True


def length_chart(results, path):
    """BLEU against the groups by source length (the first family): a line per configuration,
    the mean over its runs, bars from its lowest to its highest run (heed-score's run_scores)."""
    family, groups = results.compared_groups
    lines = {}
    for config_id in results.families.get(family, []):
        points = []
        for x, g in enumerate(groups):
            row = next((r for r in results.length_rows[(family, g["group"])]
                        if r["system"] == config_id and r["metric"] == "BLEU"), None)
            runs = [v for v in (number(t) for t in (row or {}).get("run_scores", "").split(","))
                    if v is not None]
            if runs:
                points.append((x, statistics.mean(runs), min(runs), max(runs), len(runs)))
        if points:
            lines[config_id] = points
    if not lines:
        return False

    def draw(axes):
        for config_id, points in lines.items():
            axes.errorbar([p[0] for p in points], [p[1] for p in points],
                          yerr=[[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]],
                          marker="o", markersize=4, capsize=3, linewidth=1.5,
                          label=f"{config_id} ({max(p[4] for p in points)} runs)")
        axes.set_xticks(range(len(groups)), [group_words(g) for g in groups])

    chart(path, draw, "source words (groups of about equal size)", "BLEU",
          "BLEU by source length: mean over runs, bars min–max")
    return True


def silver_curve_chart(results, path):
    """AER against updates on the silver links, a line per run read along training, the
    diagonal's AER dashed."""
    runs = silver_curve_runs(results)
    if not runs:
        return False

    def draw(axes):
        for config_id, ((seed, lr), points) in runs.items():
            steps = sorted(points)
            axes.plot(steps, [points[s] for s in steps], marker="o", markersize=3,
                      linewidth=1.5, label=f"{config_id} (seed {seed}, lr {lr})")
        for row in results.silver_baselines:
            if number(row["aer"]) is not None:
                axes.axhline(number(row["aer"]), color="#888888", linestyle="--", linewidth=1,
                             label=row["baseline"])

    chart(path, draw, "updates", "AER against silver links (argmax)",
          "attention as alignment against updates (one run each)")
    return True


def plots(results, page_dir):
    """Draws each plot into RESULTS; {name: the page's Markdown link to it}."""
    charts = {
        "curves_ppl": lambda p: curves_chart(results, p, "val_ppl", "validation perplexity"),
        "curves_bleu": lambda p: curves_chart(results, p, "val_bleu", "validation BLEU"),
        "sweep": lambda p: sweep_chart(results, p),
        "silver_curves": lambda p: silver_curve_chart(results, p),
        "by_length": lambda p: length_chart(results, p),
    }
    links = {}
    for name, draw in charts.items():
        path = os.path.join(results.dir, name.replace("_", "-") + ".svg")
        links[name] = (f"![{name}]({os.path.relpath(path, page_dir)})" if draw(path)
                       else NO_RUNS)
    return links


# --- the page -------------------------------------------------------------------------------------

def template_line(error, templates):
    """"FILE:LINE" of the one of TEMPLATES where ERROR was raised, from the traceback Jinja2
    rewrites (None: not in one of them)."""
    paths = {os.path.abspath(t): t for t in templates}
    if isinstance(error, jinja2.TemplateSyntaxError):
        name = paths.get(os.path.abspath(error.filename or templates[0]), templates[0])
        return f"{name}:{error.lineno}" if error.lineno else None
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if os.path.abspath(f.filename) in paths]
    return f"{paths[os.path.abspath(frames[-1].filename)]}:{frames[-1].lineno}" if frames else None


# The answers a study's author writes from its results (RESULTS/answers.md.j2, a macro each),
# and what each answers: the page prints each macro in its place, or the evidence alone.
ANSWERS_FILE = "answers.md.j2"
ANSWERS = {"in_short": "the three answers in short, at the top", "dot_weights": "question 1", "scaled_or_learned": "question 2",
           "arrangements": "the decoder arrangements", "sweep": "the attention-dimension sweep",
           "literature": "the findings beside the literature's, each disagreement discussed"}


def load_answers(environment, results, context):
    """{name: macro} of RESULTS/answers.md.j2, rendered in CONTEXT ({} without the file): the
    answers are written for one study's results, so they live with them, not in the template
    every study shares."""
    path = os.path.join(results.dir, ANSWERS_FILE)
    if not os.path.isfile(path):
        return {}
    module = environment.overlay(loader=jinja2.FileSystemLoader(results.dir)).get_template(
        ANSWERS_FILE).make_module(context)
    names = [n for n in dir(module) if not n.startswith("_")]
    unknown = sorted(set(names) - set(ANSWERS))
    if unknown:
        raise ReportError(f"{path}: no answer is called {', '.join(unknown)} "
                          f"(the page's: {', '.join(ANSWERS)})")
    return {name: getattr(module, name) for name in names}


def render(template, results, page_dir):
    if not os.path.isfile(template):
        raise MissingInput(f"{template} not found")
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.dirname(os.path.abspath(template))),
        undefined=jinja2.StrictUndefined, finalize=finalize, keep_trailing_newline=True,
        trim_blocks=True, lstrip_blocks=True, autoescape=False)
    environment.filters.update(FILTERS)
    page = environment.get_template(os.path.basename(template))
    # The literature box: hand-written, beside the template (quoted figures, with their sources).
    literature = read_lines(os.path.join(os.path.dirname(os.path.abspath(template)),
                                         "literature.md"), required=False)
    literature = "".join(literature).strip() if literature else "_No literature box yet._"
    context = {"r": results, "tables": tables(results), "plots": plots(results, page_dir),
               "literature": literature}
    return page.render(answers=load_answers(environment, results, context), **context)


def main():
    parser = common.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", help="the result files (experiments/ablation/results)")
    parser.add_argument("--template", help="the page's Jinja2 template (ablation.md.j2)")
    parser.add_argument("--output", help="the page (docs/ablation.md)")
    parser.add_argument("--pooling", default=None,
                        help="the pooling study's tables for question 3 "
                        "(default: experiments/pooling/results)")
    parser.add_argument("--alignment", default=None,
                        help="the Hansards alignment study's results: silver.tsv (silver against "
                        "gold) and compare/*.tsv (default: experiments/alignment-hansards/results)")
    parser.add_argument("--check", action="store_true",
                        help="only check that the Python modules the report needs are there")
    args = parser.parse_args()
    missing = missing_packages()
    if missing:
        print(f"report.py: needs the Debian package{'s' * (len(missing) > 1)} "
              f"{' and '.join(missing)} (apt-get install {' '.join(missing)}; "
              f"run it with /usr/bin/python3)", file=sys.stderr)
        return 69
    if args.check:
        return 0
    for name in ("results", "template", "output"):
        if getattr(args, name) is None:
            parser.error(f"--{name} is required")
    matplotlib.use("Agg")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pooling = args.pooling or os.path.join(root, "experiments", "pooling", "results")
    try:
        alignment = args.alignment or os.path.join(root, "experiments", "alignment-hansards",
                                                   "results")
        results = Results(args.results, pooling, alignment)
        # The second setting (issue 61: does the ranking travel?), a study of its own whose
        # results sit beside the first's: RESULTS-en-de, read when its runs have begun.
        second = args.results.rstrip("/") + "-en-de"
        if os.path.isfile(os.path.join(second, "runs.tsv")):
            results.second = Results(second, None)
        page = render(args.template, results, os.path.dirname(os.path.abspath(args.output)))
    except (ReportError, jinja2.TemplateError) as error:
        line = None if isinstance(error, MissingInput) else template_line(
            error, [args.template, os.path.join(args.results, ANSWERS_FILE)])
        where = f"{line}: " if line else ""
        print(f"report.py: {where}{error}", file=sys.stderr)
        return getattr(error, "exit_code", 65)
    with open(args.output + ".tmp", "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(args.output + ".tmp", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
