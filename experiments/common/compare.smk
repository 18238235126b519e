# The multi-run comparison every study makes the same way, shared by include: heed-score --system
# (translations against a reference) or heed-align score --system (links against gold links),
# each system a name and the files of its runs, the first system the baseline. The tools compute
# everything (the difference, its 95 % interval from a hierarchical bootstrap over the runs and
# the sentences, Holm over the systems, TOST at ±margin, Welch's interval over the runs alone);
# a report only words their TSV (experiments/common/reporting.py).
#
#   compare_runs(BIN, "score", REFERENCE, [(NAME, [RUN, …]), …], OUTPUT, BOOTSTRAP, MARGIN,
#                lowercase=True)                      # heed-score, BLEU and chrF
#   compare_runs(BIN, "align", GOLD, [(NAME, [RUN, …]), …], OUTPUT, BOOTSTRAP, MARGIN)  # AER
#                (one_based=True: GOLD's links count from 1, as the Hansards gold's)
#
# It is a function, not a rule: what a system's runs are, and where their files come from, is the
# study's (its rule's input function names them, its run: block calls this).
import subprocess


def compare_runs(bin_dir, tool, reference, systems, output, bootstrap, margin, lowercase=True,
                 one_based=False, minus=()):
    """The --system comparison of SYSTEMS [(name, [files])] into OUTPUT (TSV); MINUS
    [(name, [files])]: heed-score --minus, each run scored as its gain over these."""
    if tool == "score":
        command = [f"{bin_dir}/heed-score"] + (["--lowercase"] if lowercase else []) + [
            "-r", reference]
    elif tool == "align":
        command = [f"{bin_dir}/heed-align", "score", "--gold", reference] + (
            ["--one-based"] if one_based else [])
    else:
        raise ValueError(f"compare_runs: tool '{tool}': score or align")
    for name, runs in systems:
        command += ["--system", f"{name}=" + ",".join(runs)]
    for name, runs in minus:
        command += ["--minus", f"{name}=" + ",".join(runs)]
    command += ["--bootstrap", str(bootstrap), "--equivalence-margin", str(margin), "-q",
                "-o", output]
    if tool == "score":
        command[-3:-3] = ["--format", "tsv"]
    subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
