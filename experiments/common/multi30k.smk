# The Multi30k German→English recipe as Snakemake rules, one per kind of step: prepare the data,
# train one run, average its last stages' models, translate, score, choose the beam's length
# penalty on the validation set, and assemble the run's rows. Scored as the PyTorch peer
# (../shared/peers/multi30k_quality.py) scores: lowercased text, one joint BPE of 8,000 merges,
# test2016 BLEU of the detokenized output against the raw lowercased reference (13a, as
# sacreBLEU -lc).
#
# A study includes it after loading experiments/common/multi30k.yaml (the recipe's settings) and
# its own config, then names its configurations with multi30k_add(NAME, **SETTINGS), each
# setting a key of multi30k.yaml that replaces the recipe's. A run is a configuration and a
# seed, and its files are WORK/runs/NAME/sSEED/: heed-train's directory (model.step-K.heed of
# each stage, model.heed the best, checkpoint.heed), metrics.tsv, train.done (written only when
# heed-train exits 0), hyp/ (translations and their BLEU), alpha and rows.tsv:
#
#   stage  updates  minutes  val_ppl  val_bleu  test2016_greedy  test2016_beam  alpha
#
# stage is the stage's number, avgN for the average of the last N stages' models (updates and
# minutes: the last of them; val_ppl and val_bleu: "-", not measured), or best for the best model
# of a run stopped early (--patience in train_options; its updates: those of its validation).
# minutes are heed-train's own training time up to the stage (validation included; they grow
# with the load of the machine, the updates do not).
#
# Training is a checkpoint rule: which models a run keeps (all stages, or fewer and the best one
# after an early stop) is known only once it has trained. Its only output is train.done, so that
# Snakemake, which deletes a job's outputs before running it and after it fails, never deletes a
# model or a checkpoint: an interrupted run resumes from DIR/checkpoint.heed (heed-train
# --resume) when its rule runs again.
import os
import pathlib
import re
import sys

include: "workflow.smk"


def default_precision():
    """bf16 where the CPU has it, else f32 (bench/machine.sh's heed_default_precision)."""
    try:
        flags = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return "f32"
    return "bf16" if re.search(r"\b(avx512_bf16|amx_bf16)\b", flags) else "f32"


MULTI30K_BIN = study_path(config["bin"])
MULTI30K_DATA = study_path(config["data"])
MULTI30K_WORK = study_path(config["work"])
MULTI30K_RUN = MULTI30K_WORK + "/runs/{name}/s{seed}"
MULTI30K_KEYS = ("updates", "stages", "valid_every", "precision", "threads", "train_options",
                 "model_options", "extra", "beam", "alphas", "alpha", "average")


def multi30k_settings(name, overrides):
    """The recipe's settings with OVERRIDES, those of configuration NAME, checked."""
    s = {key: config.get(key) for key in MULTI30K_KEYS}
    s.update(overrides)
    try:
        for key in ("updates", "stages", "valid_every", "threads", "beam", "average"):
            s[key] = int(s[key] or 0)
    except ValueError as e:
        raise WorkflowError(f"multi30k: {name}: {e}")
    for key in ("train_options", "model_options", "extra"):
        s[key] = str(s[key] or "")
    alphas = s["alphas"]
    s["alphas"] = [str(a) for a in (alphas if isinstance(alphas, list) else str(alphas).split())]
    s["alpha"] = str(s["alpha"]) if s["alpha"] not in (None, "") else ""
    if s["precision"] in (None, "", "auto"):
        s["precision"] = default_precision()
    # Whole stages, and whole half stages where validation is every half stage (valid_every 0).
    halves = 1 if s["valid_every"] else 2
    if s["stages"] < 1 or s["updates"] < 1 or s["updates"] % (halves * s["stages"]):
        raise WorkflowError(f"multi30k: {name}: updates ({s['updates']}) must be a multiple of "
                            f"{'2 × ' * (halves - 1)}stages ({s['stages']})")
    if not 0 <= s["average"] <= s["stages"]:
        raise WorkflowError(f"multi30k: {name}: average ({s['average']}) must be a number of "
                            f"stages from 0 to stages ({s['stages']})")
    if not s["alpha"] and not s["alphas"]:
        raise WorkflowError(f"multi30k: {name}: no alphas to try and no alpha")
    s["stage_updates"] = s["updates"] // s["stages"]
    s["valid_every"] = s["valid_every"] or s["stage_updates"] // 2
    return s


