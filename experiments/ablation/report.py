#!/usr/bin/python3
"""Writes docs/ablation.md and its plots from the ablation's result files (run.sh, stage "report").

Every number in the page comes from RESULTS: runs.tsv, buckets.tsv, speed-runs.tsv, bootstrap.tsv,
cost-length.tsv, cost-hidden.tsv, stats.tsv, settings.tsv, machine.txt, aer-diagonal.tsv (and
experiments/pooling/results/pooling.tsv for the feed-forward pooling experiment). A file that is
missing is an error that names it; a file without the rows of a configuration yet gives "—", and
tables leave the configuration out.

The page is the Jinja2 template ablation.md.j2, rendered with
  r        the figures, a Results: r.bleu('dot-luong'), r.gap('additive-luong', 'dot-luong'),
           r.cost('dot', 20), r.settings.steps, … (the methods below say what each reads)
  tables   the Markdown tables: main, bahdanau, sweep, buckets, cost_length, cost_hidden, stats,
           pooling
  plots    the plots' Markdown links: buckets, sweep (SVGs drawn by matplotlib into RESULTS)
and numbers are formatted in the template by the filters num(digits), sig(digits), thousands,
pm(digits) (mean ± standard deviation over seeds) and n_of_m. A name the context does not have, a
configuration or mechanism the study does not know and a number printed without a filter are
errors naming the template's line, never an empty or invented figure.

Needs Debian's python3-jinja2 and python3-matplotlib: run it with /usr/bin/python3. --check only
says whether they are there. Exits 69 naming a missing package, 66 naming a missing result file,
65 for a template that asks for what the results do not hold.
"""
import argparse
import collections
import csv
import math
import os
import re
import statistics
import sys
import traceback

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

MAIN_LUONG = ["none-luong", "dot-luong", "general-luong", "additive-luong", "scaled-dot-luong",
              "multi-head-luong", "location-luong", "local-m-luong", "local-p-luong",
              "linear-luong"]
BAHDANAU = ["dot-bahdanau", "general-bahdanau", "additive-bahdanau"]
SWEEP = ["dot", "scaled-dot", "additive"]
MECHANISMS = ["none", "dot", "scaled-dot", "general", "additive", "multi-head", "location",
              "local-m", "local-p", "linear"]
BUCKETS = ["1-10", "11-15", "16-20", "21-99"]
# Each result file and the stage of run.sh that writes it.
RESULT_FILES = {"runs.tsv": "runs", "buckets.tsv": "runs", "speed-runs.tsv": "speed",
                "bootstrap.tsv": "report", "cost-length.tsv": "cost", "cost-hidden.tsv": "cost",
                "stats.tsv": "cost", "settings.tsv": "report", "machine.txt": "report",
                "aer-diagonal.tsv": "data"}
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


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readlines()
    except FileNotFoundError:
        stage = RESULT_FILES.get(os.path.basename(path))
        raise MissingInput(f"{path} not found" +
                           (f" (run.sh's stage \"{stage}\" writes it)" if stage else "")) from None


def read_tsv(path):
    """Rows of a TSV file as dicts, '#' comment lines skipped."""
    lines = [line for line in read_lines(path) if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def numbers(rows, column):
    """COLUMN's values in ROWS that are numbers ('n/a', '-' and empty cells left out)."""
    return [v for v in (number(row[column]) for row in rows) if v is not None]


# --- formatting: the template's filters, also used by the tables ----------------------------------

def num(value, digits=2):
    return DASH if value is None else f"{value:.{digits}f}"


def sig(value, digits=2):
    return DASH if value is None else f"{value:.{digits}g}"


def thousands(value):
    """A number with thousands separators; text that is no number (a file's '-') as written."""
    if isinstance(value, str):
        return value if number(value) is None else f"{float(value):,.0f}"
    return DASH if value is None else f"{value:,.0f}"


def pm(values, digits=2):
    """The mean ± standard deviation of the seeds' values; one seed's value alone."""
    if not values:
        return DASH
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.mean(values):.{digits}f} ± {statistics.stdev(values):.{digits}f}"


