#!/usr/bin/env bash
# How a study should spend the machine's two cores: one training run with 2 threads, or two runs
# side by side with 1 thread each? The studies (the ablation's 96 runs, the alignment study's 20)
# are many independent runs, so what matters is the tokens per second of the whole machine.
#
# The model of bench/train_speed.sh (bi-LSTM 256+256, LSTM 512, general attention with input
# feeding, embed 256, vocabularies 8,000, batches of 64 pairs of length 20, Adam, no dropout), on
# its synthetic corpus. Per round: one run with --threads 2, then two runs with --threads 1 at
# once; a run's figure is the median target tokens/s of its windows after the first (warm-up),
# the pair's is the sum of its two runs'. ROUNDS interleaved rounds; medians over rounds, min–max
# beside them. An idle machine only: this is a speed measurement.
#
#   bash bench/parallel_training.sh [BUILD_DIR] [WINDOWS] [WINDOW]
# Environment: ROUNDS (3), PRECISION (bf16 where the CPU has it, else f32).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
WINDOWS=${2:-3}
WINDOW=${3:-20}
ROUNDS=${ROUNDS:-3}
PRECISION=${PRECISION:-$(heed_default_precision)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
heed_machine_report
heed_synthetic_corpus "$work"
export OMP_WAIT_POLICY=passive

# train NAME THREADS: one run; its median tokens/s after the warm-up window on stdout.
train() {
  local name=$1 threads=$2
  rm -rf "$work/run.$name" "$work/m.$name.tsv"
  "$BUILD/bin/heed-train" --train-src "$work/src" --train-tgt "$work/tgt" \
    --attention general "${HEED_BENCH_MODEL[@]}" \
    --max-steps $(((WINDOWS + 1) * WINDOW)) --valid-every "$WINDOW" --save-every 1000000 \
    --precision "$PRECISION" --threads "$threads" --metrics-file "$work/m.$name.tsv" \
    -o "$work/run.$name" 2> "$work/$name.log" ||
    { echo "parallel_training: $name failed: $(tail -n 1 "$work/$name.log")" >&2; exit 70; }
  heed_window_tokens "$work/m.$name.tsv"
}

for round in $(seq "$ROUNDS"); do
  echo "parallel_training: round $round of $ROUNDS" >&2
  train one 2 >> "$work/one"
  train a 1 > "$work/a" &
  train b 1 > "$work/b" &
  wait
  echo "$(cat "$work/a") + $(cat "$work/b")" | bc -l >> "$work/two"
  cat "$work/a" >> "$work/each"
  cat "$work/b" >> "$work/each"
done

echo "# $PRECISION, $ROUNDS interleaved rounds; each figure the median of its rounds (min–max beside it)"
printf 'layout\ttarget_tokens_per_s\tmin\tmax\n'
summary() {  # NAME FILE
  local values
  mapfile -t values < <(sort -g "$work/$2")
  printf '%s\t%.0f\t%.0f\t%.0f\n' "$1" "$(heed_median "${values[@]}")" "${values[0]}" "${values[-1]}"
}
summary "one run, 2 threads" one
summary "two runs at once, 1 thread each: the sum" two
summary "two runs at once, 1 thread each: one run" each
