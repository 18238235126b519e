#!/usr/bin/env bash
# Multi30k German→English with heed, scored as the PyTorch peer (../shared/peers/
# multi30k_quality.py) is: lowercased text, one joint BPE of 8,000 merges, greedy test2016
# BLEU of the detokenized output against the raw lowercased reference (13a, as sacreBLEU -lc).
#
# Training runs in stages of STAGE_MIN minutes (resumed exactly from the checkpoint between
# stages, so it is one run), and after each stage the best model so far translates test2016
# (greedy, at the training precision): the printed table is BLEU against training minutes.
#
#   bash share/heed/recipes/multi30k.sh            # 30 minutes, f32
#   MINUTES=15 PRECISION=bf16 bash share/heed/recipes/multi30k.sh
#
# Environment: BIN (heed binaries, default build/bin), DATA (multi30k/raw), WORK (scratch),
# MINUTES (30), STAGE_MIN (5), PRECISION (f32|bf16), THREADS (2), EXTRA (more heed-train
# options, e.g. "--attention dot"; the attention is heed-train's default, general, otherwise) and
# RUN (the run's name under WORK, default PRECISION: runs with different EXTRA share WORK's
# tokenized data when their RUNs differ).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
BIN=${BIN:-$root/build/bin}
DATA=${DATA:-$root/../shared/data/multi30k/raw}
WORK=${WORK:-/tmp/heed-multi30k}
MINUTES=${MINUTES:-30}
STAGE_MIN=${STAGE_MIN:-5}
PRECISION=${PRECISION:-f32}
THREADS=${THREADS:-2}
EXTRA=${EXTRA:-}
source "$here/multi30k_data.sh"

# 1. Tokenize (lowercased), learn one joint BPE on German and English, apply it.
multi30k_prepare "$BIN" "$DATA" "$WORK" "$THREADS"

# 2. Train in stages; after each, translate test2016 greedily with the best model so far.
RUN=${RUN:-$PRECISION}
run=$WORK/run-$RUN
metrics=$WORK/metrics-$RUN.tsv
rm -rf "$run" "$metrics"
# shellcheck disable=SC2086
train=("$BIN/heed-train" --train-src "$WORK/train.bpe.de" --train-tgt "$WORK/train.bpe.en"
       --valid-src "$WORK/val.bpe.de" --valid-tgt "$WORK/val.bpe.en"
       --bpe "$WORK/codes" --tokenizer-mode aggressive --tokenizer-lowercase
       --hidden 512 --embed 256 --dropout 0.3 --label-smoothing 0.1
       --lr 0.001 --lr-schedule plateau --lr-decay 0.5 --clip 5 --batch-size 64
       --vocab-size 10000 --valid-every 450 --save-every 450 --precision "$PRECISION"
       --threads "$THREADS" --metrics-file "$metrics" -o "$run" $EXTRA)
printf 'minutes\tval_bleu\ttest2016_bleu\n'
minutes=0
while [ "$minutes" -lt "$MINUTES" ]; do
  minutes=$((minutes + STAGE_MIN))
  resume=()
  [ -f "$run/checkpoint.heed" ] && resume=(--resume)
  "${train[@]}" "${resume[@]}" --time-limit $((minutes * 60)) -q
  "$BIN/heed-translate" -m "$run/model.heed" --beam-size 1 --precision "$PRECISION" --threads "$THREADS" \
    -i "$DATA/test_2016_flickr.de" -o "$WORK/test.hyp.$minutes.$RUN"
  test_bleu=$("$BIN/heed-score" --lowercase -m bleu -r "$WORK/test.ref.lc.en" \
              --hyp "$WORK/test.hyp.$minutes.$RUN" | sed 's/^[^=]*= \([0-9.]*\) .*/\1/')
  val_bleu=$(awk -F'\t' 'NR > 1 && $8 != "" { b = $8 } END { print b }' "$metrics")
  printf '%s\t%s\t%s\n' "$minutes" "$val_bleu" "$test_bleu"
done