Tally = collections.namedtuple("Tally", "ahead seeds")
Spread = collections.namedtuple("Spread", "median largest")


def n_of_m(tally):
    return DASH if tally is None else f"{tally.ahead} of {tally.seeds}"


FILTERS = {"num": num, "sig": sig, "thousands": thousands, "pm": pm, "n_of_m": n_of_m}


def finalize(value):
    """What {{ … }} prints: text and counts as they are, None as a dash, never a bare float."""
    if value is None:
        return DASH
    if isinstance(value, (str, int, jinja2.Undefined)):
        return value  # an Undefined raises when printed, naming what is missing
    raise ReportError(f"{value!r} printed without a format: give it a filter "
                      f"({', '.join(FILTERS)})")


# --- the figures ----------------------------------------------------------------------------------

def ratio(a, b):
    return None if not a or not b else a / b


class Results:
    """The result files of one study, and the figures the page quotes from them."""

    def __init__(self, directory, pooling):
        self.dir = directory

        def path(name):
            return os.path.join(directory, name)

        self.runs = read_tsv(path("runs.tsv"))
        self.buckets = read_tsv(path("buckets.tsv"))
        # speed-runs.tsv: one row per configuration and round; the page shows medians.
        self.speed = {}
        for row in read_tsv(path("speed-runs.tsv")):
            self.speed.setdefault(row["id"], []).append(row)
        self.bootstrap = {row["id"]: row for row in read_tsv(path("bootstrap.tsv"))}
        self.cost_length = read_tsv(path("cost-length.tsv"))
        self.cost_hidden = read_tsv(path("cost-hidden.tsv"))
        self.stats = read_tsv(path("stats.tsv"))
        self.pooling = read_tsv(pooling)
        self.settings = dict(line.rstrip("\n").partition("\t")[::2]
                             for line in read_lines(path("settings.tsv")) if line.strip())
        self.machine = "; ".join(line.strip("# \n") for line in read_lines(path("machine.txt"))
                                 if line.strip()) or DASH
        diagonal = read_tsv(path("aer-diagonal.tsv"))
        self.aer_diagonal = number(diagonal[0]["aer"]) if diagonal else None
        # heed-bench-attn writes "# growth<TAB>mechanism<TAB>…<TAB>exponent<TAB>points".
        self.growth = {}
        for line in read_lines(path("cost-length.tsv")):
            if line.startswith("# growth\t"):
                fields = line.rstrip("\n").split("\t")
                if number(fields[-2]) is not None:
                    self.growth[fields[1]] = float(fields[-2])

    # Runs: ID is a configuration (MAIN_LUONG, BAHDANAU) or a sweep point, sweep-MECHANISM-hD.
    @staticmethod
    def check(run_id):
        if run_id not in MAIN_LUONG + BAHDANAU and not re.fullmatch(
                r"sweep-(%s)-h[0-9]+" % "|".join(map(re.escape, SWEEP)), run_id):
            raise ReportError(f"unknown configuration '{run_id}'")
        return run_id

    def rows(self, run_id):
        return [row for row in self.runs if row["id"] == self.check(run_id)]

    def values(self, run_id, column):
        """COLUMN of runs.tsv, one value per seed ID ran (n/a left out)."""
        return numbers(self.rows(run_id), column)

    def seed1(self, run_id):
        rows = self.rows(run_id)
        return rows[0] if rows else None

    def seed1_number(self, run_id, column):
        row = self.seed1(run_id)
        return number(row[column]) if row else None

    def bleu(self, run_id):
        return self.values(run_id, "bleu")

    def chrf(self, run_id):
        return self.values(run_id, "chrf")

    def ppl(self, run_id):
        return self.values(run_id, "best_val_ppl")

    def aer_argmax(self, run_id):
        return self.values(run_id, "aer_argmax")

    def aer_shift(self, run_id):
        return self.values(run_id, "aer_shift")

    def seeds(self, run_id):
        return len(self.rows(run_id))

    def params(self, run_id):
        """The attention's own parameters (seed 1's model)."""
        return self.seed1_number(run_id, "attention_params")

    def layer_params(self, run_id):
        """The Luong attentional layer's parameters (seed 1's model)."""
        return self.seed1_number(run_id, "attentional_layer_params")

    def gap(self, a, b):
        """Mean BLEU of configuration A minus that of B."""
        a, b = self.bleu(a), self.bleu(b)
        return statistics.mean(a) - statistics.mean(b) if a and b else None

    def seeds_ahead(self, a, b):
        """Of the seeds both A and B ran, those where A's BLEU is higher."""
        a, b = ({row["seed"]: number(row["bleu"]) for row in self.rows(i)} for i in (a, b))
        both = [seed for seed in a if seed in b and a[seed] is not None and b[seed] is not None]
        return Tally(sum(a[s] > b[s] for s in both), len(both)) if both else None

    def p(self, run_id):
        """bootstrap.tsv: the paired bootstrap p-value against dot with the same decoder, seed 1."""
        return number(self.bootstrap.get(self.check(run_id), {}).get("p"))

    # Speed: the medians over speed-runs.tsv's rounds.
    def speed_median(self, run_id, column):
        values = numbers(self.speed.get(self.check(run_id), []), column)
        return statistics.median(values) if values else None

    def tok_s(self, run_id):
        return self.speed_median(run_id, "train_tok_per_s")

    def sent_s(self, run_id):
        return self.speed_median(run_id, "translate_sent_per_s")

    def speed_rounds(self, run_id):
        return len(self.speed.get(self.check(run_id), []))

    def speed_spread(self, column):
        """How far apart the rounds are in COLUMN: fastest/slowest − 1 in %, the median over the
        configurations and the largest."""
        spreads = []
        for rows in self.speed.values():
            if column not in rows[0]:
                raise ReportError(f"speed-runs.tsv has no column '{column}'")
            values = [v for v in numbers(rows, column) if v]
            if len(values) > 1:
                spreads.append(100 * (max(values) / min(values) - 1))
        return Spread(statistics.median(spreads), max(spreads)) if spreads else None

    # Cost: forward+backward ms of one batch's attention.
    def cost(self, mechanism, length):
        """At source length LENGTH, hidden 512 (cost-length.tsv)."""
        return cost_at(self.cost_length, check_mechanism(mechanism), "source_length", length)

    def cost_d(self, mechanism, hidden):
        """At hidden size HIDDEN, source length 20 (cost-hidden.tsv)."""
        return cost_at(self.cost_hidden, check_mechanism(mechanism), "hidden", hidden)

    def cost_ratio(self, a, b, length):
        """The cost of mechanism A over that of B at source length LENGTH."""
        return ratio(self.cost(a, length), self.cost(b, length))

    def cost_growth(self, mechanism, short, long):
        """The cost at source length LONG over that at SHORT (hidden 512)."""
        return ratio(self.cost(mechanism, long), self.cost(mechanism, short))

    def cost_d_growth(self, mechanism, small, large):
        """The cost at hidden size LARGE over that at SMALL (source length 20)."""
        return ratio(self.cost_d(mechanism, large), self.cost_d(mechanism, small))

    def stat(self, distribution, mechanism, dim, column):
        """A figure of stats.tsv: inputs normal|tanh, dot|scaled-dot, width DIM."""
        row = self.find(self.stats, "stats.tsv", column, input=distribution,
                        mechanism=check_mechanism(mechanism), dim=dim)
        return number(row[column]) if row else None

    def pool(self, task, length, lengths, model, column):
        """A cell of pooling.tsv, as written."""
        row = self.find(self.pooling, "pooling.tsv", column, task=task, T=length,
                        lengths=lengths, model=model)
        return row[column] if row else None

    @staticmethod
    def find(rows, name, column, **key):
        """The first row whose columns have the values of KEY (compared as text)."""
        if rows and column not in rows[0]:
            raise ReportError(f"{name} has no column '{column}'")
        for row in rows:
            if all(row.get(k) == str(v) for k, v in key.items()):
                return row
        return None

    @property
    def total_minutes(self):
        """The training minutes of every run in runs.tsv, summed."""
        return sum(numbers(self.runs, "minutes"))


