#!/usr/bin/env bash
# Installs what is missing, builds heed and runs the main job on the embedded sample
# (share/heed/sample, Tatoeba en-fr, CC-BY 2.0): tokenize and learn BPE, train a small
# English→French model for a few minutes, translate test sentences and show their word
# alignments from the attention, the alignments with the reference translations and their
# heatmaps (five.align, five.html), and score the test set.
# DEMO_MINUTES (default 3) sets the training time.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
heed_install "${HEED_BUILD_PACKAGES[@]}"
heed_build
SAMPLE=$HEED_ROOT/share/heed/sample
WORK=$HEED_BUILD/demo
mkdir -p "$WORK"
cd "$WORK"

heed_log "tokenizing the sample ($(wc -l < "$SAMPLE/train.en") English-French pairs)"
for lang in en fr; do
  "$HEED_BIN/heed-tokenize" -i "$SAMPLE/train.$lang" -o "train.tok.$lang"
done
heed_log "learning 4000 joint BPE merges"
"$HEED_BIN/heed-tokenize" learn-bpe -i train.tok.en -i train.tok.fr --merges 4000 -o bpe.codes
heed_log "applying BPE and counting the vocabulary"
for lang in en fr; do
  "$HEED_BIN/heed-tokenize" --bpe bpe.codes -i "$SAMPLE/train.$lang" -o "train.bpe.$lang"
  "$HEED_BIN/heed-tokenize" vocab -i "train.bpe.$lang" -o "vocab.$lang"
done
heed_log "applying BPE to the validation and test sets"
for split in valid test; do
  for lang in en fr; do
    "$HEED_BIN/heed-tokenize" --bpe bpe.codes -i "$SAMPLE/$split.$lang" -o "$split.bpe.$lang"
  done
done
minutes=${DEMO_MINUTES:-3}
heed_log "training a small model (bi-LSTM 128+128, general attention) for $minutes minutes"
rm -rf model
"$HEED_BIN/heed-train" --train-src train.bpe.en --train-tgt train.bpe.fr \
  --valid-src valid.bpe.en --valid-tgt valid.bpe.fr --bpe bpe.codes --tokenizer-mode conservative \
  --hidden 256 --embed 128 --dropout 0.2 --valid-every 300 --save-every 300 \
  --time-limit $((minutes * 60)) --metrics-file metrics.tsv -o model
heed_log "five test sentences, their translations and hard word alignments (source-target)"
head -5 "$SAMPLE/test.en" > five.en
"$HEED_BIN/heed-translate" -m model/model.heed --alignment hard < five.en > five.fr
paste -d '\n' five.en five.fr /dev/null
heed_log "the word alignments of the same five sentences with their reference translations"
heed_log "(forced decoding, argmax: each target word to its most attended source word); heatmaps"
head -5 "$SAMPLE/test.fr" > five.ref.fr
"$HEED_BIN/heed-align" -m model/model.heed five.en five.ref.fr --method argmax --soft five.jsonl \
  > five.align
paste -d '\n' five.en five.ref.fr five.align /dev/null
"$HEED_BIN/heed-align" plot --soft five.jsonl --links five.align -o five.html
heed_log "heatmaps of the five: $WORK/five.html (open it in a browser)"
heed_log "the test set ($(wc -l < "$SAMPLE/test.en") sentences), beam 5"
"$HEED_BIN/heed-translate" -m model/model.heed < "$SAMPLE/test.en" > test.hyp.fr
"$HEED_BIN/heed-score" -r "$SAMPLE/test.fr" --hyp test.hyp.fr
heed_log "outputs in $WORK (model/model.heed, metrics.tsv)"
