#!/usr/bin/env bash
# Which attention aligns? (issue 33; docs/alignment.md, "Which attention aligns"). In domain, on
# the Hansards gold, with the corpus and BPE of run.sh: translation models with each core
# attention mechanism, trained without guidance in both directions, their attention read as
# word alignments every way heed reads it, beside heed-align ibm2, fast_align, a diagonal
# baseline and the guided models of run.sh.
#
#   BIN=/tmp/heed-align33-bin FAST_ALIGN=/path/to/fast_align/build \
#     nohup bash experiments/alignment-hansards/study.sh > study.log 2>&1 &    # 5-9 hours
#   bash experiments/alignment-hansards/study.sh --quick                     # a few minutes
#
# Run the full study from a copy of the binaries outside the work tree (BIN), so that rebuilding
# heed meanwhile changes nothing. Every unit is skipped when its rows are in RESULTS, so the study
# can be stopped at any point and called again; an interrupted training resumes from its
# checkpoint. Stages (STAGES, default "baselines models trial heatmaps compare silver report"):
#   baselines  run.sh's corpus and classic aligners (lib.sh), then rows for ibm2, fast_align
#              (when FAST_ALIGN names its build directory) and the diagonal baseline (every
#              target word linked to the source word at the same relative position) in
#              RESULTS/aer.tsv.
#   models     for each MECHANISM:SEED of QUEUE and each direction of DIRECTIONS (fwd: en→fr,
#              rev: fr→en), one heed-train run of UPDATES updates (the protocol of the
#              convergence study, docs/benchmarks.md: Adam 0.001, cosine to 1e-5 after 500
#              warm-up updates, exponential smoothing 1e-3, label smoothing 0.1; early stopping
#              after PATIENCE validations without a better perplexity on VALID_PAIRS held-out
#              pairs; a model kept every SAVE_EVERY updates). Its best model (validation
#              perplexity) is read on the 447 test pairs by argmax, shift and threshold 0.5 per
#              direction, every symmetrization of the argmax and of the shift links, and agree:
#              RESULTS/aer.tsv. The mechanisms of CURVE (seed 1) are read the same way at every
#              kept model: RESULTS/checkpoints.tsv. Training: RESULTS/training.tsv and heed-train's
#              metrics in RESULTS/metrics/.
#   trial      every reading of aer.tsv again on the 37 trial sentences, against their gold
#              (RESULTS/trial.tsv, the same columns), for the baselines and every model the
#              models stage finished (during that stage, as each model finishes): the report chooses each system's reading on them and shows its
#              test AER beside the best reading on the test set itself.
#   heatmaps   the attention of each seed-1 en→fr model on the test pairs HEATMAP_PAIRS (ids
#              from 0), drawn by heed-align plot with its argmax links and the gold:
#              RESULTS/heatmaps/MECHANISM.ID.svg (the report assembles them into one page).
#              The models stage draws them as each model is read, so that they outlive WORK;
#              a model read on an earlier machine without its heatmaps is trained again for
#              them (REDRAW=1, the default; 0: not), its validations checked against the kept
#              run's.
#   compare    the differences the page's claims rest on, with 95 % intervals over the seeds
#              and the test sentences (heed-align score --system): each mechanism, read the
#              way its trial sentences choose, against the better classic aligner, the diagonal
#              and dot: RESULTS/compare/{aligner,diagonal,dot}.tsv. Models read on an earlier
#              machine are trained again for their links (REDRAW=1).
#   silver     silver links (experiments/multi30k/silver.sh) measured where gold exists:
#              ibm2's grow-diag-final-and against the Hansards gold on the whole corpus and on a
#              Multi30k-sized part of it, and built from Multi30k de–en + the RWTH sentences
#              against the RWTH gold; the Multi30k test2016 silver links themselves, the
#              diagonal baseline against them, and each model of SILVER_MODELS (de→en models
#              of the ablation's tokenization) against them: RESULTS/silver.tsv.
#   report     report.py: the tables into PAGE between its generated markers, the SVG of AER
#              against updates (RESULTS/emergence.svg) and the heatmap page
#              (RESULTS/heatmaps.html). Also run after each model.
#
# The budget: in updates (batches of 64 pairs), never in seconds. The study is 20 models (7
# mechanisms × 2 directions, and a second seed of dot, general and additive) and should fit in
# about 8 hours of this 2-core machine: about 24 minutes a model, its readings included. How
# UPDATES was chosen: short runs of this protocol (80 updates, the seconds of updates 20-60)
# of each mechanism on this corpus, interleaved with the Multi30k convergence recipe's, on the
# shared machine (load 9-12, 2026-11-27): an update here costs 0.67-0.95 of a Multi30k one
# (mean 0.83; local-m and scaled-dot cheapest, multi-head dearest, the spread within the noise),
# and a Multi30k update takes 0.176 s on the idle machine (the 10th percentile of 100-update
# intervals in experiments/convergence/results/cosine-ema-s1.metrics.tsv: 340 a minute). So
# about 360-510 updates an idle minute here; run.sh's older runs had 250-300 (2,500 in 10
# minutes, 5,500-6,000 in 20). UPDATES=6000 is then 12-17 idle minutes of training a model
# (20-24 at the older rates), plus about a minute of validations (10 × 500 pairs, 100 greedy)
# and a minute of readings, and 20 × 6 forced decodings of the test pairs (3-4 s each) more for
# each mechanism of CURVE, about half an hour: 5-7 hours in all at the rates measured now, up to
# 9 at the older ones. 6,000 updates is also the budget of run.sh's guided models (20 minutes
# then), so the study's rows and the guided reference meet at equal training.
#
# Disk: WORK grows to about 21 GB (each model keeps its 20 models of 42 MB and a 168 MB checkpoint).
#
# Environment: BIN (default build/bin), DATA (../shared/data beside the repository), WORK
# (/tmp/heed-align-study), RESULTS (experiments/alignment-hansards/results), PAGE
# (docs/alignment.md), FAST_ALIGN (optional), THREADS (2: each training's), JOBS (1; 2: a
# mechanism's two directions train at once, best with THREADS=1), PRECISION (bf16), UPDATES (6000),
# SAVE_EVERY (300), VALID_EVERY (600), WARMUP (500), PATIENCE (4), VALID_PAIRS (500),
# VALID_BLEU (100: the greedy validation BLEU's sentences), HANSARDS_COPIES (20, as run.sh),
# QUEUE, DIRECTIONS ("fwd rev"), CURVE ("dot general additive multi-head"), HEATMAP_PAIRS
# ("21 80 139 199 272"), SILVER_MODELS (model files, none by default), REDRAW (1), STAGES. --quick changes
# the defaults of WORK (/tmp/heed-align-study-quick), RESULTS (WORK/results: a smoke run's
# numbers stay out of the repository), PAGE (RESULTS/alignment.md, a copy of docs/alignment.md),
# UPDATES (60), SAVE_EVERY and VALID_EVERY (20), WARMUP (10), VALID_PAIRS (100), VALID_BLEU (10),
# QUEUE ("dot:1 general:1"), DIRECTIONS (fwd) and CURVE ("dot general").
{ # Bash reads a script as it runs it: the braces make it read this one whole first, so that the
  # study, hours long, is not disturbed when the checkout changes under it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/lib.sh"
source "$root/experiments/multi30k/silver.sh"

quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: study.sh [--quick]" >&2; exit 64 ;;
esac
BIN=${BIN:-$root/build/bin}
[ -x "$BIN/heed-train" ] ||
  { echo "study: $BIN/heed-train not found (build heed, or set BIN to a copy of build/bin)" >&2; exit 69; }
DATA=${DATA:-$root/../shared/data}
FAST_ALIGN=${FAST_ALIGN:-}
THREADS=${THREADS:-2}
JOBS=${JOBS:-1}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "study: JOBS '$JOBS' is not a count" >&2; exit 64; }
PRECISION=${PRECISION:-bf16}
HANSARDS_COPIES=${HANSARDS_COPIES:-20}
PATIENCE=${PATIENCE:-4}
HEATMAP_PAIRS=${HEATMAP_PAIRS:-21 80 139 199 272}
SILVER_MODELS=${SILVER_MODELS:-}
REDRAW=${REDRAW:-1}
STAGES=${STAGES:-baselines models trial heatmaps compare silver report}
if [ "$quick" = 1 ]; then
  WORK=${WORK:-/tmp/heed-align-study-quick}
  RESULTS=${RESULTS:-$WORK/results}
  PAGE=${PAGE:-$RESULTS/alignment.md}
  UPDATES=${UPDATES:-60}
  SAVE_EVERY=${SAVE_EVERY:-20}
  VALID_EVERY=${VALID_EVERY:-20}
  WARMUP=${WARMUP:-10}
  VALID_PAIRS=${VALID_PAIRS:-100}
  VALID_BLEU=${VALID_BLEU:-10}
  QUEUE=${QUEUE:-dot:1 general:1}
  DIRECTIONS=${DIRECTIONS:-fwd}
  CURVE=${CURVE:-dot general}