def check_mechanism(mechanism):
    if mechanism not in MECHANISMS:
        raise ReportError(f"unknown attention mechanism '{mechanism}'")
    return mechanism


def cost_at(rows, mechanism, column, value):
    """median_ms of the row of cost-length.tsv or cost-hidden.tsv with this mechanism and value."""
    for row in rows:
        if row.get("mechanism") == mechanism and row.get(column) == str(value):
            return number(row["median_ms"])
    return None


# --- tables ---------------------------------------------------------------------------------------

def markdown_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def config_table(results, ids):
    header = ["configuration", "seeds", "test2016 BLEU", "p vs dot", "chrF", "val ppl",
              "attention params", "attentional layer", "train tok/s", "translate sent/s",
              "AER argmax", "AER shift"]
    rows = [[f"`{i}`", results.seeds(i), pm(results.bleu(i)), num(results.p(i), 3),
             pm(results.chrf(i)), pm(results.ppl(i)), thousands(results.params(i)),
             thousands(results.layer_params(i)), thousands(results.tok_s(i)),
             num(results.sent_s(i), 0), pm(results.aer_argmax(i), 1), pm(results.aer_shift(i), 1)]
            for i in ids if results.rows(i)]
    return markdown_table(header, rows) if rows else "_No runs finished yet._"


