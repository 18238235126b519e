#!/usr/bin/env bash
# Translation speed, heed beside the PyTorch peer, in one run; and greedy agreement of heed with
# our own PyTorch reference model (tests/reference/) on the same weights.
#
# Model: the one of bench/train_speed.sh (bi-LSTM 256+256, LSTM 512, Luong general attention
# with input feeding, embeddings 256, vocabularies 8,000) with near-random weights (one update
# from the uniform ±0.1 initialisation). Input: 1,000 synthetic sentences of 20 tokens.
# Cases: greedy with batches of 64; beam 5 with batch 1 (the interactive case). heed's figure
# is output tokens (</s> included) per second of the heed-translate process; the peer's is its
# own median (greedy: 25 steps per sentence without early stop; beam: 25 steps per sentence).
#
#   bash bench/translate_speed.sh [BUILD_DIR] [REPEATS]
# Environment: THREADS (2), PEER, BLAS_DIR (/tmp/blas), PRECISIONS ("f32 bf16"),
# BEAM_SENTENCES (200: beam 5 batch 1 translates the first N sentences).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
REPEATS=${2:-3}
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

peer() {  # mode → median tokens/s
  local blas=()
  [ -d "$BLAS_DIR/openblas-openmp" ] && blas=(env "LD_LIBRARY_PATH=$BLAS_DIR/openblas-openmp")
  "${blas[@]}" OMP_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS /usr/bin/python3 "$PEER" \
    --mode "$1" --attn general --threads "$THREADS" 2>/dev/null | tail -1 |
    /usr/bin/python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["tok_per_s_median"])'
}

heed_run() {  # precision beam batch input → median tokens/s over REPEATS
  local precision=$1 beam=$2 batch=$3 input=$4 rates=() out=$work/out.$1.$2
  for _ in $(seq "$REPEATS"); do
    local start end tokens
    start=$(date +%s.%N)
    "$BUILD/bin/heed-translate" -m "$model" --pretokenized --beam-size "$beam" --batch-size "$batch" \
      --precision "$precision" --threads "$THREADS" < "$input" > "$out"
    end=$(date +%s.%N)
    tokens=$(awk '{ n += NF + 1 } END { print n }' "$out")
    rates+=("$(echo "$tokens / ($end - $start)" | bc -l)")
  done
  heed_median "${rates[@]}"
}

printf 'case\tsystem\tprecision\toutput_tokens_per_s\tratio_to_pytorch\n'
have_peer=0
[ -f "$PEER" ] && /usr/bin/python3 -c 'import torch' 2>/dev/null && have_peer=1
for case in greedy beam; do
  peer_tps=""
  if [ $have_peer = 1 ]; then
    peer_tps=$(peer "$case")
    printf '%s\tpytorch\tf32\t%s\t1.00\n' "$case" "$peer_tps"
  fi
  for precision in $PRECISIONS; do
    if [ $case = greedy ]; then
      tps=$(heed_run "$precision" 1 64 "$work/src")
    else
      tps=$(heed_run "$precision" 5 1 "$work/src.beam")
    fi
    ratio=""
    [ -n "$peer_tps" ] && ratio=$(echo "scale=2; $tps / $peer_tps" | bc -l)
    printf '%s\theed\t%s\t%.0f\t%s\n' "$case" "$precision" "$tps" "$ratio"
  done
done

# Greedy agreement with the independent PyTorch model on the same weights (float64).
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  "$BUILD/bin/heed-translate" -m "$model" --pretokenized --beam-size 1 --batch-size 64 \
    --threads "$THREADS" < "$work/src" > "$work/heed.greedy"
  /usr/bin/python3 "$root/tests/reference/reference_model.py" greedy "$model" "$work/src" "$work/ref.greedy"
  same=$(paste -d '\t' "$work/heed.greedy" "$work/ref.greedy" | awk -F'\t' '$1 == $2' | wc -l)
  echo "# greedy agreement with tests/reference (PyTorch, float64): $same of $(wc -l < "$work/src") sentences identical"
fi