else
  WORK=${WORK:-/tmp/heed-align-study}
  RESULTS=${RESULTS:-$here/results}
  PAGE=${PAGE:-$root/docs/alignment.md}
  UPDATES=${UPDATES:-6000}
  SAVE_EVERY=${SAVE_EVERY:-300}
  VALID_EVERY=${VALID_EVERY:-600}
  WARMUP=${WARMUP:-500}
  VALID_PAIRS=${VALID_PAIRS:-500}
  VALID_BLEU=${VALID_BLEU:-100}
  QUEUE=${QUEUE:-dot:1 general:1 additive:1 multi-head:1 scaled-dot:1 location:1 local-m:1 dot:2 general:2 additive:2}
  DIRECTIONS=${DIRECTIONS:-fwd rev}
  CURVE=${CURVE:-dot general additive multi-head}
fi
if [ $((UPDATES % SAVE_EVERY)) != 0 ]; then
  echo "study: UPDATES ($UPDATES) must be a multiple of SAVE_EVERY ($SAVE_EVERY)" >&2
  exit 64
fi
mkdir -p "$WORK" "$RESULTS" "$RESULTS/metrics"
log() { echo "study: $*" >&2; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
# On a shared machine libgomp's spin-waiting starves the run; waiting passively changes the
# speed, never the numbers.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
python=/usr/bin/python3
if has_stage report; then
  [ -x "$python" ] || { echo "study: $python not found (apt-get install python3)" >&2; exit 69; }
  "$python" "$here/report.py" --check || exit 69
fi
if [ "$quick" = 1 ] && [ ! -f "$PAGE" ]; then cp "$root/docs/alignment.md" "$PAGE"; fi

# --- result tables ------------------------------------------------------------------------------
# aer.tsv (best models and baselines), checkpoints.tsv (every kept model) and trial.tsv (best
# models and baselines on the trial sentences) share one format:
# one row per system, seed, step (the model's updates), run (fwd: en→fr, rev: fr→en read
# English-French, a symmetrization, or agree) and reading (argmax, shift, threshold; - where the
# run has one reading), then heed-align score's columns.
aer_header='system\tseed\tstep\trun\treading\taer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences'
for table in aer checkpoints trial; do
  [ -s "$RESULTS/$table.tsv" ] || printf "$aer_header\n" > "$RESULTS/$table.tsv"
done
# has_row TABLE SYSTEM SEED STEP RUN READING
has_row() {
  awk -F'\t' -v s="$2" -v e="$3" -v t="$4" -v r="$5" -v m="$6" \
    '$1 == s && $2 == e && $3 == t && $4 == r && $5 == m { f = 1 } END { exit !f }' "$RESULTS/$1.tsv"
}
# The sentences read and scored: the test set's (EVAL=test: $WORK/hansards.{e,f}, the rows of
# aer.tsv and checkpoints.tsv) or the trial set's (EVAL=trial: $WORK/trial.{e,f}, trial.tsv).
EVAL=test
eval_input() { if [ "$EVAL" = trial ]; then echo "$WORK/trial"; else echo "$WORK/hansards"; fi; }
# add_row TABLE SYSTEM SEED STEP RUN READING LINKS: scores LINKS (English-French) and appends.
add_row() {
  local score
  score=$(hansards_score "$7" "$EVAL")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$5" "$6" "$score" >> "$RESULTS/$1.tsv"
  log "$2 seed $3 step $4: $5 $6: $EVAL AER $(cut -f1 <<< "$score")"
}

# --- baselines ----------------------------------------------------------------------------------
if has_stage baselines || has_stage models; then
  hansards_corpus
fi
# baseline_rows TABLE: the rows of ibm2, fast_align (when FAST_ALIGN names its build directory)
# and the diagonal on EVAL's sentences that TABLE lacks. The classic aligners run (about 20
# minutes on the corpus) only for missing rows. The diagonal: fwd links each French word, rev
# each English word (then read English-French).
baseline_rows() {
  local table=$1 missing=0 system run method in
  in=$(eval_input)
  for system in ibm2 ${FAST_ALIGN:+fast_align}; do
    for run in fwd rev $HANSARDS_METHODS; do has_row "$table" "$system" - - "$run" - || missing=1; done
  done
  if [ "$missing" = 1 ]; then
    hansards_classic
    for system in $HANSARDS_SYSTEMS; do
      for run in fwd rev $HANSARDS_METHODS; do
        has_row "$table" "$system" - - "$run" - ||
          add_row "$table" "$system" - - "$run" - "$WORK/$EVAL.$system.$run"
      done
    done
  fi
  hansards_diagonal "$in.e" "$in.f" > "$WORK/$EVAL.diagonal.fwd"
  hansards_diagonal "$in.f" "$in.e" > "$WORK/$EVAL.diagonal.rev.fr-en"
  rm -f "$WORK/$EVAL.diagonal.rev"
  hansards_transpose "$WORK/$EVAL.diagonal.rev.fr-en" "$WORK/$EVAL.diagonal.rev"
  for method in $HANSARDS_METHODS; do
    [ -s "$WORK/$EVAL.diagonal.$method" ] ||
      hansards_symmetrize "$WORK/$EVAL.diagonal.fwd" "$WORK/$EVAL.diagonal.rev" "$method" \
        "$WORK/$EVAL.diagonal.$method"
  done
  for run in fwd rev $HANSARDS_METHODS; do
    has_row "$table" diagonal - - "$run" - ||
      add_row "$table" diagonal - - "$run" - "$WORK/$EVAL.diagonal.$run"
  done
}
has_stage baselines && baseline_rows aer

# --- models -------------------------------------------------------------------------------------
data=$WORK/study
# The neural models' files. Validation: VALID_PAIRS pairs spread evenly over the corpus after its
# Hansards lines (Tatoeba, then Multi30k), so no Hansards test sentence; training: the corpus
# without them and without every other pair that shares its English or its French side with one
# of them (Tatoeba repeats sentences), its 484 Hansards lines HANSARDS_COPIES times, as in run.sh.
prepare_data() {
  local l hansards_lines
  [ -s "$data/train.bpe.fr" ] && return 0
  hansards_bpe
  mkdir -p "$data"
  hansards_lines=$(cat "$(hansards_gold_dir)/test.e" "$(hansards_gold_dir)/trial.e" | wc -l)
  paste -d '\t' "$WORK/corpus.en" "$WORK/corpus.fr" "$WORK/corpus.bpe.en" "$WORK/corpus.bpe.fr" |
    awk -F'\t' -v h="$hansards_lines" -v k="$VALID_PAIRS" -v d="$data" '
      { line[NR] = $0; en[NR] = $1; fr[NR] = $2 }
      END {
        stride = int((NR - h) / k)
        for (i = 1; i <= k; i++) { v = h + i * stride; valid[v] = 1; ven[en[v]] = 1; vfr[fr[v]] = 1 }
        dropped = 0
        for (n = 1; n <= NR; n++) {
          split(line[n], f, "\t")
          if (n in valid) { print f[3] > (d "/valid.bpe.en"); print f[4] > (d "/valid.bpe.fr") }
          else if (n > h && (en[n] in ven || fr[n] in vfr)) dropped++
          else { print f[3] > (d "/train.once.bpe.en"); print f[4] > (d "/train.once.bpe.fr") }
        }
        printf "study: validation %d pairs; %d more pairs left out of training (a side in common)\n", k, dropped > "/dev/stderr"
      }'
  for l in en fr; do
    hansards_copies "$data/train.once.bpe.$l" "$data/train.bpe.$l.tmp"
    mv "$data/train.bpe.$l.tmp" "$data/train.bpe.$l"
  done
}

# The run directory of a model: $WORK/models/MECHANISM-sSEED.DIRECTION.
model_dir() { echo "$WORK/models/$1-s$2.$3"; }
# finished DIR: its last kept model exists, or it stopped early.
finished() {
  [ -f "$1/model.step-$UPDATES.heed" ] ||
    { [ -f "$1.metrics.tsv" ] && awk -F'\t' '$10 ~ /early-stop/ { f = 1 } END { exit !f }' "$1.metrics.tsv"; }
}
# recorded MECHANISM SEED: training.tsv has a row for each direction and WORK has not every
# direction's finished model (on the machine that trained them the readings resume instead).
recorded() {
  local direction all_here=1
  for direction in $DIRECTIONS; do
    awk -F'\t' -v s="$1" -v e="$2" -v d="$direction" '$1 == s && $2 == e && $3 == d { f = 1 }
      END { exit !f }' "$RESULTS/training.tsv" 2>/dev/null || return 1
    finished "$(model_dir "$1" "$2" "$direction")" || all_here=0
  done
  [ "$all_here" = 0 ]
}
# best_step DIR: the update of the best validation perplexity (DIR/model.heed).
best_step() {
  awk -F'\t' 'NR > 1 && $7 != "" && $7 != "nan" && (b == "" || $7 + 0 < b + 0) { b = $7; s = $1 } END { print s }' "$1.metrics.tsv"
}

# train MECHANISM SEED DIRECTION
train() {
  local mechanism=$1 seed=$2 direction=$3 dir src=en tgt=fr resume=()
  dir=$(model_dir "$@")
  [ "$direction" = rev ] && { src=fr; tgt=en; }
  finished "$dir" && return 0
  mkdir -p "$WORK/models"
  [ -f "$dir/checkpoint.heed" ] && resume=(--resume)
  log "$mechanism seed $seed $direction: training, $UPDATES updates${resume:+ (resumed)} $(date -u +%H:%M)"
  "$BIN/heed-train" --train-src "$data/train.bpe.$src" --train-tgt "$data/train.bpe.$tgt" \
    --valid-src "$data/valid.bpe.$src" --valid-tgt "$data/valid.bpe.$tgt" \
    --bpe "$WORK/codes" --tokenizer-mode conservative --attention "$mechanism" \
    --hidden 512 --embed 256 --dropout 0.2 --batch-size 64 --label-smoothing 0.1 --clip 5 \
    --lr 0.001 --lr-schedule cosine --warmup-steps "$WARMUP" --min-lr 1e-5 \
    --exponential-smoothing 1e-3 --max-steps "$UPDATES" --valid-every "$VALID_EVERY" \
    --valid-bleu-sentences "$VALID_BLEU" --patience "$PATIENCE" --save-every "$SAVE_EVERY" \
    --keep-models $((UPDATES / SAVE_EVERY)) --seed "$seed" --precision "$PRECISION" \
    --threads "$THREADS" --metrics-file "$dir.metrics.tsv" -o "$dir" "${resume[@]}" -q
  log "$mechanism seed $seed $direction: trained $(date -u +%H:%M)"
}

# training.tsv: one row per model.
training_header='system\tseed\tdirection\tupdates\tbest_step\tbest_val_ppl\tearly_stop\tminutes\ttok_per_s\tcpu'
[ -s "$RESULTS/training.tsv" ] || printf "$training_header\n" > "$RESULTS/training.tsv"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/\t/ /g')
record_training() {  # MECHANISM SEED DIRECTION
  local dir
  dir=$(model_dir "$@")
  awk -F'\t' -v s="$1" -v e="$2" -v d="$3" '$1 == s && $2 == e && $3 == d { f = 1 } END { exit !f }' \
    "$RESULTS/training.tsv" && return 0
  cp "$dir.metrics.tsv" "$RESULTS/metrics/$1-s$2.$3.tsv"
  # Minutes are heed-train's own (its checkpoints carry them across a resume); tokens/s: the
  # median of the logged rows.
  local tok
  tok=$(awk -F'\t' 'NR > 1 && $6 + 0 > 0 { print $6 }' "$dir.metrics.tsv" | sort -n |
        awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "" }')
  awk -F'\t' -v s="$1" -v e="$2" -v d="$3" -v tok="$tok" -v cpu="$cpu" '
    NR > 1 { last = $1; minutes = $9 / 60; if ($10 ~ /early-stop/) stop = "yes"
             if ($7 != "" && $7 != "nan" && (b == "" || $7 + 0 < b + 0)) { b = $7; bs = $1 } }
    END { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\n", s, e, d, last, bs, b,
          stop ? stop : "no", minutes, tok, cpu }' "$dir.metrics.tsv" >> "$RESULTS/training.tsv"
}

# links MODEL DIRECTION READING OUT: the test pairs through MODEL, links as it writes them;
# argmax also keeps the attention, OUT.jsonl (for agree and the heatmaps).
links() {
  local model=$1 direction=$2 reading=$3 out=$4 src=e tgt=f extra=()
  [ -s "$out" ] && { [ "$reading" != argmax ] || [ -s "$out.jsonl" ]; } && return 0
  [ "$direction" = rev ] && { src=f; tgt=e; }
  case $reading in
    argmax) extra=(--soft "$out.jsonl.tmp") ;;
    threshold) extra=(--threshold 0.5) ;;
  esac
  "$BIN/heed-align" -m "$model" --method "$reading" --threads "$THREADS" -q \
    "$(eval_input).$src" "$(eval_input).$tgt" -o "$out.tmp" "${extra[@]}"
  [ "$reading" != argmax ] || mv "$out.jsonl.tmp" "$out.jsonl"
  mv "$out.tmp" "$out"
}

