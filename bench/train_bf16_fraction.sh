#!/usr/bin/env bash
# bf16 training against the bf16 matmul peak, two builds interleaved (issue 65's bf16 target):
# per round the bf16 GEMM peak (heed-bench-attn of BUILD_B: the best of 3 GEMMs of 2048), then
# heed-train of BUILD_A, then of BUILD_B, on the marian bench's model and options (heed's nearest
# arrangement to Marian's s2s: --decoder bahdanau --attention additive, hidden 512, embeddings
# 256; batch 64, Adam 1e-3 constant, clip 5, no dropout, no label smoothing, seed 1), UPDATES
# updates. Throughput is heed-train --profile's (the updates after its first WINDOW); the
# fraction is throughput × 38.79 MFLOP a target token (3× the forward FLOPs of that model on
# Multi30k, docs/benchmarks.md "heed beside Marian") over the peak of the same round.
#
#   bash bench/train_bf16_fraction.sh BUILD_A BUILD_B TRAIN_SRC TRAIN_TGT
# e.g. bash bench/train_bf16_fraction.sh /path/to/old/build build /work/heed-marian/train.bpe.{de,en}
# Environment: ROUNDS (5), UPDATES (150), WINDOW (25), THREADS (2); UPDATES_B and WINDOW_B
# (UPDATES and WINDOW unless set) give B other counts: the same build twice with a longer run
# for B measures what the first updates' kernel generation costs the short window (oneDNN
# builds a kernel for every new shape, e.g. every new sentence length, 4-5 an update until about
# update 230 of Multi30k, then almost none: strace of its 256 KiB code buffers). Needs an idle
# machine and bf16.
# Output (stdout): "# " lines (machine, builds), then round, build, peak_gflops,
# target_tokens_per_s, percent_of_peak.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/machine.sh"
die() { local code=$1; shift; echo "train_bf16_fraction: $*" >&2; exit "$code"; }
[ $# = 4 ] || die 64 "usage: train_bf16_fraction.sh BUILD_A BUILD_B TRAIN_SRC TRAIN_TGT"
A=$1/bin B=$2/bin src=$3 tgt=$4
ROUNDS=${ROUNDS:-5} UPDATES=${UPDATES:-150} WINDOW=${WINDOW:-25} THREADS=${THREADS:-2}
UPDATES_B=${UPDATES_B:-$UPDATES} WINDOW_B=${WINDOW_B:-$WINDOW}
for v in ROUNDS UPDATES WINDOW UPDATES_B WINDOW_B THREADS; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die 64 "$v '${!v}' is not a positive count"
done
for side in "" _B; do
  u=UPDATES$side w=WINDOW$side
  [ "${!w}" -lt "${!u}" ] || die 64 "$w (${!w}) must be below $u (${!u}): the profile counts the updates after it"
done
for bin in "$A" "$B"; do [ -x "$bin/heed-train" ] || die 69 "$bin/heed-train not found"; done
for f in "$src" "$tgt"; do [ -r "$f" ] || die 66 "cannot read $f"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

heed_machine_report
echo "# A: $("$A/heed-train" --version 2>&1 | head -n 1); B: $("$B/heed-train" --version 2>&1 | head -n 1)"
echo "# rounds: $ROUNDS; A: updates $UPDATES, window $WINDOW; B: updates $UPDATES_B, window $WINDOW_B; threads: $THREADS"
printf 'round\tbuild\tpeak_gflops\ttarget_tokens_per_s\tpercent_of_peak\n'
for round in $(seq "$ROUNDS"); do
  peak=$("$B/heed-bench-attn" --attention dot --batch 1 --source-length 8 --target-length 1 \
    --hidden 16 --mode all-steps --pass forward --threads "$THREADS" --warmup 0 --repeats 1 \
    --format tsv -q | sed -n 's/^# matmul_peak_gflops:.* bf16=\([0-9.]*\).*/\1/p')
  [ -n "$peak" ] || die 70 "heed-bench-attn printed no bf16 matmul peak (no bf16 here?)"
  for side in A B; do
    bin=${!side} updates=$UPDATES window=$WINDOW
    [ $side = A ] || updates=$UPDATES_B window=$WINDOW_B
    rm -rf "$work/run"
    "$bin/heed-train" --hidden 512 --embed 256 --decoder bahdanau --attention additive \
      --vocab-size 10000 --train-src "$src" --train-tgt "$tgt" --batch-size 64 \
      --max-steps "$updates" --log-every "$window" --valid-every 0 --save-every 1000000 --lr 0.001 \
      --lr-schedule constant --clip 5 --dropout 0 --label-smoothing 0 --precision bf16 \
      --threads "$THREADS" --seed 1 --profile "$work/profile.tsv" -o "$work/run" -q \
      2> "$work/stderr" || die 70 "heed-train ($side) failed: $(tail -n 1 "$work/stderr")"
    tps=$(awk '/^# heed-train --profile/ { for (i = 1; i <= NF; i++) if ($i == "target") print $(i - 1) }' \
      "$work/profile.tsv")
    awk -v r="$round" -v s="$side" -v p="$peak" -v t="$tps" \
      'BEGIN { printf "%s\t%s\t%s\t%s\t%.1f\n", r, s, p, t, 100 * t * 38.79e6 / 1e9 / p }'
  done
done
