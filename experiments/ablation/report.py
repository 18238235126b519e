#!/usr/bin/python3
"""Writes docs/studies/ablation.md and its plots from the ablation's results (the Snakefile's page).

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
import glob
import math
import os
import re
import statistics
import sys
import traceback

# The Results class, split by concern: the study's runs, scores and comparisons here; the cost of
# attention, the probes, the attention as alignment and the pooling study's tables (question 3,
# the pooling study's own report's) each in a module of its own beside this file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figures_base import *  # noqa: E402,F401,F403  (the result files' readers and the formats)
from reporting import Comparison  # noqa: E402,F401  (report.Comparison, for the tests)
from figures_alignment import AlignmentFigures  # noqa: E402
from figures_cost import CostFigures  # noqa: E402
from figures_pooling import POOLING_REPORT, PoolingFigures  # noqa: E402
from figures_probes import ProbeFigures, long_length_parts, long_sentence_ends  # noqa: E402

try:
    import jinja2
except ImportError:
    jinja2 = None

# The Python modules the report needs and the Debian packages that hold them.
PACKAGES = {"jinja2": "python3-jinja2", "matplotlib": "python3-matplotlib"}


# --- formatting: the template's filters, also used by the tables ----------------------------------


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


class Results(CostFigures, ProbeFigures, AlignmentFigures, PoolingFigures):
    """The result files of one study, and the figures the page quotes from them: the plan, the
    runs, their scores and comparisons here, the other concerns in their classes."""

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
        self.curves = {}
        for file in glob.glob(path("curves/*.tsv")):
            self.curves[os.path.basename(file)[:-4]] = read_tsv(file)
        # Changes made to the protocol while the study ran, written by hand (a study that
        # changes nothing has no such file): the page prints them under its setup.
        changes = read_lines(path("protocol-changes.md"), required=False) or []
        self.protocol_changes = "".join(changes).strip()
        machine = read_lines(path("machine.txt"), required=False) or []
        self.machine = "; ".join(line.strip("# \n") for line in machine if line.strip()) or DASH
        self.load_cost(path)
        self.load_probes(path)
        self.load_alignment(path, alignment)
        self.load_pooling(pooling)

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

# --- tables ---------------------------------------------------------------------------------------

NO_RUNS = "_No runs finished yet._"


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


def parameters_table(results):
    """Per configuration whose scorer has a learned temperature, what it learned (parameters.py),
    mean ± sd over its compared runs. W_a's distance from a scaled identity, which parameters.py
    also measures, is not shown: it depends on the bases of the encoder's and decoder's states,
    which training picks independently (the template says so)."""
    rows = []
    for config_id in finished(results):
        values = {c: results.learned(config_id, c) for c in ("temperature", "scale")}
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
                     f"{change.interval} ({common.p_phrase('Holm p', change.p_holm_text)})"
                     if change else DASH])
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
        "pooling_paper": POOLING_REPORT.paper_table(results.pooling),
        "pooling_positions": POOLING_REPORT.transfer_table(
            results.pooling["generalisation-markers"]) if "generalisation-markers" in results.pooling else "",
        # The dense controls: the flattened layer and the per-step reading, T = 50 to 5,000.
        "pooling_controls": POOLING_REPORT.outcome_table(
            results.pooling.get("controls-short", []) + results.pooling.get("controls-long", []))
        if "controls-short" in results.pooling else "",
    }


# --- plots ----------------------------------------------------------------------------------------

def chart(path, draw, x_label, y_label, title):
    """common.chart with the ablation's ids and its legend right of the axes."""
    common.chart(path, draw, x_label, y_label, title, "heed-ablation", loc="center left",
                 bbox_to_anchor=(1.02, 0.5))


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
    parser.add_argument("--output", help="the page (docs/studies/ablation.md)")
    parser.add_argument("--pooling", default=None,
                        help="the pooling study's tables for question 3 "
                        "(default: experiments/pooling/results)")
    parser.add_argument("--alignment", default=None,
                        help="the Hansards alignment study's results: silver.tsv (silver against "
                        "gold) and compare/*.tsv (default: experiments/alignment-hansards/results)")
    parser.add_argument("--check", action="store_true",
                        help="only check that the Python modules the report needs are there")
    args = parser.parse_args()
    status = common.check_packages(PACKAGES, "report.py")
    if status or args.check:
        return status
    for name in ("results", "template", "output"):
        if getattr(args, name) is None:
            parser.error(f"--{name} is required")
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
