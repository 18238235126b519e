#!/usr/bin/env bash
# Multi30k German→English with heed, scored as the PyTorch peer (../shared/peers/
# multi30k_quality.py) is: lowercased text, one joint BPE of 8,000 merges, test2016 BLEU of the
# detokenized output against the raw lowercased reference (13a, as sacreBLEU -lc).
#
# One training run of UPDATES updates (a budget in updates, never in seconds, so that the load of
# the machine cannot change a result), which keeps the model of each of STAGES equal stages;
# after training, the beam's length penalty is chosen on the validation set with the last model,
# and every stage's model translates test2016 greedily and with the beam, then the average of the
# last AVERAGE stages' models (heed-average, checkpoint averaging) does, with the same penalty.
# It prints a TSV:
#
#   stage  updates  minutes  val_ppl  val_bleu  test2016_greedy  test2016_beam  alpha
#
# stage is the stage's number, avgN for the average of the last N stages' models (updates and
# minutes: the last of them; val_ppl and val_bleu: "-", not measured), or best for the best model
# of a run stopped early (--patience in TRAIN_OPTIONS; its updates: those of its validation).
#
# minutes are heed-train's own training time up to the stage (validation included; they grow
# with the load of the machine, the updates do not). On an idle AMD EPYC Zen 5 (2 threads, bf16)
# 10,200 updates take about 30 minutes (docs/benchmarks.md).
#
#   bash experiments/multi30k/run.sh                      # 10,200 updates, seed 1
#   SEED=2 UPDATES=3400 STAGES=2 bash experiments/multi30k/run.sh
#   TRAIN_OPTIONS="--lr-schedule plateau" RUN=plateau bash experiments/multi30k/run.sh
#
# Resumable: an interrupted run continues from its checkpoint (heed-train --resume), finished
# stages are not translated again (WORK/rows-RUN.tsv), and the table is printed at the end.
#
# Environment: BIN (heed binaries, default build/bin), DATA (multi30k/raw), WORK (scratch,
# /tmp/heed-multi30k), UPDATES (10200), STAGES (6), PRECISION (bf16 where the CPU has it, else
# f32), THREADS (2), SEED (1), BEAM (5), AVERAGE (4; 0 or 1: no averaged row), ALPHAS (length
# penalties tried on the validation set, "0.0 0.2 0.4 0.6 0.8 1.0 1.2"; ALPHA=X skips the
# search), VALID_EVERY (updates between validations, default half a stage), TRAIN_OPTIONS (the
# schedule and averaging) and MODEL_OPTIONS (the sizes and dropout; defaults below), EXTRA (more
# heed-train options, e.g. "--attention dot") and RUN (the run's name under WORK, default
# PRECISION-sSEED; runs share WORK's tokenized data).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/build/bin}
[ -x "$BIN/heed-train" ] ||
  { echo "multi30k: $BIN/heed-train not found (build heed, or set BIN to a copy of build/bin)" >&2; exit 69; }
DATA=${DATA:-$root/../shared/data/multi30k/raw}
WORK=${WORK:-/tmp/heed-multi30k}
UPDATES=${UPDATES:-10200}
STAGES=${STAGES:-6}
source "$root/bench/machine.sh"
PRECISION=${PRECISION:-$(heed_default_precision)}
THREADS=${THREADS:-2}
SEED=${SEED:-1}
BEAM=${BEAM:-5}
AVERAGE=${AVERAGE:-4}
ALPHAS=${ALPHAS:-0.0 0.2 0.4 0.6 0.8 1.0 1.2}
# The defaults that docs/benchmarks.md's convergence table chose ("Train to convergence").
TRAIN_OPTIONS=${TRAIN_OPTIONS:---lr 0.001 --lr-schedule cosine --warmup-steps 500 --min-lr 1e-5 --exponential-smoothing 1e-3}
MODEL_OPTIONS=${MODEL_OPTIONS:---hidden 512 --embed 256 --dropout 0.3}
EXTRA=${EXTRA:-}
RUN=${RUN:-$PRECISION-s$SEED}
source "$here/data.sh"

if [ $((UPDATES % (2 * STAGES))) != 0 ]; then
  echo "multi30k: UPDATES ($UPDATES) must be a multiple of 2 × STAGES ($STAGES)" >&2
  exit 64
fi
if ! [[ "$AVERAGE" =~ ^[0-9]+$ ]] || [ "$AVERAGE" -gt "$STAGES" ]; then
  echo "multi30k: AVERAGE ($AVERAGE) must be a number of stages from 0 to STAGES ($STAGES)" >&2
  exit 64
fi
stage_updates=$((UPDATES / STAGES))
VALID_EVERY=${VALID_EVERY:-$((stage_updates / 2))}

# 1. Tokenize (lowercased), learn one joint BPE on German and English, apply it.
multi30k_prepare "$BIN" "$DATA" "$WORK" "$THREADS"

# 2. Train: one run, validated twice a stage, the model of every stage kept.
run=$WORK/run-$RUN
metrics=$WORK/metrics-$RUN.tsv
rows=$WORK/rows-$RUN.tsv
# shellcheck disable=SC2086
train=("$BIN/heed-train" --train-src "$WORK/train.bpe.de" --train-tgt "$WORK/train.bpe.en"
       --valid-src "$WORK/val.bpe.de" --valid-tgt "$WORK/val.bpe.en"
       --bpe "$WORK/codes" --tokenizer-mode aggressive --tokenizer-lowercase
       $MODEL_OPTIONS --label-smoothing 0.1 --clip 5 --batch-size 64
       --vocab-size 10000 --max-steps "$UPDATES" --valid-every "$VALID_EVERY"
       --save-every "$stage_updates" --keep-models "$STAGES" --seed "$SEED"
       --precision "$PRECISION" --threads "$THREADS" --metrics-file "$metrics" -o "$run"
       $TRAIN_OPTIONS $EXTRA)