MULTI30K = {}  # the study's configurations: name → settings


def multi30k_add(name, **overrides):
    """Configuration NAME: the recipe with OVERRIDES (keys of multi30k.yaml)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", name):
        raise WorkflowError(f"multi30k: configuration name '{name}': letters, digits, '.', '_', "
                            "'+', '-'")
    MULTI30K[name] = multi30k_settings(name, overrides)


def multi30k_run_dir(name, seed):
    return MULTI30K_RUN.format(name=name, seed=seed)


# Steps of a few seconds run where Snakemake runs, never as cluster jobs.
localrules: multi30k_score, multi30k_alpha, multi30k_rows

wildcard_constraints:
    name=r"[^/]+",
    seed=r"\d+",
    set="val|test",
    model=r"step-\d+|best|avg\d+",
    decode=r"greedy|beam|a[0-9.]+",


def run_dir(wildcards):
    return multi30k_run_dir(wildcards.name, wildcards.seed)


def settings(wildcards):
    return MULTI30K[wildcards.name]


def stopped_early(metrics):
    """Whether heed-train's metrics file marks an early stop (its event column)."""
    if not os.path.exists(metrics):
        return False
    with open(metrics, encoding="utf-8") as f:
        return any("early-stop" in (line.rstrip("\n").split("\t") + [""] * 10)[9] for line in f)


def trained(wildcards):
    """What a trained run kept: {"rows": [(stage, model, updates)], "last": model, "averaged":
    [models]}, the models named as in hyp/ (step-K, best, avgN). Known once it has trained."""
    checkpoints.multi30k_train.get(name=wildcards.name, seed=wildcards.seed)
    s, run = settings(wildcards), run_dir(wildcards)
    steps = [k * s["stage_updates"] for k in range(1, s["stages"] + 1)]
    kept = [u for u in steps if os.path.exists(f"{run}/model.step-{u}.heed")]
    # After an early stop the last model is the best one, DIR/model.heed, and later stages have
    # none.
    rows = [(str(steps.index(u) + 1), f"step-{u}", u) for u in kept]
    if stopped_early(f"{run}/metrics.tsv"):
        rows.append(("best", "best", "best"))
    averaged = kept[-s["average"]:] if s["average"] > 1 else []
    if len(averaged) == s["average"] > 1:
        rows.append((f"avg{s['average']}", f"avg{s['average']}", averaged[-1]))
    last = f"step-{s['updates']}" if s["updates"] in kept else "best"
    return {"rows": rows, "last": last,
            "averaged": [f"{run}/model.step-{u}.heed" for u in averaged]}


# 1. Tokenize (lowercased), learn one joint BPE on German and English, apply it; the lowercased
#    references. Shared by every run in WORK.
# The raw corpus is read as ancient: its files' times say nothing (a copy, a checkout or a new
# deployment of the same text gives them new ones, which would redo the preparation and, through
# it, every run); a changed corpus needs a new `work`.
rule multi30k_prepare:
    input:
        ancient(expand(MULTI30K_DATA + "/{split}.{lang}",
                       split=["train", "val", "test_2016_flickr"], lang=["de", "en"])),
    output:
        codes=MULTI30K_WORK + "/codes",
        bpe=expand(MULTI30K_WORK + "/{split}.bpe.{lang}", split=["train", "val"],
                   lang=["de", "en"]),
        refs=expand(MULTI30K_WORK + "/{split}.ref.lc.en", split=["val", "test"]),
    params:
        bin=MULTI30K_BIN,
        data=MULTI30K_DATA,
        work=MULTI30K_WORK,
    threads: config["threads"]
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        """
        tok="--mode aggressive --lowercase --threads {threads}"
        for l in de en; do
          {params.bin}/heed-tokenize $tok -i {params.data}/train.$l -o {params.work}/train.tok.$l
        done
        {params.bin}/heed-tokenize learn-bpe --merges 8000 -i {params.work}/train.tok.de \
          -i {params.work}/train.tok.en -o {output.codes}
        for split in train val; do
          for l in de en; do
            {params.bin}/heed-tokenize $tok --bpe {output.codes} -i {params.data}/$split.$l \
              -o {params.work}/$split.bpe.$l
          done
        done
        lc() {{ tr '[:upper:]' '[:lower:]'; }}
        lc < {params.data}/val.en > {params.work}/val.ref.lc.en
        lc < {params.data}/test_2016_flickr.en > {params.work}/test.ref.lc.en
        """


