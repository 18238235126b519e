#!/usr/bin/env bash
# The convergence study of docs/benchmarks.md ("Train to convergence"): each (variant, seed) of
# QUEUE is one run of experiments/multi30k/run.sh — UPDATES updates (a budget in updates, never
# seconds), STAGES kept models, test2016 greedy and beam after each — with the variant's options
# from variants.tsv. Finished runs are skipped (their rows are in results/), an interrupted one
# resumes from its checkpoint; after each run the table in docs/benchmarks.md is regenerated. A
# finished run without the recipe's averaged row (or, stopped early, its best model's row) gets
# it if its models are still in WORK.
#
#   BIN=/tmp/heed-conv-bin bash experiments/convergence/run.sh
#   QUEUE="cosine-ema:2 cosine-ema:3" bash experiments/convergence/run.sh
#
# Run it from a copy of the binaries outside the work tree (BIN), so that rebuilding heed while
# it runs changes nothing. Environment: BIN (default build/bin), WORK (/tmp/heed-multi30k),
# UPDATES (10200), STAGES (6), THREADS (2), QUEUE (variant:seed ..., in order), RESULTS (the
# results folder, default experiments/convergence/results) and PAGE (docs/benchmarks.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
export BIN=${BIN:-$root/build/bin} WORK=${WORK:-/tmp/heed-multi30k}
export UPDATES=${UPDATES:-10200} STAGES=${STAGES:-6} THREADS=${THREADS:-2}
QUEUE=${QUEUE:-cosine-ema:1 cosine-ema-d4:1 plateau-p0:1 cosine-ema-tied:1 cosine-ema-6800:1 cosine-ema-wd:1 cosine-ema:2 cosine-ema:3 cosine-ema-f32:1 cosine-ema-es:1 cosine:1 inv-sqrt:1 plateau-p2:1}
results=${RESULTS:-$here/results}
page=${PAGE:-$root/docs/benchmarks.md}
mkdir -p "$results"
# On a shared machine libgomp's spin-waiting starves the run (measured here: 200 target tokens/s
# beside builds, 1,800 passive); waiting passively changes the speed, never the numbers.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
for item in $QUEUE; do
  variant=${item%%:*} seed=${item##*:}
  run=$variant-s$seed
  if [ -s "$results/$run.rows.tsv" ]; then
    # A run finished before the recipe averaged its last stages, or translated the best model
    # of a run stopped early, gets that row while its models are in WORK: the recipe, called
    # again, only averages or translates.
    last=$(awk -F'\t' '$1 ~ /^[0-9]+$/ { u = $2 } END { print u }' "$results/$run.rows.tsv")
    stopped=$(awk -F'\t' '$10 ~ /early-stop/ { f = 1 } END { print f + 0 }' "$results/$run.metrics.tsv")
    if { [ "$stopped" = 1 ] && cut -f1 "$results/$run.rows.tsv" | grep -q '^best$'; } ||
       { [ "$stopped" = 0 ] && cut -f1 "$results/$run.rows.tsv" | grep -q '^avg'; } ||
       [ ! -f "$WORK/run-$run/model.step-$last.heed" ]; then
      echo "convergence: $run done already" >&2
      continue
    fi
  fi
  line=$(awk -F'\t' -v v="$variant" '$1 == v' "$here/variants.tsv")
  [ -n "$line" ] || { echo "convergence: no variant '$variant' in variants.tsv" >&2; exit 64; }
  IFS=$'\t' read -r _ precision train_options model_options overrides <<< "$line"
  echo "convergence: $run ($precision, UPDATES=$UPDATES${overrides:+ $overrides}: the last setting wins) started $(date -u +%H:%M)" >&2
  # overrides: the variant's own recipe settings (e.g. UPDATES=30600 VALID_EVERY=850), as words.
  # shellcheck disable=SC2086
  env PRECISION="$precision" SEED="$seed" RUN="$run" TRAIN_OPTIONS="$train_options" \
    MODEL_OPTIONS="$model_options" $overrides \
    bash "$root/experiments/multi30k/run.sh" > "$results/$run.rows.tsv.tmp"
  cp "$WORK/metrics-$run.tsv" "$results/$run.metrics.tsv"
  mv "$results/$run.rows.tsv.tmp" "$results/$run.rows.tsv"
  echo "convergence: $run finished $(date -u +%H:%M)" >&2
  /usr/bin/python3 "$here/report.py" --results "$results" --variants "$here/variants.tsv" \
    --page "$page" || echo "convergence: the report failed (the rows are kept)" >&2
done
