#!/usr/bin/env bash
# Quality, heed beside Marian (issue 65): Multi30k de→en, ONE joint BPE for both (heed-tokenize
# learn-bpe, experiments/multi30k/data.sh), each toolkit with its documented recipe for a small
# corpus, several seeds, test2016 BLEU (heed-score, lowercased, 13a, as the Multi30k recipe
# scores) greedy and with beam 5, and the differences over seeds and sentences (heed-score
# --system: hierarchical bootstrap; Marian is the baseline).
#
# Systems (the architectures: bench/peers/marian/common.sh; where they differ: docs/benchmarks.md):
#   heed-recipe       heed's Multi30k recipe (experiments/multi30k/run.sh's defaults: Luong +
#                     input feeding, general attention, cosine schedule from lr 1e-3 with 500
#                     warm-up updates, exponential smoothing 1e-3, dropout 0.3, label smoothing
#                     0.1, clipping 5, batches of 64; beam: GNMT length penalty 0.6)
#   heed-marian-like  the same recipe on heed's nearest architecture (bahdanau + additive)
#   marian            --type s2s with the options of Marian's RNN examples (examples/
#                     training-basics, wmt2017-uedin): --dropout-rnn 0.2 --dropout-src 0.1
#                     --dropout-trg 0.1 --label-smoothing 0.1 --exponential-smoothing
#                     --early-stopping 5 --valid-metrics cross-entropy perplexity bleu
#                     --beam-size 5 --normalize 0.6, batches of 64; Marian's defaults otherwise
#                     (Adam, lr 1e-4, clip-norm 1); MARIAN_OPTIONS adds or overrides.
# Two budgets (MODES):
#   updates  UPDATES updates each (a budget the load of the machine cannot change);
#   minutes  MINUTES of wall clock each (heed-train --time-limit; Marian stopped by SIGTERM,
#            which it answers by saving: --sigterm save-and-exit), UPDATES at most. Valid only
#            on an idle machine, both runs alike.
# Each run validates every VALID_EVERY updates; the model scored is the one each toolkit keeps
# as best on the validation perplexity (heed: DIR/model.heed; Marian:
# model.npz.best-cross-entropy.npz, its first --valid-metrics).
#
#   bash experiments/marian/run.sh [BUILD_DIR] [MARIAN_BUILD_DIR]
#   QUICK=1 bash experiments/marian/run.sh /tmp/heed-build /work/peers/marian-build
#
# Resumable: a run with its row in WORK/quality/rows.tsv is skipped; an interrupted heed run
# resumes from its checkpoint, an interrupted Marian run from its own (model.npz + .progress.yml,
# Marian restores them itself). stdout: the rows TSV; stderr: progress. Results (rows.tsv,
# compare-MODE-DECODE.tsv) go to RESULTS; docs/benchmarks.md's section is written by
# bench/peers/marian/report.py.
# Environment: SEEDS ("1 2 3"), MODES ("updates minutes"), UPDATES (10200), MINUTES (30),
# VALID_EVERY (850), WARMUP (500), SYSTEMS ("marian heed-recipe heed-marian-like"), THREADS (2),
# BOOTSTRAP (1000), WORK (/tmp/heed-marian), DATA, RESULTS (experiments/marian/results),
# MARIAN_OPTIONS, QUICK=1 (SEEDS "1 2", UPDATES 40, MINUTES 1, VALID_EVERY 20, WARMUP 10,
# TEST_SENTENCES 40, BOOTSTRAP 100, WORK /tmp/heed-marian-quick, results in WORK: a test of the
# pipeline, not a result).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/bench/machine.sh"
source "$root/bench/peers/marian/common.sh"
die() { local code=$1; shift; echo "marian quality: $*" >&2; exit "$code"; }
BUILD=${1:-$root/build}
MARIAN=${2:-/work/peers/marian-build}
BIN=$BUILD/bin
[ -x "$BIN/heed-train" ] || die 69 "$BIN/heed-train not found (build heed, or give its build directory)"
marian_require "$MARIAN"
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  SEEDS=${SEEDS:-1 2} UPDATES=${UPDATES:-40} MINUTES=${MINUTES:-1} VALID_EVERY=${VALID_EVERY:-20}
  WARMUP=${WARMUP:-10} TEST_SENTENCES=${TEST_SENTENCES:-40} BOOTSTRAP=${BOOTSTRAP:-100}
  WORK=${WORK:-/tmp/heed-marian-quick}
  RESULTS=${RESULTS:-$WORK/quality-results-QUICK}