def train_options(wildcards):
    s, run, w = settings(wildcards), run_dir(wildcards), MULTI30K_WORK
    return (f"--train-src {w}/train.bpe.de --train-tgt {w}/train.bpe.en "
            f"--valid-src {w}/val.bpe.de --valid-tgt {w}/val.bpe.en "
            f"--bpe {w}/codes --tokenizer-mode aggressive --tokenizer-lowercase "
            f"{s['model_options']} --label-smoothing 0.1 --clip 5 --batch-size 64 "
            f"--vocab-size 10000 --max-steps {s['updates']} --valid-every {s['valid_every']} "
            f"--save-every {s['stage_updates']} --keep-models {s['stages']} "
            f"--seed {wildcards.seed} --precision {s['precision']} "
            f"--metrics-file {run}/metrics.tsv -o {run} {s['train_options']} {s['extra']}")


# 2. Train one run, validated twice a stage (by default), the model of every stage kept. A run
#    with a checkpoint resumes from it; one without starts again from nothing.
checkpoint multi30k_train:
    input:
        rules.multi30k_prepare.output.codes,
        rules.multi30k_prepare.output.bpe,
    output:
        MULTI30K_RUN + "/train.done",
    params:
        bin=MULTI30K_BIN,
        run=run_dir,
        last=lambda wildcards: f"model.step-{settings(wildcards)['updates']}.heed",
        options=train_options,
    threads: lambda wildcards: settings(wildcards)["threads"]
    resources:
        mem_mb=4000,
        # 10,200 updates: 30 minutes on an idle Zen 5 (2 threads, bf16), 60-85 beside others.
        runtime=lambda wildcards: 30 + settings(wildcards)["updates"] // 50,
    shell:
        """
        dir={params.run}
        stopped_early() {{ cut -f10 $dir/metrics.tsv 2>/dev/null | grep -q early-stop; }}
        if [ -f $dir/{params.last} ] || stopped_early; then
          echo "multi30k: {wildcards.name}/s{wildcards.seed}: trained already" >&2
        else
          """ + resume_or_start("multi30k: {wildcards.name}/s{wildcards.seed}") + """
          {params.bin}/heed-train {params.options} --threads {threads} $resume -q
        fi
        touch {output}
        """


# 3. The average of the last N stages' models (after an early stop: of the last N it kept).
rule multi30k_average:
    input:
        lambda wildcards: trained(wildcards)["averaged"],
    output:
        MULTI30K_RUN + "/model.avg{n}.heed",
    params:
        bin=MULTI30K_BIN,
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "{params.bin}/heed-average -q -o {output} {input}"


def translate_inputs(wildcards):
    run = run_dir(wildcards)
    model = (f"{run}/model.heed" if wildcards.model == "best"
             else f"{run}/model.{wildcards.model}.heed")
    source = {"val": "val", "test": "test_2016_flickr"}[wildcards.set]
    inputs = {"trained": f"{run}/train.done", "model": model,
              "source": ancient(f"{MULTI30K_DATA}/{source}.de")}
    if wildcards.decode == "beam":
        inputs["alpha"] = f"{run}/alpha"
    return inputs


def beam_and_penalty(wildcards):
    """greedy: beam 1, no penalty; aX: the beam, penalty X; beam: the penalty of the alpha file."""
    if wildcards.decode == "greedy":
        return "--beam-size 1 --length-penalty 0"
    penalty = (f"$(cat {run_dir(wildcards)}/alpha)" if wildcards.decode == "beam"
               else wildcards.decode[1:])
    return f"--beam-size {settings(wildcards)['beam']} --length-penalty {penalty}"


# 4. A model (step-K, best or avgN) translates a set (val or test, test2016) greedily, with the
#    beam and the chosen length penalty (beam), or with the beam and penalty X (aX).
rule multi30k_translate:
    input:
        unpack(translate_inputs),
    output:
        MULTI30K_RUN + "/hyp/{set}.{model}.{decode}",
    params:
        bin=MULTI30K_BIN,
        precision=lambda wildcards: settings(wildcards)["precision"],
        search=beam_and_penalty,
    threads: lambda wildcards: settings(wildcards)["threads"]
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "{params.bin}/heed-translate -m {input.model} " + "{params.search}" + " --precision "
        "{params.precision} --threads {threads} -i {input.source} -o {output}"