# read_models TABLE MECHANISM SEED STEP FILE: every reading of the models DIR/FILE of each
# direction (model.heed, or model.step-K.heed) that has no row in TABLE yet, as step STEP.
read_models() {
  local table=$1 mechanism=$2 seed=$3 step=$4 file=$5 direction reading method model
  local at=$WORK/links/$mechanism-s$seed/$file
  [ "$EVAL" = test ] || at=$WORK/links-$EVAL/$mechanism-s$seed/$file
  mkdir -p "$at"
  local both=1
  for direction in fwd rev; do
    [ -f "$(model_dir "$mechanism" "$seed" "$direction")/$file" ] || both=0
  done
  for direction in $DIRECTIONS; do
    model=$(model_dir "$mechanism" "$seed" "$direction")/$file
    [ -f "$model" ] || continue
    for reading in argmax shift threshold; do
      has_row "$table" "$mechanism" "$seed" "$step" "$direction" "$reading" && continue
      links "$model" "$direction" "$reading" "$at/$direction.$reading"
      if [ "$direction" = rev ]; then
        hansards_transpose "$at/rev.$reading" "$at/rev.$reading.en-fr"
        add_row "$table" "$mechanism" "$seed" "$step" rev "$reading" "$at/rev.$reading.en-fr"
      else
        add_row "$table" "$mechanism" "$seed" "$step" fwd "$reading" "$at/fwd.$reading"
      fi
    done
  done
  [ "$both" = 1 ] && [[ " $DIRECTIONS " == *" rev "* ]] || return 0
  for reading in argmax shift; do
    for method in $HANSARDS_METHODS; do
      has_row "$table" "$mechanism" "$seed" "$step" "$method" "$reading" && continue
      for direction in fwd rev; do
        links "$(model_dir "$mechanism" "$seed" "$direction")/$file" "$direction" "$reading" \
          "$at/$direction.$reading"
      done
      hansards_symmetrize "$at/fwd.$reading" "$at/rev.$reading" "$method" "$at/$method.$reading" \
        --transpose-reverse
      add_row "$table" "$mechanism" "$seed" "$step" "$method" "$reading" "$at/$method.$reading"
    done
  done
  if ! has_row "$table" "$mechanism" "$seed" "$step" agree -; then
    for direction in fwd rev; do
      links "$(model_dir "$mechanism" "$seed" "$direction")/$file" "$direction" argmax \
        "$at/$direction.argmax"
    done
    "$BIN/heed-align" agree "$at/fwd.argmax.jsonl" "$at/rev.argmax.jsonl" -o "$at/agree" -q
    add_row "$table" "$mechanism" "$seed" "$step" agree - "$at/agree"
  fi
}

