#!/usr/bin/env bash
# Data-parallel training speed: target tokens per second of heed-train on 1, 2, … MPI processes
# of one thread each, and the time each update spends summing gradients across the processes
# (heed-train's "throughput:" log line: MPI_Allreduce of the loss sums and the gradient
# buckets, waiting for the slowest process included). docs/scale-out.md turns these figures
# into a projection for more processes and hosts.
#
# The model of bench/train_speed.sh: 1-layer bi-LSTM encoder 256+256, LSTM decoder 512, Luong
# general attention, embeddings 256, vocabularies 8,000, no dropout; GLOBAL batches of 64 pairs
# of length 20 (1,280 target tokens), split among the processes. The figure is the median over
# ROUNDS runs of STEPS updates each; the start (data, model) is not timed.
#
#   bash bench/train_scaling.sh [BUILD_DIR] [STEPS]
# Environment: RANKS ("1 2"), ROUNDS (3), MPIRUN (mpirun), MODEL (extra heed-train options; a
# smaller model for a smoke test, e.g. "--hidden 32 --embed 16").
# Output: TSV on stdout — ranks, tokens_per_s, speedup, allreduce_ms_per_update,
# allreduce_share (of the training time), model_bytes (the f32 gradients summed per update).
# Do not run it while other timed jobs use the machine.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
STEPS=${2:-60}
RANKS=${RANKS:-1 2}
ROUNDS=${ROUNDS:-3}
MPIRUN=${MPIRUN:-mpirun}
read -r -a model_options <<< "${MODEL:---hidden 512 --embed 256 --attention general}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Open MPI refuses root without these; --oversubscribe when asking for more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

heed_machine_report
echo "# mpirun: $("$MPIRUN" --version 2>&1 | head -1)"
echo "# steps per run: $STEPS, rounds: $ROUNDS, model: ${model_options[*]}"
heed_synthetic_corpus "$work"

printf 'ranks\ttokens_per_s\tspeedup\tallreduce_ms_per_update\tallreduce_share\tmodel_bytes\n'
base=""
for ranks in $RANKS; do
  tps=() ms=() share=()
  for round in $(seq "$ROUNDS"); do
    rm -rf "$work/run"
    "$MPIRUN" -np "$ranks" --bind-to core "$BUILD/bin/heed-train" --train-src "$work/src" \
      --train-tgt "$work/tgt" "${model_options[@]}" --vocab-size 8000 --batch-size 64 \
      --dropout 0 --max-steps "$STEPS" --save-every 0 --valid-every 0 --threads 1 \
      --seed "$round" -o "$work/run" 2> "$work/log" > /dev/null
    line=$(grep 'throughput:' "$work/log") || { cat "$work/log" >&2; exit 1; }
    # "throughput: 1234 target tokens/s with 2 processes; summing gradients 5.678 ms per update (9.1% of the time)"
    tps+=("$(sed -E 's/.*throughput: ([0-9.]+) .*/\1/' <<< "$line")")
    ms+=("$(sed -E 's/.*gradients ([0-9.]+) ms.*/\1/' <<< "$line")")
    share+=("$(sed -E 's/.*\(([0-9.]+)% of the time\).*/\1/' <<< "$line")")
    parameters=$(grep -oE '\(([0-9]+) parameters' "$work/log" | grep -oE '[0-9]+')
  done
  t=$(heed_median "${tps[@]}")
  [ -n "$base" ] || base=$t
  printf '%s\t%.0f\t%.2f\t%s\t%s%%\t%s\n' "$ranks" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN { print a / b }')" \
    "$(heed_median "${ms[@]}")" "$(heed_median "${share[@]}")" "$((parameters * 4))"
done