def sweep_id(mechanism, hidden):
    return f"{mechanism}-luong" if hidden == 512 else f"sweep-{mechanism}-h{hidden}"


def sweep_points(results):
    return sorted({int(r["hidden"]) for r in results.runs if r["id"].startswith("sweep-")} | {512})


def sweep_table(results):
    hiddens = sweep_points(results)
    rows = []
    for mechanism in SWEEP:
        cells = []
        for hidden in hiddens:
            row = results.seed1(sweep_id(mechanism, hidden))
            ppl = number(row["best_val_ppl"]) if row else None
            cells.append(DASH if not row else
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
        rows.append([f"`{run_id}`"] + [num(means[b][1]) if b in means else DASH for b in BUCKETS])
    return markdown_table(header, rows)


def cost_table(rows, column, label, growth=None):
    """Mechanisms (in the file's order) by the values of COLUMN; a growth column if given."""
    values = sorted({int(r[column]) for r in rows if r.get(column)})
    mechanisms = list(dict.fromkeys(r["mechanism"] for r in rows if r.get("mechanism")))
    table = []
    for mechanism in mechanisms:
        cells = [num(cost_at(rows, mechanism, column, v)) for v in values]
        if growth is not None:
            cells.append(num(growth.get(mechanism)))
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

        def pair(column, fmt):
            return " / ".join(fmt(float(r[column])) for r in (dot, scaled))

        rows.append([inp, dim, pair("entropy_fraction", num), pair("max_weight", num),
                     pair("grad_scores_median", sig)])
    if not rows:
        return "_Not measured yet._"
    return markdown_table(["input", "d", "entropy / maximum (dot / scaled)",
                           "largest weight (dot / scaled)",
                           "median gradient through the softmax (dot / scaled)"], rows)


def generic_table(rows, columns):
    if not rows:
        return "_Not measured yet._"
    return markdown_table(columns, [[r.get(c, "") for c in columns] for r in rows])


def tables(results):
    return {
        "main": config_table(results, MAIN_LUONG),
        "bahdanau": config_table(results, ["dot-luong"] + BAHDANAU),
        "sweep": sweep_table(results),
        "buckets": buckets_table(results),
        "cost_length": cost_table(results.cost_length, "source_length", "S", results.growth),
        "cost_hidden": cost_table(results.cost_hidden, "hidden", "d"),
        "stats": stats_table(results),
        "pooling": generic_table(results.pooling, [
            "task", "T", "lengths", "model", "solved", "steps_to_solve", "final_accuracy",
            "params", "seconds", "note"]),
    }


# --- plots ----------------------------------------------------------------------------------------

# SVG that is the same byte for byte on every run: fixed ids, no date, text as text.
SVG_STYLE = {"svg.hashsalt": "heed-ablation", "svg.fonttype": "none", "font.family": "sans-serif",
             "font.size": 10, "axes.spines.top": False, "axes.spines.right": False}


def line_chart(path, title, x_labels, series, y_label):
    """x_labels evenly spaced, series {name: [y or None per label]}; False if there is no point."""
    if not any(v is not None for ys in series.values() for v in ys):
        return False
    from matplotlib.figure import Figure  # not pyplot: no global figures, no GUI
    with matplotlib.rc_context(SVG_STYLE):
        figure = Figure(figsize=(6.4, 4.0))
        axes = figure.add_subplot()
        for name, ys in series.items():
            xs = [i for i, v in enumerate(ys) if v is not None]
            axes.plot(xs, [ys[i] for i in xs], marker="o", markersize=4, linewidth=2, label=name)
        axes.set_xticks(range(len(x_labels)), x_labels)
        axes.set_ylabel(y_label)
        axes.set_title(title, loc="left")
        axes.grid(axis="y", color="#dddddd")
        axes.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        figure.savefig(path + ".tmp", format="svg", bbox_inches="tight", metadata={"Date": None})
    os.replace(path + ".tmp", path)
    return True


def plots(results, page_dir):
    """Draws each plot into RESULTS; {name: the page's Markdown link to it}."""
    series = {}
    for run_id in MAIN_LUONG:
        means = bucket_means(results, run_id)
        if means:
            series[run_id.replace("-luong", "")] = [means[b][1] if b in means else None
                                                    for b in BUCKETS]
    hiddens = sweep_points(results)
    charts = {
        "buckets": ("test2016 BLEU by source length (Luong decoder, mean over seeds)",
                    [bucket_label(b) + " words" for b in BUCKETS], series),
        "sweep": ("test2016 BLEU against hidden size d (seed 1)", [f"d = {h}" for h in hiddens],
                  {m: [results.seed1_number(sweep_id(m, h), "bleu") for h in hiddens]
                   for m in SWEEP}),
    }
    links = {}
    for name, (title, x_labels, lines) in charts.items():
        path = os.path.join(results.dir, f"{name}.svg")
        links[name] = (f"![{name}]({os.path.relpath(path, page_dir)})"
                       if line_chart(path, title, x_labels, lines, "BLEU")
                       else "_No runs finished yet._")
    return links


# --- the page -------------------------------------------------------------------------------------

def template_line(error, template):
    """The line of TEMPLATE where ERROR was raised, from the traceback Jinja2 rewrites."""
    if isinstance(error, jinja2.TemplateSyntaxError):
        return error.lineno
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__)
             if os.path.abspath(f.filename) == os.path.abspath(template)]
    return lines[-1] if lines else None


