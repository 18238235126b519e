#!/usr/bin/env bash
# Translation speed, heed beside the PyTorch peer, in one run; and greedy agreement of heed with
# our own PyTorch reference model (tests/reference/) on the same weights.
#
# Model: the one of bench/train_speed.sh (bi-LSTM 256+256, LSTM 512, Luong general attention
# with input feeding, embeddings 256, vocabularies 8,000) with near-random weights (one update
# from the uniform ±0.1 initialisation). Input: 1,000 synthetic sentences of 20 tokens.
# Cases: greedy with batches of 64; beam 5 with batch 1 (the interactive case). Both sides do
# the same work: exactly 25 decoder steps per sentence (the peer runs 25 steps without early
# stop; heed gets --min-length 25 and a maximum of 25, since a near-random model would
# otherwise end most sentences at once). heed's figure is the target tokens per second that
# heed-translate -v reports for its translation loop (model loading excluded, as the peer's
# timed blocks exclude building its model); the end-to-end rate of the whole process (start,
# model load, JIT, reading and writing) is printed beside it.
#
#   bash bench/translate_speed.sh [BUILD_DIR] [REPEATS]
# REPEATS (5) interleaved rounds: heed f32, heed bf16, PyTorch, for greedy and then beam; each
# side's figure is the median of its rounds, with its peak resident memory (GNU time).
# Environment: THREADS (2), PEER, BLAS_DIR (/tmp/blas), PRECISIONS ("f32 bf16"),
# BEAM_SENTENCES (200: beam 5 batch 1 translates the first N sentences).
# PyTorch (peer and tests/reference) runs on Debian's /usr/bin/python3 with OpenBLAS.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
REPEATS=${2:-5}
THREADS=${THREADS:-2}
PEER=${PEER:-$root/../shared/peers/s2s_bench.py}
BLAS_DIR=${BLAS_DIR:-/tmp/blas}
PRECISIONS=${PRECISIONS:-f32 bf16}
BEAM_SENTENCES=${BEAM_SENTENCES:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

heed_machine_report
awk -v seed=11 'BEGIN {
  srand(seed)
  for (i = 0; i < 1000; i++) {
    s = ""; t = ""
    for (j = 0; j < 20; j++) s = s (j ? " " : "") "w" int(rand() * 7996)
    for (j = 0; j < 19; j++) t = t (j ? " " : "") "w" int(rand() * 7996)
    print s > "'"$work"'/src"; print t > "'"$work"'/tgt"
  }
  for (i = 0; i < 8000; i++) {  # enough pairs for every word to be in both vocabularies
    s = ""; for (j = 0; j < 20; j++) s = s (j ? " " : "") "w" int(rand() * 7996)
    print s > "'"$work"'/vocab_src"
  }
}'
cat "$work/vocab_src" "$work/src" > "$work/train_src"
cat "$work/vocab_src" "$work/src" > "$work/train_tgt"
"$BUILD/bin/heed-train" --train-src "$work/train_src" --train-tgt "$work/train_tgt" --attention general \
  --hidden 512 --embed 256 --vocab-size 8000 --dropout 0 --max-steps 1 --threads "$THREADS" -q \
  -o "$work/model" 
model=$work/model/model.heed
head -"$BEAM_SENTENCES" "$work/src" > "$work/src.beam"
for precision in $PRECISIONS; do
  echo "# $precision:"
  heed_onednn_report "$BUILD/bin/heed-translate" -m "$model" --pretokenized --beam-size 1 \
    --precision "$precision" --threads "$THREADS" -i "$work/src.beam"
done

blas_env=()
[ -d "$BLAS_DIR/openblas-openmp" ] && blas_env=("LD_LIBRARY_PATH=$BLAS_DIR/openblas-openmp")

fixed=(--min-length 25 --max-length-ratio 0.001 --max-length-offset 25)  # 25 steps, as the peer

