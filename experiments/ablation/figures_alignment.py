"""The attention as alignment in the ablation's page: each run's argmax and shift links against
silver links (in domain), their comparisons, and the Hansards study's gold (how silver agrees
with gold, the mechanisms compared on gold). A part of report.py's Results."""
import glob
import os

from figures_base import *  # noqa: F401,F403  (the result files' readers and the formats)


class AlignmentFigures:
    """silver.tsv, silver-baselines.tsv, silver-curves.tsv, silver-compare/ and the Hansards
    study's results."""

    def load_alignment(self, path, alignment):
        """The alignment files of RESULTS (PATH(name): its file) and of the Hansards study
        (ALIGNMENT)."""
        # The kept argmax links against the silver links: FAMILY or "diagonal" → {system: ...}.
        aer_margin = number(self.settings.get("aer_margin")) or 1
        self.silver_compare = {
            os.path.basename(file)[:-4]: {
                system: c for (system, _), c in read_comparisons(
                    file, aer_margin, os.path.basename(file) != "diagonal.tsv").items()}
            for file in sorted(glob.glob(path("silver-compare/*.tsv")))}
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

    def silver_vs_gold(self, name, column="aer"):
        """A figure of the Hansards study's silver-against-gold check (None when not there)."""
        row = self.silver_check.get(name)
        return number(row.get(column)) if row else None