# draw_heatmaps MECHANISM SEED: the seed-1 en→fr model's attention on the test pairs
# HEATMAP_PAIRS, with its argmax links and the gold (RESULTS/heatmaps/MECHANISM.ID.svg); nothing
# for other seeds, for an unfinished model or for heatmaps already drawn.
draw_heatmaps() {
  local mechanism=$1 seed=$2 at model pair out
  [ "$seed" = 1 ] && has_stage heatmaps || return 0
  at=$WORK/links/$mechanism-s1/model.heed
  model=$(model_dir "$mechanism" 1 fwd)/model.heed
  [ -f "$model" ] || return 0
  mkdir -p "$RESULTS/heatmaps"
  for pair in $HEATMAP_PAIRS; do
    out=$RESULTS/heatmaps/$mechanism.$pair.svg
    [ -s "$out" ] && continue
    mkdir -p "$at"
    links "$model" fwd argmax "$at/fwd.argmax"
    "$BIN/heed-align" plot --soft "$at/fwd.argmax.jsonl" --links "$at/fwd.argmax" \
      --gold "$(hansards_gold_dir)/test.talp" --one-based --pairs "$pair" -o "$out"
  done
}

report() {
  has_stage report || return 0
  "$python" "$here/report.py" --results "$RESULTS" --page "$PAGE" --queue "$QUEUE" \
    --directions "$DIRECTIONS" --hansards "$(hansards_gold_dir)" ||
    log "the report failed (the rows are kept)"
}