# One peer run: peer_once CASE → its median tokens/s in $work/tps.CASE.pytorch.f32, its peak
# resident memory (GNU time's %M, KiB) in $work/rss.CASE.pytorch.f32.
peer_once() {
  /usr/bin/time -f '%M' -o "$work/rss" env "${blas_env[@]}" OMP_NUM_THREADS=$THREADS \
    OPENBLAS_NUM_THREADS=$THREADS /usr/bin/python3 "$PEER" --mode "$1" --attn general \
    --threads "$THREADS" 2>/dev/null | tail -1 |
    /usr/bin/python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["tok_per_s_median"])' \
    >> "$work/tps.$1.pytorch.f32"
  cat "$work/rss" >> "$work/rss.$1.pytorch.f32"
}
# One heed run: heed_once CASE PRECISION → the decoding loop's tokens/s (heed-translate -v) in
# $work/tps.CASE.heed.PRECISION, the whole process's in $work/whole.CASE.heed.PRECISION, its
# peak resident memory in $work/rss.CASE.heed.PRECISION.
heed_once() {
  local case=$1 precision=$2 beam=1 batch=64 input=$work/src out=$work/out.$1.$2
  local key=$case.heed.$precision start end tokens
  [ "$case" = beam ] && { beam=5; batch=1; input=$work/src.beam; }
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$BUILD/bin/heed-translate" -v -m "$model" --pretokenized \
    --beam-size "$beam" --batch-size "$batch" --precision "$precision" --threads "$THREADS" \
    "${fixed[@]}" < "$input" > "$out" 2> "$work/log"
  end=$(date +%s.%N)
  tokens=$(awk '{ n += NF } END { print n }' "$out")
  echo "$tokens / ($end - $start)" | bc -l >> "$work/whole.$key"
  sed -n 's/.* \([0-9]*\) target tokens\/s.*/\1/p' "$work/log" >> "$work/tps.$key"
  cat "$work/rss" >> "$work/rss.$key"
}

have_peer=0
[ -f "$PEER" ] && /usr/bin/python3 -c 'import torch' 2>/dev/null && have_peer=1
# REPEATS interleaved rounds: in each, every heed precision and then the peer, for each case.
for round in $(seq "$REPEATS"); do
  echo "translate_speed: round $round of $REPEATS" >&2
  for case in greedy beam; do
    for precision in $PRECISIONS; do heed_once "$case" "$precision"; done
    [ $have_peer = 1 ] && peer_once "$case"
  done
done

echo "# $REPEATS interleaved rounds; each figure the median of its rounds; peak RSS the largest"
printf 'case\tsystem\tprecision\ttarget_tokens_per_s\tratio_to_pytorch\tend_to_end_tokens_per_s\tpeak_rss_mib\n'
median_of() { mapfile -t values < "$1"; heed_median "${values[@]}"; }
max_mib() { sort -g "$1" | tail -1 | awk '{ printf "%.0f", $1 / 1024 }'; }
for case in greedy beam; do
  peer_tps=""
  if [ -s "$work/tps.$case.pytorch.f32" ]; then
    peer_tps=$(median_of "$work/tps.$case.pytorch.f32")
    printf '%s\tpytorch\tf32\t%.0f\t1.00\t-\t%s\n' "$case" "$peer_tps" "$(max_mib "$work/rss.$case.pytorch.f32")"
  fi
  for precision in $PRECISIONS; do
    key=$case.heed.$precision
    tps=$(median_of "$work/tps.$key")
    ratio=""
    [ -n "$peer_tps" ] && ratio=$(echo "scale=2; $tps / $peer_tps" | bc -l)
    printf '%s\theed\t%s\t%.0f\t%s\t%.0f\t%s\n' "$case" "$precision" "$tps" "$ratio" \
      "$(median_of "$work/whole.$key")" "$(max_mib "$work/rss.$key")"
  done
done

# Greedy agreement with the independent PyTorch model on the same weights (float64), on the
# same 25-token outputs: with near-random weights the best and second-best tokens are often
# close, so this is a strict test of the numerics.
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  "$BUILD/bin/heed-translate" -m "$model" --pretokenized --beam-size 1 --batch-size 64 \
    --threads "$THREADS" "${fixed[@]}" < "$work/src" > "$work/heed.greedy"
  env "${blas_env[@]}" OMP_NUM_THREADS=$THREADS /usr/bin/python3 "$root/tests/reference/reference_model.py" \
    greedy "$model" "$work/src" "$work/ref.greedy" --min-length 25 --max-length-ratio 0.001 \
    --max-length-offset 25
  same=$(paste -d '\t' "$work/heed.greedy" "$work/ref.greedy" | awk -F'\t' '$1 == $2' | wc -l)
  echo "# greedy agreement with tests/reference (PyTorch, float64): $same of $(wc -l < "$work/src") sentences identical (25 tokens each)"
fi
