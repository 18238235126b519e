"""The cost of attention in the ablation's page: heed-bench-attn's timings against source length and
hidden size, its saturation statistics of random vectors, and attention's share of a training
update and of a decoding step (the phase benchmarks). A part of report.py's Results."""
import glob
import os
import re
import statistics

from figures_base import *  # noqa: F401,F403  (the result files' readers and the formats)


class CostFigures:
    """cost-length.tsv, cost-hidden.tsv, stats.tsv and share/*.tsv, and the figures the page
    quotes from them."""

    def load_cost(self, path):
        """The cost files of RESULTS (PATH(name): its file)."""
        self.cost_length = read_tsv(path("cost-length.tsv"), required=False)
        self.cost_hidden = read_tsv(path("cost-hidden.tsv"), required=False)
        self.stats = read_tsv(path("stats.tsv"), required=False)
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
        # heed-bench-attn writes "# growth<TAB>mechanism<TAB>…<TAB>exponent<TAB>points".
        self.growth = {}
        for line in read_lines(path("cost-length.tsv"), required=False) or []:
            if line.startswith("# growth\t"):
                fields = line.rstrip("\n").split("\t")
                if number(fields[-2]) is not None:
                    self.growth[fields[1]] = float(fields[-2])

    # Cost: forward+backward ms of one batch's attention (cost-*.tsv).
    def cost(self, mechanism, length):
        return cost_at(self.cost_length, check_mechanism(mechanism), "source_length", length)

    def cost_mb(self, mechanism, length):
        """The working buffers of one batch's attention at source length LENGTH, MB."""
        found = cost_at(self.cost_length, check_mechanism(mechanism), "source_length", length,
                        "bytes")
        return None if found is None else found / 1e6

    def cost_ratio(self, a, b, length):
        return ratio(self.cost(a, length), self.cost(b, length))

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

    def attention_share(self, mechanism, mode="train"):
        """Attention's share of a training update ("train") or of a decoding step ("greedy",
        "beam5"), the median over the share stage's rounds (None: not measured)."""
        shares = [number(r["phases"]["attention"]["share"])
                  for r in self.share.get((check_mechanism(mechanism), mode), [])
                  if "attention" in r["phases"]]
        return statistics.median(shares) if shares else None

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
