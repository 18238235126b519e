"""The probes of the trained models in the ablation's page: their attention's saturation, what the
scorers' parameters learned, the long inputs (whole, one by one, made to go on), beam search
beside greedy, the pooled set by source length, the mechanistic checks against their
counterparts. A part of report.py's Results."""
import functools
import glob
import gzip
import os
import statistics

from figures_base import *  # noqa: F401,F403  (the result files' readers and the formats)


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


class ProbeFigures:
    """The probes' tables and comparisons, and the figures the page quotes from them."""

    def load_probes(self, path):
        """The probes' files of RESULTS (PATH(name): its file)."""
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

    def beam_comparison(self, config_id, greedy=False, family=None, name=None):
        """CONFIG_ID against the baseline of its family (or of FAMILY, one it joins) with beam
        search on the pooled set (compare/FAMILY.beam.tsv), or greedy on the same runs
        (FAMILY.beam-greedy.tsv), or NAME's comparison; None: not yet."""
        name = name or ("beam-greedy" if greedy else "beam")
        return self.compare.get((family or self.family(config_id), name), {}).get(
            (config_id, "BLEU"))

    def learned(self, config_id, column):
        """What CONFIG_ID's scorer parameters learned (parameters.tsv's COLUMN), its runs' values."""
        return numbers(unit_rows(self, self.parameters, config_id), column)

    def saturation_of(self, config_id, column):
        """A statistic of CONFIG_ID's trained attention (saturation.tsv's COLUMN: entropy_fraction,
        max_weight, score_sd, …), its compared runs' values."""
        return numbers(unit_rows(self, self.saturation, self.check(config_id)), column)

    def long_part(self, config_id, part):
        """Where CONFIG_ID's BLEU goes on the long inputs, its compared runs' values of PART:
        ratio_long, bp_long, precision_long (and _joined: one by one), share (of the loss that
        is the brevity penalty's), ends_long (long_length_parts)."""
        return long_length_parts(self, self.check(config_id))[part]

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
            text += (f"; the beam's change of the difference: {change.interval} BLEU "
                     f"({common.p_phrase('Holm p', change.p_holm_text)})")
        return text

    def beam_change(self, config_id):
        """What the beam does to CONFIG_ID's difference from its baseline, a Comparison of the
        runs' gains over their greedy translations (compare/FAMILY.beam-gain.tsv: heed-score
        --minus, hierarchical bootstrap over runs and sentences, Holm over the family); None:
        not yet."""
        return self.beam_comparison(config_id, name="beam-gain")

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