fi
SEEDS=${SEEDS:-1 2 3}
MODES=${MODES:-updates minutes}
UPDATES=${UPDATES:-10200}
MINUTES=${MINUTES:-30}
VALID_EVERY=${VALID_EVERY:-850}
WARMUP=${WARMUP:-500}
TEST_SENTENCES=${TEST_SENTENCES:-0}
SYSTEMS=${SYSTEMS:-marian heed-recipe heed-marian-like}
THREADS=${THREADS:-2}
BOOTSTRAP=${BOOTSTRAP:-1000}
WORK=${WORK:-/tmp/heed-marian}
DATA=${DATA:-$root/../shared/data/multi30k/raw}
RESULTS=${RESULTS:-$here/results}
MARIAN_OPTIONS=${MARIAN_OPTIONS:-}
for v in UPDATES MINUTES VALID_EVERY WARMUP THREADS BOOTSTRAP; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die 64 "$v '${!v}' is not a positive count"
done
for s in $SYSTEMS; do
  case $s in heed-marian-like|heed-recipe|marian) ;; *) die 64 "SYSTEMS: no system '$s'" ;; esac
done
for m in $MODES; do
  case $m in updates|minutes) ;; *) die 64 "MODES: no mode '$m' (updates, minutes)" ;; esac
done

quality=$WORK/quality
mkdir -p "$quality" "$RESULTS"
marian_prepare "$BIN" "$MARIAN" "$WORK" "$THREADS" "$DATA"
# The test set both translate: test2016's BPE tokens (all of it, or its first TEST_SENTENCES).
test_src=$quality/test.bpe.de test_ref=$quality/test.ref.lc.en
if [ "$TEST_SENTENCES" -gt 0 ]; then
  head -n "$TEST_SENTENCES" "$WORK/test.bpe.de" > "$test_src"
  head -n "$TEST_SENTENCES" "$WORK/test.ref.lc.en" > "$test_ref"
else
  cp "$WORK/test.bpe.de" "$test_src"; cp "$WORK/test.ref.lc.en" "$test_ref"
fi
rows=$quality/rows.tsv
[ -s "$rows" ] || printf 'mode\tsystem\tseed\tupdates\tminutes\tbest_val_ppl\ttest2016_greedy\ttest2016_beam5\n' > "$rows"
has_row() { awk -F'\t' -v m="$1" -v s="$2" -v e="$3" '$1 == m && $2 == s && $3 == e { f = 1 } END { exit !f }' "$rows"; }

bleu() {  # HYP (detokenized): corpus BLEU against the lowercased test2016 reference
  "$BIN/heed-score" --lowercase -m bleu -r "$test_ref" --hyp "$1" | sed 's/^[^=]*= \([0-9.]*\) .*/\1/'
}
detok() { "$BIN/heed-tokenize" detokenize < "$1" > "$2"; }

