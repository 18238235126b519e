#!/usr/bin/env bash
# The Multi30k recipe's workflow (experiments/multi30k/Snakefile and experiments/common/
# multi30k.smk, under experiments/profiles/local) end to end on the embedded sample named as
# Multi30k's files, with a model small enough for seconds: Ctrl-C in the middle of training, then
# the same command resumes from the run's checkpoint (the metrics file goes on) and prints the
# table — its named columns, a row per stage and the checkpoint average's; afterwards snakemake
# -n has nothing to do. A run stopped early (--patience) gets the best model's row, at the update
# of its last best validation; settings it cannot use and a missing corpus file are refused.
# Skipped (77) without snakemake.
#   tests/cli/multi30k_recipe.sh BIN_DIR SOURCE_DIR
source "$(dirname "$0")/lib.sh"
SRC_DIR=${DATA:?usage: multi30k_recipe.sh BIN_DIR SOURCE_DIR}
need_snakemake
C=$TMP/corpus
multi30k_sample "$C"
# The study, its Snakemake state in $TMP/wd, with tiny settings; more KEY=VALUE may follow.
recipe=(snakemake -s "$SRC_DIR/experiments/multi30k/Snakefile" -d "$TMP/wd"
        --profile "$SRC_DIR/experiments/profiles/local"
        --config bin="$BIN" data="$C" work="$TMP/work" precision=f32 threads=1 updates=600 stages=2
        average=2 alphas="0.0 0.6" model_options="--hidden 16 --embed 8 --dropout 0.1"
        train_options="--lr 0.01 --lr-schedule cosine --warmup-steps 4 --exponential-smoothing 0.1")
header=$(printf 'stage\tupdates\tminutes\tval_ppl\tval_bleu\ttest2016_greedy\ttest2016_beam\talpha')
run=$TMP/work/runs/small/s1
steps() { tail -n +2 "$run/metrics.tsv" | cut -f1 | tr '\n' ' '; }

# Ctrl-C (SIGINT to Snakemake's process group, as a terminal sends it) once training has logged
# its first row (update 100 of 600): heed-train saves a checkpoint, no train.done.
setsid "${recipe[@]}" name=small > "$TMP/first.out" 2> "$TMP/first.err" &
pid=$!
for _ in $(seq 1200); do
  [ "$(wc -l 2>/dev/null < "$run/metrics.tsv")" -ge 2 ] 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -INT -- "-$pid" 2>/dev/null
wait "$pid"
code=$?
[ "$code" != 0 ] && ok || fail "interrupted: exit 0 (the interrupt came too late?)"
[ ! -e "$run/train.done" ] && ok || fail "interrupted: train.done written"
[ -f "$run/checkpoint.heed" ] && ok || fail "interrupted: no checkpoint; $(tail -3 "$TMP/first.err")"
before=$(steps)
case " $before" in *" 600 "*) fail "interrupted: trained to the end: $before" ;; *) ok ;; esac

# The same command again: training resumes from the checkpoint (its logged rows kept, the run
# goes on to 600), then translates and scores; the table is printed at the end.
expect_exit 0 resumed -- "${recipe[@]}" name=small
grep -q 'multi30k: small/s1: resuming from its checkpoint' "$TMP/err" && ok ||
  fail "no resume: $(grep -i 'error\|multi30k' "$TMP/err" | head -5)"
after=$(steps)
expect_eq metrics-kept "${after:0:${#before}}" "$before"
expect_eq metrics-end "$(tail -1 "$run/metrics.tsv" | cut -f1)" 600
expect_eq header "$(head -1 "$TMP/out")" "$header"
expect_eq stages "$(tail -n +2 "$TMP/out" | cut -f1,2 | tr '\t\n' ' |')" "1 300|2 600|avg2 600|"
# Every score is a number; the average's perplexity and BLEU on validation are not measured.
expect_eq numbers "$(tail -n +2 "$TMP/out" | awk -F'\t' '$6 !~ /^[0-9.]+$/ || $7 !~ /^[0-9.]+$/' | wc -l)" 0
expect_eq average-unmeasured "$(awk -F'\t' '$1 == "avg2" { print $4 $5 }' "$TMP/out")" "--"
expect_same rows-file "$TMP/out" "$run/rows.tsv"
models=("$run"/model.step-*.heed)
expect_eq models "${#models[@]}" 2

# Finished: nothing to do, and a real call does nothing either.
expect_exit 0 dry-run -- "${recipe[@]}" name=small -n
# (A dry run logs to stdout.)
grep -q 'Nothing to be done' "$TMP/out" && ok || fail "dry run after the end: $(tail -5 "$TMP/out")"
expect_exit 0 again -- "${recipe[@]}" name=small
grep -q 'Nothing to be done' "$TMP/err" && ok || fail "again: $(tail -5 "$TMP/err")"
expect_same again-table "$TMP/out" "$run/rows.tsv"

# Stopped early: a rate this large makes validation worse within a few validations, so patience 1
# stops training long before the budget (at update 20 of 400 on an AMD Zen 2; where it stops
# depends on the CPU's arithmetic: CI once stopped at 40, when the budget was 40); the best model's
# row, and no stage row (one every 20 updates) without a model.
expect_exit 0 early -- "${recipe[@]}" name=early updates=400 stages=20 valid_every=4 \
  train_options="--lr 0.5 --patience 1"
metrics=$TMP/work/runs/early/s1/metrics.tsv
grep -q 'early-stop' "$metrics" && ok || fail "no early stop: $(cut -f1,7,10 "$metrics" | tr '\n' ' ')"
last_step=$(tail -1 "$metrics" | cut -f1)
[ "$last_step" -lt 400 ] && ok || fail "early stop at the budget's end: $(cut -f1,7,10 "$metrics" | tr '\n' ' ')"
best_step=$(awk -F'\t' '$10 ~ /best/ { s = $1 } END { print s }' "$metrics")
expect_eq best-row "$(awk -F'\t' '$1 == "best" { print $2 }' "$TMP/out")" "$best_step"
expect_eq best-rows "$(grep -c '^best' "$TMP/out")" 1
expect_eq no-late-stage "$(awk -F'\t' -v last="$last_step" '$1 ~ /^[0-9]+$/ && $2 > last' "$TMP/out" | wc -l)" 0

# Settings it cannot use, and a corpus file that is not there.
expect_exit 1 updates -- "${recipe[@]}" name=bad updates=10 stages=3
grep -q 'must be a multiple of 2 × stages' "$TMP/err" && ok || fail "updates message: $(cat "$TMP/err")"
expect_exit 1 average -- "${recipe[@]}" name=bad average=3
grep -q 'average (3) must be a number of stages from 0 to stages (2)' "$TMP/err" && ok ||
  fail "average message: $(cat "$TMP/err")"
rm "$C/val.en"
expect_exit 1 missing -- "${recipe[@]}" name=bad work="$TMP/work2"
grep -q "MissingInputException" "$TMP/err" && grep -q "$C/val.en" "$TMP/err" && ok ||
  fail "missing-file message: $(cat "$TMP/err")"
finish