if has_stage models; then
  prepare_data
  for item in $QUEUE; do
    mechanism=${item%%:*} seed=${item##*:}
    # Its training rows are written last, after every reading: with them in RESULTS and its
    # models gone (a new machine: WORK is not kept between sessions), the unit is done.
    if recorded "$mechanism" "$seed"; then
      log "$mechanism seed $seed: done (RESULTS has its rows; its models are not in WORK)"
      continue
    fi
    # With JOBS > 1 the directions train at once (each with THREADS threads; two 1-thread runs
    # train 1.43× the tokens per second of one 2-thread run here, bench/parallel_training.sh).
    trainings=()
    for direction in $DIRECTIONS; do
      if [ "$JOBS" -gt 1 ]; then
        train "$mechanism" "$seed" "$direction" &
        trainings+=($!)
      else
        train "$mechanism" "$seed" "$direction"
      fi
    done
    for pid in "${trainings[@]}"; do wait "$pid"; done  # set -e: a failed training stops the study
    step=$(best_step "$(model_dir "$mechanism" "$seed" "${DIRECTIONS%% *}")")
    # The two directions' best models may be of different updates: the row names the first's.
    read_models aer "$mechanism" "$seed" "$step" model.heed
    if has_stage trial; then  # the same on the trial sentences, as each model finishes
      EVAL=trial
      read_models trial "$mechanism" "$seed" "$step" model.heed
      EVAL=test
    fi
    draw_heatmaps "$mechanism" "$seed"
    if [ "$seed" = 1 ] && [[ " $CURVE " == *" $mechanism "* ]]; then
      for step in $(seq "$SAVE_EVERY" "$SAVE_EVERY" "$UPDATES"); do
        read_models checkpoints "$mechanism" "$seed" "$step" "model.step-$step.heed"
      done
    fi
    for direction in $DIRECTIONS; do
      record_training "$mechanism" "$seed" "$direction"
    done
    report
  done
fi

# --- trial --------------------------------------------------------------------------------------
# The readings again on the 37 trial sentences, so that a reading can be chosen on them rather
# than on the test set: the baselines, and each model of the queue whose training has finished.
if has_stage trial; then
  EVAL=trial
  hansards_corpus
  baseline_rows trial
  for item in $QUEUE; do
    mechanism=${item%%:*} seed=${item##*:}
    trained=1
    for direction in $DIRECTIONS; do
      finished "$(model_dir "$mechanism" "$seed" "$direction")" || trained=0
    done
    [ "$trained" = 1 ] || continue
    # The step column names the test rows' best model: the same model files.
    read_models trial "$mechanism" "$seed" \
      "$(best_step "$(model_dir "$mechanism" "$seed" "${DIRECTIONS%% *}")")" model.heed
  done
  EVAL=test
fi

# --- heatmaps -----------------------------------------------------------------------------------
# The models stage draws each seed-1 model's heatmaps as soon as it is read (a model's files need
# not outlive the session that trained it); this stage draws those of models trained before.
# A seed-1 model read on an earlier machine, whose heatmaps were not drawn there, is trained
# again (its en→fr direction, the same options and seed), and its validations are compared with
# the ones RESULTS/metrics kept: the same figures mean the same model (the log says which).
# train_again MECHANISM SEED DIRECTION WHAT: a model read on an earlier machine trained again
# (the same options and seed) for WHAT, and its losses and validations checked against the ones
# RESULTS/metrics kept: the same figures mean the same model (the log says which).
train_again() {
  train "$1" "$2" "$3"
  if cmp -s <(cut -f1,3,7 "$RESULTS/metrics/$1-s$2.$3.tsv") \
            <(cut -f1,3,7 "$(model_dir "$1" "$2" "$3").metrics.tsv"); then
    log "$1 seed $2 $3: trained again for its $4, the same losses and validations as the kept run"
  else
    log "$1 seed $2 $3: trained again for its $4; its losses or validations DIFFER from the kept run's"
  fi
}
if has_stage heatmaps; then
  for item in $QUEUE; do
    mechanism=${item%%:*} seed=${item##*:}
    if [ "$seed" = 1 ] && [ "$REDRAW" = 1 ] && recorded "$mechanism" 1 &&
       ! ls "$RESULTS/heatmaps/$mechanism".*.svg > /dev/null 2>&1; then
      train_again "$mechanism" 1 fwd heatmaps
    fi
    draw_heatmaps "$mechanism" "$seed"
  done
fi

# --- compare ------------------------------------------------------------------------------------
# The differences the page's claims rest on, each with its 95 % interval over the runs (seeds)
# and the test sentences (heed-align score --system: a hierarchical bootstrap, Holm within each
# file), every system read the way its trial sentences choose (report.py --choices): against
# the better classic aligner on the trial sentences (compare/aligner.tsv: does any attention
# align better?), against the diagonal (compare/diagonal.tsv: does it align at all?) and against
# dot (compare/dot.tsv: what do learned weights buy?). Every link file is scored again first and
# must give its row's AER, else its system is left out. A model read on an earlier machine is
# trained again for its links (REDRAW=1), as for the heatmaps.
# link_path SYSTEM SEED RUN READING: where that reading of the test pairs is (English-French).
link_path() {
  local at=$WORK/links/$1-s$2/model.heed
  case $2:$3 in
    -:*) echo "$WORK/test.$1.$3" ;;
    *:fwd) echo "$at/fwd.$4" ;;
    *:rev) echo "$at/rev.$4.en-fr" ;;
    *:agree) echo "$at/agree" ;;
    *) echo "$at/$3.$4" ;;
  esac
}
# relink MECHANISM SEED: every reading of its best models again, into WORK/links (read_models'
# rows go to a scratch table in WORK/relink; the caller checks the file it compares), training
# them again if need be.
relink() {
  local mechanism=$1 seed=$2 direction step
  for direction in $DIRECTIONS; do
    finished "$(model_dir "$mechanism" "$seed" "$direction")" && continue
    [ "$REDRAW" = 1 ] || return 1
    train_again "$mechanism" "$seed" "$direction" links
  done
  step=$(best_step "$(model_dir "$mechanism" "$seed" "${DIRECTIONS%% *}")")
  mkdir -p "$WORK/relink"
  head -n 1 "$RESULTS/aer.tsv" > "$WORK/relink/scratch.tsv"
  RESULTS=$WORK/relink read_models scratch "$mechanism" "$seed" "$step" model.heed
}
if has_stage compare; then
  choices=$("$python" "$here/report.py" --results "$RESULTS" --queue "$QUEUE" \
    --directions "$DIRECTIONS" --choices | tail -n +2)
  # The runs of each system, "NAME=FILE[,FILE...]", once every file is there and scores as kept;
  # a system with a run that cannot be had, or scores otherwise, is left out (left-out.tsv says
  # why, and the page).
  declare -A runs=() left_out=()
  mkdir -p "$RESULTS/compare"
  printf 'system\tseed\treason\n' > "$WORK/left-out.tsv"
  leave_out() {  # SYSTEM SEED REASON
    left_out[$1]=1
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$WORK/left-out.tsv"
    log "compare: $1 seed $2 left out: $3"
  }
  while IFS=$'\t' read -r system seed run reading _ test_aer; do
    [ -n "$system" ] || continue
    file=$(link_path "$system" "$seed" "$run" "$reading")
    if [ ! -s "$file" ]; then
      case $system in
        ibm2) hansards_classic ;;
        fast_align)
          [ -n "$FAST_ALIGN" ] || { leave_out "$system" "$seed" "no FAST_ALIGN to make its links again"; continue; }
          hansards_classic ;;
        diagonal) baseline_rows aer ;;
        *) relink "$system" "$seed" || { leave_out "$system" "$seed" "its links are gone (REDRAW=0)"; continue; } ;;
      esac
    fi
    aer=$(hansards_score "$file" test | cut -f1)
    [ "$aer" = "$test_aer" ] ||
      { leave_out "$system" "$seed" "its links made again score $aer, not aer.tsv's $test_aer"; continue; }
    runs[$system]+=${runs[$system]:+,}$file
  done <<< "$choices"
  for system in "${!left_out[@]}"; do unset "runs[$system]"; done
  mv "$WORK/left-out.tsv" "$RESULTS/compare/left-out.tsv"
  # compare_family NAME BASELINE SYSTEM...: those of them that have runs, the baseline first.
  compare_family() {
    local name=$1 system args=() seen=" "
    for system in "${@:2}"; do
      [[ $seen == *" $system "* ]] && continue
      seen+="$system "
      [ -n "${runs[$system]:-}" ] && args+=(--system "$system=${runs[$system]}")
    done
    [ -n "${runs[$2]:-}" ] && [ "${#args[@]}" -ge 4 ] || return 0
    "$BIN/heed-align" score --gold "$(hansards_gold_dir)/test.wa.nonullalign" --one-based \
      "${args[@]}" --bootstrap 1000 --equivalence-margin 1 -q -o "$RESULTS/compare/$name.tsv"
    log "compare: $name.tsv"
  }
  mechanisms=$(for item in $QUEUE; do echo "${item%%:*}"; done | awk '!seen[$0]++' | tr '\n' ' ')
  # The classic aligner with the lower trial AER is the first family's baseline.
  aligner=$(awk -F'\t' '($1 == "ibm2" || $1 == "fast_align") && (b == "" || $5 + 0 < b + 0) {
    b = $5; s = $1 } END { print s }' <<< "$choices")
  other=$([ "$aligner" = ibm2 ] && echo fast_align || echo ibm2)
  # shellcheck disable=SC2086  # the mechanisms, one word each
  compare_family aligner "$aligner" "$other" $mechanisms
  # shellcheck disable=SC2086
  compare_family diagonal diagonal $mechanisms
  # shellcheck disable=SC2086
  compare_family dot dot $mechanisms