# heed's recipe: experiments/multi30k/run.sh's TRAIN_OPTIONS and MODEL_OPTIONS defaults (keep
# them equal), the model of the system.
heed_run() {  # MODE SYSTEM SEED DIR
  local mode=$1 system=$2 seed=$3 dir=$4 model limit=() resume=()
  case $system in
    heed-recipe) model=("${HEED_RECIPE_MODEL[@]}") ;;
    heed-marian-like) model=("${HEED_MARIAN_LIKE[@]}") ;;
  esac
  [ "$mode" = minutes ] && limit=(--time-limit $((MINUTES * 60)))
  [ -f "$dir/run/checkpoint.heed" ] && resume=(--resume)
  [ -f "$dir/run/checkpoint.heed" ] || rm -rf "$dir/run" "$dir/metrics.tsv"
  local start=$SECONDS
  OMP_WAIT_POLICY=passive "$BIN/heed-train" "${model[@]}" \
    --train-src "$WORK/train.bpe.de" --train-tgt "$WORK/train.bpe.en" \
    --valid-src "$WORK/val.bpe.de" --valid-tgt "$WORK/val.bpe.en" \
    --lr 0.001 --lr-schedule cosine --warmup-steps "$WARMUP" --min-lr 1e-5 --exponential-smoothing 1e-3 \
    --dropout 0.3 --label-smoothing 0.1 --clip 5 --batch-size 64 \
    --max-steps "$UPDATES" "${limit[@]}" --valid-every "$VALID_EVERY" --save-every "$VALID_EVERY" \
    --seed "$seed" --threads "$THREADS" --precision f32 --metrics-file "$dir/metrics.tsv" \
    -o "$dir/run" "${resume[@]}" -q 2>> "$dir/train.log" ||
    die 70 "heed-train ($system, $mode, seed $seed) failed: $(tail -n 1 "$dir/train.log")"
  echo $((SECONDS - start)) >> "$dir/wall-seconds"
  for beam in 1 5; do
    OMP_WAIT_POLICY=passive "$BIN/heed-translate" -m "$dir/run/model.heed" --pretokenized --beam-size "$beam" \
      --length-penalty 0.6 --threads "$THREADS" -i "$test_src" -o "$dir/test.beam$beam.tok" 2>> "$dir/translate.log" ||
      die 70 "heed-translate ($system, $mode, seed $seed) failed: $(tail -n 1 "$dir/translate.log")"
  done
  updates_done=$(awk -F'\t' 'NR > 1 && $1 ~ /^[0-9]+$/ { s = $1 } END { print s + 0 }' "$dir/metrics.tsv")
  best_ppl=$(awk -F'\t' 'NR > 1 && $7 != "" && (b == "" || $7 + 0 < b + 0) { b = $7 } END { print (b == "" ? "-" : b) }' "$dir/metrics.tsv")
}

marian_run() {  # MODE SYSTEM SEED DIR
  local mode=$1 seed=$3 dir=$4 limit=() rc=0
  [ "$mode" = minutes ] && limit=(timeout --signal=TERM $((MINUTES * 60)))
  local start=$SECONDS
  # shellcheck disable=SC2086
  OPENBLAS_NUM_THREADS=1 "${limit[@]}" "$MARIAN/marian" "${MARIAN_ARCH[@]}" $(marian_dim_vocabs "$WORK") \
    -t "$WORK/train.bpe.de" "$WORK/train.bpe.en" -v "$WORK/vocab.de.yml" "$WORK/vocab.en.yml" \
    -m "$dir/model.npz" --valid-sets "$WORK/val.bpe.de" "$WORK/val.bpe.en" \
    --valid-freq "$VALID_EVERY" --save-freq "$VALID_EVERY" --disp-freq "$VALID_EVERY" \
    --valid-metrics cross-entropy perplexity bleu --early-stopping 5 --exponential-smoothing \
    --beam-size 5 --normalize 0.6 --valid-mini-batch 64 --quiet-translation \
    --dropout-rnn 0.2 --dropout-src 0.1 --dropout-trg 0.1 --label-smoothing 0.1 \
    --mini-batch 64 --maxi-batch 100 --max-length 100 --after-batches "$UPDATES" \
    --sigterm save-and-exit --seed "$seed" --cpu-threads "$THREADS" --workspace 2048 \
    --log "$dir/train.log" --valid-log "$dir/valid.log" $MARIAN_OPTIONS \
    > /dev/null 2>> "$dir/stderr" || rc=$?
  echo $((SECONDS - start)) >> "$dir/wall-seconds"
  # 124: timeout sent SIGTERM at the budget (Marian saved and exited)
  [ "$rc" = 0 ] || { [ "$mode" = minutes ] && [ "$rc" = 124 ]; } ||
    die 70 "marian ($mode, seed $seed) failed ($rc): $(tail -n 1 "$dir/stderr")"
  local best=$dir/model.npz.best-cross-entropy.npz
  [ -f "$best" ] || best=$dir/model.npz
  for beam in 1 5; do
    OPENBLAS_NUM_THREADS=1 "$MARIAN/marian-decoder" -m "$best" -v "$WORK/vocab.de.yml" "$WORK/vocab.en.yml" \
      --beam-size "$beam" --normalize 0.6 --mini-batch 64 --maxi-batch 100 --maxi-batch-sort src \
      --cpu-threads "$THREADS" --quiet -i "$test_src" -o "$dir/test.beam$beam.tok" 2>> "$dir/translate.log" ||
      die 70 "marian-decoder ($mode, seed $seed) failed: $(tail -n 1 "$dir/translate.log")"
  done
  updates_done=$(sed -n 's/.* Up\. \([0-9][0-9,]*\) .*/\1/p' "$dir/train.log" | tr -d ',' | tail -n 1)
  [ -n "$updates_done" ] || updates_done=$(sed -n 's/.*after \([0-9][0-9,]*\) updates.*/\1/p' "$dir/train.log" | tr -d ',' | tail -n 1)
  best_ppl=$(sed -n 's/.* : perplexity : \([0-9.]*\) .*/\1/p' "$dir/valid.log" | sort -g | head -n 1)
  [ -n "$best_ppl" ] || best_ppl=-
}