# 5. BLEU of a translation, lowercased, against the lowercased raw reference.
rule multi30k_score:
    input:
        hyp=MULTI30K_RUN + "/hyp/{set}.{model}.{decode}",
        ref=MULTI30K_WORK + "/{set}.ref.lc.en",
    output:
        MULTI30K_RUN + "/hyp/{set}.{model}.{decode}.bleu",
    params:
        bin=MULTI30K_BIN,
    shell:
        r"""{params.bin}/heed-score --lowercase -m bleu -r {input.ref} --hyp {input.hyp} |
            sed 's/^[^=]*= \([0-9.]*\) .*/\1/' > {output}"""


def alpha_scores(wildcards):
    s = settings(wildcards)
    if s["alpha"]:
        return {}
    last = trained(wildcards)["last"]
    return {a: f"{run_dir(wildcards)}/hyp/val.{last}.a{a}.bleu" for a in s["alphas"]}


# 6. The length penalty that gives the last model its best validation BLEU (the first of the
#    best, in the order of alphas), or the one the settings fix.
rule multi30k_alpha:
    input:
        unpack(alpha_scores),
    output:
        MULTI30K_RUN + "/alpha",
    run:
        s = settings(wildcards)
        choice, best = s["alpha"], -1.0
        for alpha in [] if choice else s["alphas"]:
            score = pathlib.Path(input[alpha]).read_text().strip()
            print(f"multi30k: {wildcards.name}/s{wildcards.seed}: beam {s['beam']}, alpha {alpha}: "
                  f"validation BLEU {score}", file=sys.stderr)
            if float(score) > best:
                choice, best = alpha, float(score)
        pathlib.Path(output[0]).write_text(choice + "\n")


def rows_inputs(wildcards):
    run = run_dir(wildcards)
    inputs = {"alpha": f"{run}/alpha"}
    for _, model, _ in trained(wildcards)["rows"]:
        for decode in ("greedy", "beam"):
            inputs[f"{model}.{decode}"] = f"{run}/hyp/test.{model}.{decode}.bleu"
    return inputs


def metrics_row(metrics, updates):
    """The metrics line at UPDATES that has a validation ("best": the last line marked best); a
    resumed run may log a step twice: the last line wins."""
    row = None
    with open(metrics, encoding="utf-8") as f:
        for line in f:
            cells = line.rstrip("\n").split("\t") + [""] * 10
            if updates == "best":
                at = "best" in cells[9]
            else:
                at = cells[0] == str(updates) and cells[6] != ""
            if at:
                row = cells
    if row is None:
        raise WorkflowError(f"{metrics}: no validation at update {updates}")
    return row


# 7. The run's table: a row per stage's model, the best model after an early stop, and the
#    average; test2016 greedy and with the beam, the validation scores heed-train logged.
rule multi30k_rows:
    input:
        unpack(rows_inputs),
    output:
        MULTI30K_RUN + "/rows.tsv",
    run:
        s, run = settings(wildcards), run_dir(wildcards)
        alpha = pathlib.Path(input.alpha).read_text().strip()
        lines = ["\t".join(["stage", "updates", "minutes", "val_ppl", "val_bleu", "test2016_greedy",
                            "test2016_beam", "alpha"])]
        for stage, model, updates in trained(wildcards)["rows"]:
            m = metrics_row(f"{run}/metrics.tsv", updates)
            validated = not stage.startswith("avg")
            greedy, beam = (pathlib.Path(input[f"{model}.{d}"]).read_text().strip()
                            for d in ("greedy", "beam"))
            lines.append("\t".join([stage, m[0], f"{float(m[8]) / 60:.1f}",
                                    m[6] if validated else "-", m[7] if validated else "-",
                                    greedy, beam, alpha]))
        if s["average"] > 1 and not any(line.startswith("avg") for line in lines):
            print(f"multi30k: {wildcards.name}/s{wildcards.seed}: fewer stage models kept than "
                  f"average ({s['average']}): no averaged row", file=sys.stderr)
        pathlib.Path(output[0]).write_text("\n".join(lines) + "\n")