fi

# --- silver -------------------------------------------------------------------------------------
silver_header='set\ttrained_on\treference\tlinks\taer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences'
# has_silver_row SET REFERENCE LINKS: silver.tsv has that row (then its links are not built again).
has_silver_row() {
  awk -F'\t' -v s="$1" -v r="$2" -v l="$3" '$1 == s && $3 == r && $4 == l { f = 1 } END { exit !f }' \
    "$RESULTS/silver.tsv"
}
# silver_row SET TRAINED_ON REFERENCE LINKS SCORE
silver_row() {
  awk -F'\t' -v s="$1" -v r="$3" -v l="$4" '$1 == s && $3 == r && $4 == l { f = 1 } END { exit !f }' \
    "$RESULTS/silver.tsv" && return 0
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> "$RESULTS/silver.tsv"
  log "silver: $1, $4 against $3: AER $(cut -f1 <<< "$5")"
}
if has_stage silver; then
  [ -s "$RESULTS/silver.tsv" ] || printf "$silver_header\n" > "$RESULTS/silver.tsv"
  hansards_corpus
  # with_commas N: 196614 → 196,614
  with_commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<< "$1"; }
  pairs=$(with_commas "$(wc -l < "$WORK/corpus.en")")
  # 1. Hansards, the whole corpus: the silver links are ibm2's grow-diag-final-and, the row
  #    "ibm2 grow-diag-final-and" of the baselines.
  if ! has_silver_row hansards "Hansards gold" "ibm2 grow-diag-final-and"; then
    hansards_classic
    silver_row hansards "corpus ($pairs pairs)" "Hansards gold" "ibm2 grow-diag-final-and" \
      "$(hansards_score "$WORK/test.ibm2.grow-diag-final-and")"
  fi
  # 2. Hansards, a Multi30k-sized corpus: the 484 Hansards pairs and every sixth other pair
  #    (29,000 + 1,000 pairs is what the Multi30k silver links are built from).
  if ! has_silver_row hansards-small "Hansards gold" "ibm2 grow-diag-final-and"; then
    small=$WORK/silver-hansards-small
    mkdir -p "$small"
    if [ ! -s "$small/test.gdfa" ]; then
      hansards_lines=$(cat "$(hansards_gold_dir)/test.e" "$(hansards_gold_dir)/trial.e" | wc -l)
      for l in en fr; do
        awk -v h="$hansards_lines" 'NR <= h || (NR - h) % 6 == 0' "$WORK/corpus.$l" > "$small/corpus.$l"
      done
      ibm2_gdfa "$BIN" "$small/corpus.en" "$small/corpus.fr" "$small/gdfa" "$THREADS"
      head -n "$(wc -l < "$(hansards_gold_dir)/test.e")" "$small/gdfa" > "$small/test.gdfa"
    fi
    silver_row hansards-small "corpus, 1 in 6 ($(with_commas "$(wc -l < "$small/corpus.en")") pairs)" "Hansards gold" \
      "ibm2 grow-diag-final-and" "$(hansards_score "$small/test.gdfa")"
  fi
  # 3. Multi30k de–en: the silver links, and how they fare on the RWTH gold when built the same
  #    way with the RWTH sentences in the corpus.
  multi30k_built=0
  multi30k_links() {  # the Multi30k silver links, built once, only for a row that needs them
    [ "$multi30k_built" = 1 ] || multi30k_silver "$BIN" "$DATA" "$WORK/silver" "$THREADS"
    multi30k_built=1
  }
  if ! has_silver_row rwth "RWTH gold (out of domain)" "ibm2 grow-diag-final-and"; then
    multi30k_links
    silver_row rwth "Multi30k train + the 508 RWTH pairs (29,508)" "RWTH gold (out of domain)" \
      "ibm2 grow-diag-final-and" "$(multi30k_silver_rwth "$BIN" "$DATA" "$WORK/silver" "$THREADS")"
  fi
  if ! has_silver_row multi30k "test2016 silver" "diagonal"; then
    multi30k_links
    silver_row multi30k "Multi30k train + test2016 (30,000)" "test2016 silver" "diagonal" \
      "$(multi30k_silver_diagonal "$BIN" "$DATA/multi30k/raw/test_2016_flickr.de" \
        "$DATA/multi30k/raw/test_2016_flickr.en" "$WORK/silver/silver.test.words" \
        "$WORK/silver/diagonal.test")"
  fi
  for model in $SILVER_MODELS; do
    has_silver_row multi30k "test2016 silver" "$model (argmax)" && continue
    multi30k_links
    silver_row multi30k "Multi30k train + test2016 (30,000)" "test2016 silver" "$model (argmax)" \
      "$(multi30k_silver_score "$BIN" "$DATA" "$WORK/silver" "$model" argmax "$THREADS")"
  done
fi

if has_stage report; then
  report
  log "report: $PAGE"
fi
exit 0
}
