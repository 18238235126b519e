#!/usr/bin/env bash
# Training speed, heed beside the PyTorch peer, in one run on this machine.
#
# The model of the issue and of ../shared/peers/s2s_bench.py: 1-layer bi-LSTM encoder 256+256,
# LSTM decoder 512, Luong general attention with input feeding, embeddings 256, vocabularies
# 8,000, batches of 64 pairs of length 20 (19 words + </s> on the target side: 1,280 target
# tokens per batch, as the peer counts), Adam, clipping 5, no dropout. heed's figure is target
# tokens per second of whole updates (batch, forward, backward, clipping, Adam), the median
# over windows of WINDOW updates after one warm-up window; the peer reports the median of its
# timed blocks.
#
#   bash bench/train_speed.sh [BUILD_DIR] [WINDOWS] [WINDOW]
# Environment: THREADS (2), PEER (path of s2s_bench.py), BLAS_DIR (OpenBLAS for PyTorch, made
# by ../shared/peers/setup_blas.sh; /tmp/blas by default), PRECISIONS ("f32 bf16"),
# ATTENTIONS (other mechanisms, e.g. "multi-head linear": heed-only rows "heed/NAME" after the
# rows above, the same model with --attention NAME; empty by default).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
WINDOWS=${2:-3}
WINDOW=${3:-20}
THREADS=${THREADS:-2}
PEER=${PEER:-$root/../shared/peers/s2s_bench.py}
BLAS_DIR=${BLAS_DIR:-/tmp/blas}
PRECISIONS=${PRECISIONS:-f32 bf16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

heed_machine_report
# Synthetic corpus: 64 × 100 pairs of random words from 7,996 (+ 4 specials = 8,000 ids).
awk -v seed=7 'BEGIN {
  srand(seed)
  for (i = 0; i < 6400; i++) {
    s = ""; t = ""
    for (j = 0; j < 20; j++) s = s (j ? " " : "") "w" int(rand() * 7996)
    for (j = 0; j < 19; j++) t = t (j ? " " : "") "w" int(rand() * 7996)
    print s > "'"$work"'/src"; print t > "'"$work"'/tgt"
  }
}'

printf 'system\tprecision\ttarget_tokens_per_s\tratio_to_pytorch\n'
peer_tps=""
if [ -f "$PEER" ] && /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  blas=()
  [ -d "$BLAS_DIR/openblas-openmp" ] && blas=(env "LD_LIBRARY_PATH=$BLAS_DIR/openblas-openmp")
  peer_json=$("${blas[@]}" OMP_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS \
              /usr/bin/python3 "$PEER" --mode train --attn general --threads "$THREADS" 2>"$work/peer.log" | tail -1)
  peer_tps=$(printf '%s' "$peer_json" | /usr/bin/python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["tok_per_s_median"])')
  echo "# pytorch: $(printf '%s' "$peer_json" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("blas"), "torch", d.get("torch", ""), "threads", d.get("threads"))')"
  printf 'pytorch\tf32\t%s\t1.00\n' "$peer_tps"
else
  echo "# pytorch peer not run ($PEER or /usr/bin/python3 with torch missing)"
fi

# One heed row: heed_row ATTENTION PRECISION SYSTEM.
heed_row() {
  local attention=$1 precision=$2 system=$3
  local run=$attention.$precision
  steps=$(( (WINDOWS + 1) * WINDOW ))
  if ! "$BUILD/bin/heed-train" --train-src "$work/src" --train-tgt "$work/tgt" \
      --attention "$attention" --decoder luong --input-feeding true --cell lstm --hidden 512 --embed 256 \
      --vocab-size 8000 --dropout 0 --label-smoothing 0 --batch-size 64 --clip 5 --lr-schedule constant \
      --max-steps "$steps" --valid-every "$WINDOW" --save-every 1000000 --precision "$precision" \
      --threads "$THREADS" --metrics-file "$work/m.$run.tsv" -o "$work/run.$run" \
      2> "$work/heed.$run.log"; then
    echo "# $system $precision: $(tail -1 "$work/heed.$run.log")"
    return
  fi
  grep -o 'onednn=.*' "$work/heed.$run.log" | head -1 | sed 's/^/# heed: /'
  # Window rows after the first (warm-up): column 6 is tokens/s.
  tps=$(heed_median $(awk -F'\t' 'NR > 2 { print $6 }' "$work/m.$run.tsv"))
  ratio=""
  [ -n "$peer_tps" ] && ratio=$(echo "scale=2; $tps / $peer_tps" | bc -l)
  printf '%s\t%s\t%.0f\t%s\n' "$system" "$precision" "$tps" "$ratio"
}
for precision in $PRECISIONS; do
  heed_row general "$precision" heed
done
for attention in ${ATTENTIONS:-}; do
  for precision in $PRECISIONS; do
    heed_row "$attention" "$precision" "heed/$attention"
  done
done
