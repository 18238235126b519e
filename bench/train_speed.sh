#!/usr/bin/env bash
# Training speed, heed beside the PyTorch peer, in one run on this machine.
#
# The model of the issue and of ../shared/peers/s2s_bench.py: 1-layer bi-LSTM encoder 256+256,
# LSTM decoder 512, Luong general attention with input feeding, embeddings 256, vocabularies
# 8,000, batches of 64 pairs of length 20 (19 words + </s> on the target side: 1,280 target
# tokens per batch, as the peer counts), Adam, clipping 5, no dropout. heed's figure is target
# tokens per second of whole updates (batch, forward, backward, clipping, Adam), the median
# over windows of WINDOW updates after one warm-up window; the peer reports the median of its
# timed blocks. Each side's figure is the median over ROUNDS interleaved runs, and the peak
# resident memory (GNU time's maximum RSS, the largest over the rounds) of each process beside it.
#
#   bash bench/train_speed.sh [BUILD_DIR] [WINDOWS] [WINDOW]
# Environment: ROUNDS (5 interleaved rounds: heed f32, heed bf16, PyTorch, again …), THREADS (2), PEER (path of s2s_bench.py), BLAS_DIR (OpenBLAS for PyTorch, made
# by ../shared/peers/setup_blas.sh; /tmp/blas by default), PRECISIONS ("f32 bf16"),
# ATTENTIONS (other mechanisms, e.g. "multi-head linear": heed-only rows "heed/NAME" after the
# rows above, the same model with --attention NAME; empty by default), BASELINE (another build
# directory, e.g. of an earlier commit: its heed-train runs as "heed-baseline" rows, interleaved
# with the others in every round — a before/after comparison in one session), VARIANTS (heed
# with more options, "NAME=OPTIONS" separated by ';', e.g. "ema=--exponential-smoothing 1e-3":
# rows "heed+NAME", interleaved like the others).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
WINDOWS=${2:-3}
WINDOW=${3:-20}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-2}
PEER=${PEER:-$root/../shared/peers/s2s_bench.py}
BLAS_DIR=${BLAS_DIR:-/tmp/blas}
PRECISIONS=${PRECISIONS:-f32 bf16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

heed_machine_report
heed_synthetic_corpus "$work"

# Peak resident memory of a command: run_measured RSS_FILE CMD... (GNU time's %M, KiB).
run_measured() {
  local rss=$1; shift
  /usr/bin/time -f '%M' -o "$rss" "$@"
}

have_peer=0
if [ -f "$PEER" ] && /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  have_peer=1
  blas=()
  [ -d "$BLAS_DIR/openblas-openmp" ] && blas=("LD_LIBRARY_PATH=$BLAS_DIR/openblas-openmp")
else
  echo "# pytorch peer not run ($PEER or /usr/bin/python3 with torch missing)"
fi
# One peer run: its median tokens/s over its timed blocks → $work/tps.pytorch.f32, its peak
# memory → $work/rss.pytorch.f32.
peer_once() {
  local json
  json=$(run_measured "$work/rss" env "${blas[@]}" OMP_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS \
         /usr/bin/python3 "$PEER" --mode train --attn general --threads "$THREADS" 2>"$work/peer.log" | tail -1)
  printf '%s' "$json" | /usr/bin/python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["tok_per_s_median"])' \
    >> "$work/tps.pytorch.f32"
  cat "$work/rss" >> "$work/rss.pytorch.f32"
  [ -s "$work/peer.about" ] ||
    printf '%s' "$json" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("blas"), "torch", d.get("torch", ""), "threads", d.get("threads"))' \
      > "$work/peer.about"
}
# One heed run: heed_once ATTENTION PRECISION SYSTEM; the median tokens/s of its windows after
# the first (warm-up) → $work/tps.SYSTEM.PRECISION, its peak memory → $work/rss.SYSTEM.PRECISION.
heed_once() {
  local attention=$1 precision=$2 system=$3 build=$BUILD extra=()
  [ "$system" = heed-baseline ] && build=$BASELINE
  # shellcheck disable=SC2206
  [[ $system == heed+* ]] && extra=(${variant_options[${system#heed+}]})
  local run=${system//\//_}.$precision
  local steps=$(( (WINDOWS + 1) * WINDOW ))
  rm -rf "$work/run.$run" "$work/m.$run.tsv"
  if ! run_measured "$work/rss" "$build/bin/heed-train" --train-src "$work/src" --train-tgt "$work/tgt" \
      --attention "$attention" "${HEED_BENCH_MODEL[@]}" --max-steps "$steps" --valid-every "$WINDOW" --save-every 1000000 --precision "$precision" \
      --threads "$THREADS" --metrics-file "$work/m.$run.tsv" -o "$work/run.$run" "${extra[@]}" \
      2> "$work/heed.$run.log"; then
    echo "# $system $precision: $(tail -1 "$work/heed.$run.log")"
    return
  fi
  [ -s "$work/onednn.$precision" ] ||
    grep -o 'onednn=.*' "$work/heed.$run.log" | head -1 > "$work/onednn.$precision"
  # One metrics row per window (no validation set, so one row per --valid-every).
  heed_window_tokens "$work/m.$run.tsv" >> "$work/tps.$run"
  cat "$work/rss" >> "$work/rss.$run"
}

# Rounds of (heed f32, heed bf16, PyTorch): the machine's drift hits every side alike.
rows=()
for precision in $PRECISIONS; do
  rows+=("heed general $precision")
  [ -n "${BASELINE:-}" ] && rows+=("heed-baseline general $precision")
done
for attention in ${ATTENTIONS:-}; do
  for precision in $PRECISIONS; do rows+=("heed/$attention $attention $precision"); done
done
declare -A variant_options
IFS=';' read -r -a variants <<< "${VARIANTS:-}"
for variant in "${variants[@]}"; do
  [[ $variant == ?*=?* ]] || { echo "train_speed: VARIANTS: '$variant' is not NAME=OPTIONS" >&2; exit 64; }
  name=${variant%%=*}
  variant_options[$name]=${variant#*=}
  for precision in $PRECISIONS; do rows+=("heed+$name general $precision"); done
done
for round in $(seq "$ROUNDS"); do
  echo "train_speed: round $round of $ROUNDS" >&2
  for row in "${rows[@]}"; do
    read -r system attention precision <<< "$row"
    heed_once "$attention" "$precision" "$system"
  done
  [ $have_peer = 1 ] && peer_once
done

[ -s "$work/peer.about" ] && echo "# pytorch: $(cat "$work/peer.about")"
for precision in $PRECISIONS; do
  [ -s "$work/onednn.$precision" ] && echo "# heed $precision: $(cat "$work/onednn.$precision")"
done
echo "# $ROUNDS interleaved rounds; each figure the median of its rounds (min–max beside it)"
printf 'system\tprecision\ttarget_tokens_per_s\tratio_to_pytorch\tmin\tmax\tpeak_rss_mib\n'
peer_tps=""
# summary SYSTEM PRECISION FILE-STEM: one row.
summary() {
  local values rss tps ratio=""
  mapfile -t values < <(sort -g "$work/tps.$3")
  mapfile -t rss < <(sort -g "$work/rss.$3")
  tps=$(heed_median "${values[@]}")
  if [ "$1" = pytorch ]; then peer_tps=$tps; ratio=1.00
  elif [ -n "$peer_tps" ]; then ratio=$(echo "scale=2; $tps / $peer_tps" | bc -l); fi
  printf '%s\t%s\t%.0f\t%s\t%.0f\t%.0f\t%.0f\n' "$1" "$2" "$tps" "$ratio" "${values[0]}" \
    "${values[-1]}" "$(echo "${rss[-1]} / 1024" | bc -l)"
}
[ -s "$work/tps.pytorch.f32" ] && summary pytorch f32 pytorch.f32
for row in "${rows[@]}"; do
  read -r system attention precision <<< "$row"
  run=${system//\//_}.$precision
  [ -s "$work/tps.$run" ] && summary "$system" "$precision" "$run"
done
