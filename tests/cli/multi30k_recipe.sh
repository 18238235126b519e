#!/usr/bin/env bash
# The Multi30k recipe (experiments/multi30k/run.sh) end to end on the embedded sample named as
# Multi30k's files, with a model small enough for seconds: the TSV's named columns, a row per
# stage and the checkpoint average's row; a second call trains and translates nothing and prints
# the same table; a run stopped early (--patience) gets the best model's row, at the update of
# its last best validation; settings it cannot use exit 64, a missing corpus file 66.
#   tests/cli/multi30k_recipe.sh BIN_DIR SOURCE_DIR
source "$(dirname "$0")/lib.sh"
SRC_DIR=${DATA:?usage: multi30k_recipe.sh BIN_DIR SOURCE_DIR}
RECIPE=$SRC_DIR/experiments/multi30k/run.sh
sample=$SRC_DIR/share/heed/sample
C=$TMP/corpus
mkdir -p "$C"
# The sample is English–French; the recipe reads German–English names.
for pair in "en de" "fr en"; do
  read -r from to <<< "$pair"
  head -300 "$sample/train.$from" > "$C/train.$to"
  head -20 "$sample/valid.$from" > "$C/val.$to"
  head -12 "$sample/test.$from" > "$C/test_2016_flickr.$to"
done
export BIN DATA=$C WORK=$TMP/work PRECISION=f32 THREADS=1 UPDATES=12 STAGES=2 AVERAGE=2 \
  ALPHAS="0.0 0.6" MODEL_OPTIONS="--hidden 16 --embed 8 --dropout 0.1" \
  TRAIN_OPTIONS="--lr 0.01 --lr-schedule cosine --warmup-steps 4 --exponential-smoothing 0.1"
header=$(printf 'stage\tupdates\tminutes\tval_ppl\tval_bleu\ttest2016_greedy\ttest2016_beam\talpha')

expect_exit 0 recipe -- env RUN=small bash "$RECIPE"
expect_eq header "$(head -1 "$TMP/out")" "$header"
expect_eq stages "$(tail -n +2 "$TMP/out" | cut -f1,2 | tr '\t\n' ' |')" "1 6|2 12|avg2 12|"
# Every score is a number; the average's perplexity and BLEU on validation are not measured.
expect_eq numbers "$(tail -n +2 "$TMP/out" | awk -F'\t' '$6 !~ /^[0-9.]+$/ || $7 !~ /^[0-9.]+$/' | wc -l)" 0
expect_eq average-unmeasured "$(awk -F'\t' '$1 == "avg2" { print $4 $5 }' "$TMP/out")" "--"
cp "$TMP/out" "$TMP/first"
models=("$WORK"/run-small/model.step-*.heed)
expect_eq models "${#models[@]}" 2

# Called again: nothing trained or translated (the files keep their times), the same table.
touch -d '2000-01-01' "$WORK"/test.* "$WORK/run-small/model.heed"
expect_exit 0 again -- env RUN=small bash "$RECIPE"
expect_eq again-table "$(cat "$TMP/out")" "$(cat "$TMP/first")"
expect_eq again-untouched "$(find "$WORK" -maxdepth 2 -newer "$C/train.de" \( -name 'test.*' -o -name model.heed \) | wc -l)" 0

# Stopped early: a rate this large makes validation worse within a few validations, so patience 1
# stops training before the budget; the best model's row, and no stage row without a model.
expect_exit 0 early -- env RUN=early UPDATES=40 STAGES=2 VALID_EVERY=4 \
  TRAIN_OPTIONS="--lr 0.5 --patience 1" bash "$RECIPE"
grep -q 'early-stop' "$WORK/metrics-early.tsv" && ok || fail "no early stop: $(cut -f1,7,10 "$WORK/metrics-early.tsv" | tr '\n' ' ')"
best_step=$(awk -F'\t' '$10 ~ /best/ { s = $1 } END { print s }' "$WORK/metrics-early.tsv")
expect_eq best-row "$(awk -F'\t' '$1 == "best" { print $2 }' "$TMP/out")" "$best_step"
expect_eq best-rows "$(grep -c '^best' "$TMP/out")" 1
expect_eq no-late-stage "$(awk -F'\t' '$1 == 2' "$TMP/out" | wc -l)" 0

# Settings it cannot use, and a corpus file that is not there.
expect_exit 64 updates -- env RUN=bad UPDATES=10 STAGES=3 bash "$RECIPE"
grep -q 'must be a multiple of 2 × STAGES' "$TMP/err" && ok || fail "updates message: $(cat "$TMP/err")"
expect_exit 64 average -- env RUN=bad AVERAGE=3 bash "$RECIPE"
rm "$C/val.en"
expect_exit 66 missing -- env RUN=bad WORK="$TMP/work2" bash "$RECIPE"
grep -q "val.en not found" "$TMP/err" && ok || fail "missing-file message: $(cat "$TMP/err")"
finish