for mode in $MODES; do
  for seed in $SEEDS; do
    for system in $SYSTEMS; do  # interleaved: Marian and heed take turns over the machine's hours
      has_row "$mode" "$system" "$seed" && continue
      dir=$quality/$system-$mode-s$seed
      mkdir -p "$dir"
      echo "marian quality: $system, $mode, seed $seed: started $(date -u +%H:%M)" >&2
      if [ "$system" = marian ]; then marian_run "$mode" "$system" "$seed" "$dir"
      else heed_run "$mode" "$system" "$seed" "$dir"; fi
      for beam in 1 5; do detok "$dir/test.beam$beam.tok" "$dir/test.beam$beam.txt"; done
      minutes=$(awk '{ s += $1 } END { printf "%.1f", s / 60 }' "$dir/wall-seconds")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$system" "$seed" "${updates_done:-0}" "$minutes" \
        "$best_ppl" "$(bleu "$dir/test.beam1.txt")" "$(bleu "$dir/test.beam5.txt")" >> "$rows"
    done
  done
done

# The differences over seeds and sentences, Marian the baseline (heed-score --system).
{
  echo "# heed beside Marian, Multi30k de→en test2016 $( [ "$TEST_SENTENCES" -gt 0 ] && echo "(first $TEST_SENTENCES sentences)")"
  heed_machine_report
  marian_builds_report "$root" "$MARIAN"
  echo "# updates: $UPDATES; minutes: $MINUTES; valid every: $VALID_EVERY; threads: $THREADS; seeds: $SEEDS"
  echo "# marian options: ${MARIAN_ARCH[*]} $(marian_dim_vocabs "$WORK") (+ the recipe of experiments/marian/run.sh) $MARIAN_OPTIONS"
  [ "$QUICK" = 1 ] && echo "# QUICK: a test of the pipeline, not a result"
  cat "$rows"
} > "$RESULTS/rows.tsv"
read -r -a seeds <<< "$SEEDS"
if [ "${#seeds[@]}" -ge 2 ]; then
  for mode in $MODES; do
    for beam in 1 5; do
      args=()
      for system in $SYSTEMS; do
        runs=$(for seed in $SEEDS; do printf '%s,' "$quality/$system-$mode-s$seed/test.beam$beam.txt"; done)
        args+=(--system "$system=${runs%,}")
      done
      "$BIN/heed-score" --lowercase -m bleu chrf -r "$test_ref" "${args[@]}" --bootstrap "$BOOTSTRAP" \
        --format tsv > "$RESULTS/compare-$mode-beam$beam.tsv.tmp"
      mv "$RESULTS/compare-$mode-beam$beam.tsv.tmp" "$RESULTS/compare-$mode-beam$beam.tsv"
    done
  done
else
  echo "marian quality: one seed: no comparison over seeds (heed-score --system needs two runs or more)" >&2
fi
cat "$RESULTS/rows.tsv"