def render(template, results, page_dir):
    if not os.path.isfile(template):
        raise MissingInput(f"{template} not found")
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.dirname(os.path.abspath(template))),
        undefined=jinja2.StrictUndefined, finalize=finalize, keep_trailing_newline=True,
        trim_blocks=True, lstrip_blocks=True, autoescape=False)
    environment.filters.update(FILTERS)
    page = environment.get_template(os.path.basename(template))
    return page.render(r=results, tables=tables(results), plots=plots(results, page_dir))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", help="the result files (experiments/ablation/results)")
    parser.add_argument("--template", help="the page's Jinja2 template (ablation.md.j2)")
    parser.add_argument("--output", help="the page (docs/ablation.md)")
    parser.add_argument("--pooling", default=None,
                        help="heed-pooling's results "
                        "(default: experiments/pooling/results/pooling.tsv)")
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
    for option in ("results", "template", "output"):
        if getattr(args, option) is None:
            parser.error(f"--{option} is required")
    matplotlib.use("Agg")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pooling = args.pooling or os.path.join(root, "experiments", "pooling", "results", "pooling.tsv")
    try:
        results = Results(args.results, pooling)
        page = render(args.template, results, os.path.dirname(os.path.abspath(args.output)))
    except (ReportError, jinja2.TemplateError) as error:
        line = None if isinstance(error, MissingInput) else template_line(error, args.template)
        where = f"{args.template}:{line}: " if line else ""
        print(f"report.py: {where}{error}", file=sys.stderr)
        return getattr(error, "exit_code", 65)
    with open(args.output + ".tmp", "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(args.output + ".tmp", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