last=$run/model.step-$UPDATES.heed
# With --patience in TRAIN_OPTIONS training may stop early (the metrics file's event column says
# early-stop): the last model is then the best one, DIR/model.heed, and later stages have none.
stopped_early() { [ -f "$metrics" ] && awk -F'\t' '$10 ~ /early-stop/ { f = 1 } END { exit !f }' "$metrics"; }
if [ ! -f "$last" ] && ! stopped_early; then
  resume=()
  if [ -f "$run/checkpoint.heed" ]; then
    resume=(--resume)
  else
    rm -rf "$run" "$metrics" "$rows"
  fi
  "${train[@]}" "${resume[@]}" -q
fi
[ -f "$last" ] || last=$run/model.heed

translate() {  # MODEL INPUT OUTPUT BEAM [ALPHA]
  "$BIN/heed-translate" -m "$1" --beam-size "$4" --length-penalty "${5:-0}" --precision "$PRECISION" \
    --threads "$THREADS" -i "$2" -o "$3"
}
bleu() {  # HYP REF
  "$BIN/heed-score" --lowercase -m bleu -r "$2" --hyp "$1" | sed 's/^[^=]*= \([0-9.]*\) .*/\1/'
}

# 3. The length penalty (GNMT's alpha) that gives the last model its best validation BLEU.
tr '[:upper:]' '[:lower:]' < "$DATA/val.en" > "$WORK/val.ref.lc.en"
if [ -z "${ALPHA:-}" ]; then
  best=-1
  for alpha in $ALPHAS; do
    out=$WORK/val.hyp.$RUN.a$alpha
    [ -s "$out" ] || translate "$last" "$DATA/val.de" "$out" "$BEAM" "$alpha"
    score=$(bleu "$out" "$WORK/val.ref.lc.en")
    echo "multi30k: $RUN: beam $BEAM, alpha $alpha: validation BLEU $score" >&2
    if awk -v a="$score" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$score ALPHA=$alpha; fi
  done
fi

# 4. Every stage's model: test2016, greedy and beam.
# test_row LABEL MODEL OUT UPDATES: MODEL translates test2016 greedily and with the beam (OUT.greedy,
# OUT.beam), and row LABEL is appended with the minutes and validation scores of the metrics line
# at UPDATES (UPDATES "best": the line the metrics file marks best; LABEL avgN: no validation
# scores, the averaged model was never validated). A resumed run may log a step twice: the last
# line wins.
test_row() {
  translate "$2" "$DATA/test_2016_flickr.de" "$3.greedy" 1
  translate "$2" "$DATA/test_2016_flickr.de" "$3.beam" "$BEAM" "$ALPHA"
  awk -F'\t' -v s="$1" -v u="$4" -v a="$ALPHA" -v g="$(bleu "$3.greedy" "$WORK/test.ref.lc.en")" \
      -v b="$(bleu "$3.beam" "$WORK/test.ref.lc.en")" '
    (u == "best" ? $10 ~ /best/ : $1 == u && $7 != "") {
      validated = s !~ /^avg/
      row = sprintf("%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t%s", s, $1, $9 / 60, validated ? $7 : "-",
                    validated ? $8 : "-", g, b, a) }
    END { if (row == "") exit 1; print row }' "$metrics" >> "$rows"
}
has_row() {  # LABEL: the rows file has LABEL's row (LABEL a stage's updates: that stage's) for ALPHA
  awk -F'\t' -v s="$1" -v a="$ALPHA" '($1 == s || $2 == s && $1 ~ /^[0-9]+$/) && $8 == a { f = 1 }
    END { exit !f }' "$rows"
}
[ -s "$rows" ] || printf 'stage\tupdates\tminutes\tval_ppl\tval_bleu\ttest2016_greedy\ttest2016_beam\talpha\n' > "$rows"
for stage in $(seq "$STAGES"); do
  updates=$((stage * stage_updates))
  has_row "$updates" && continue
  model=$run/model.step-$updates.heed
  [ -f "$model" ] || continue  # after an early stop
  test_row "$stage" "$model" "$WORK/test.$RUN.$updates" "$updates"
done
# 4b. After an early stop, the best model heed-train kept (DIR/model.heed): row "best", at the
#     last update whose validation the metrics file marks best.
if stopped_early && ! has_row best; then
  test_row best "$run/model.heed" "$WORK/test.$RUN.best" best
fi
# 5. The average of the last AVERAGE stages' models (after an early stop: of the last AVERAGE
#    stages it saved), with the length penalty of the last model.
if [ "$AVERAGE" -gt 1 ] && ! has_row "avg$AVERAGE"; then
  averaged=()
  for stage in $(seq "$STAGES" -1 1); do
    [ "${#averaged[@]}" -lt "$AVERAGE" ] || break
    model=$run/model.step-$((stage * stage_updates)).heed
    [ -f "$model" ] && averaged=("$model" "${averaged[@]}")
  done
  if [ "${#averaged[@]}" = "$AVERAGE" ]; then
    "$BIN/heed-average" -q -o "$run/model.avg$AVERAGE.heed" "${averaged[@]}"
    updates=${averaged[-1]##*/model.step-} updates=${updates%.heed}
    test_row "avg$AVERAGE" "$run/model.avg$AVERAGE.heed" "$WORK/test.$RUN.avg$AVERAGE" "$updates"
  else
    echo "multi30k: $RUN: ${#averaged[@]} stage models kept, fewer than AVERAGE ($AVERAGE):" \
      "no averaged row" >&2
  fi
fi
awk -F'\t' -v a="$ALPHA" 'NR == 1 || $8 == a' "$rows"
