#!/usr/bin/env bash
# heed's main job on the embedded sample (share/heed/sample, Tatoeba en-fr, CC-BY 2.0): tokenize
# and learn BPE, train a small English→French model for a few minutes, translate test sentences
# and show their word alignments from the attention, the alignments with the reference
# translations and their heatmaps (five.align, five.html), and score the test set.
#
# Runs from an installation (PREFIX/share/heed/demo.sh finds PREFIX/bin and the sample beside it)
# or from the source tree (share/heed/scripts/demo.sh builds heed and runs it with BIN=build/bin).
#
#   bash /usr/local/share/heed/demo.sh [WORK]    # WORK: where the outputs go (default ./heed-demo)
#
# Environment: BIN (the heed binaries; default PREFIX/bin), DEMO_MINUTES (training time, 3) and
# DEMO_STEP=tokenize (stop after the first step: what the install test runs).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=${BIN:-$(cd "$here/../.." && pwd)/bin}
SAMPLE=$here/sample
WORK=${1:-heed-demo}
log() {
  if [ -t 2 ]; then printf '\033[1m==> %s\033[0m\n' "$*" >&2; else printf '==> %s\n' "$*" >&2; fi
}
[ -x "$BIN/heed-train" ] || { echo "demo.sh: no heed binaries in $BIN (set BIN)" >&2; exit 69; }
mkdir -p "$WORK"
cd "$WORK"

log "tokenizing the sample ($(wc -l < "$SAMPLE/train.en") English-French pairs)"
for lang in en fr; do
  "$BIN/heed-tokenize" -i "$SAMPLE/train.$lang" -o "train.tok.$lang"
done
[ "${DEMO_STEP:-}" = tokenize ] && { log "tokenized: $PWD/train.tok.en, train.tok.fr"; exit 0; }
log "learning 4000 joint BPE merges"
"$BIN/heed-tokenize" learn-bpe -i train.tok.en -i train.tok.fr --merges 4000 -o bpe.codes
log "applying BPE and counting the vocabulary"
for lang in en fr; do
  "$BIN/heed-tokenize" --bpe bpe.codes -i "$SAMPLE/train.$lang" -o "train.bpe.$lang"
  "$BIN/heed-tokenize" vocab -i "train.bpe.$lang" -o "vocab.$lang"
done
log "applying BPE to the validation and test sets"
for split in valid test; do
  for lang in en fr; do
    "$BIN/heed-tokenize" --bpe bpe.codes -i "$SAMPLE/$split.$lang" -o "$split.bpe.$lang"
  done
done
minutes=${DEMO_MINUTES:-3}
log "training a small model (bi-LSTM 128+128, general attention) for $minutes minutes"
rm -rf model
"$BIN/heed-train" --train-src train.bpe.en --train-tgt train.bpe.fr \
  --valid-src valid.bpe.en --valid-tgt valid.bpe.fr --bpe bpe.codes --tokenizer-mode conservative \
  --hidden 256 --embed 128 --dropout 0.2 --valid-every 300 --save-every 300 \
  --time-limit $((minutes * 60)) --metrics-file metrics.tsv -o model
log "five test sentences, their translations and hard word alignments (source-target)"
head -5 "$SAMPLE/test.en" > five.en
"$BIN/heed-translate" -m model/model.heed --alignment hard < five.en > five.fr
paste -d '\n' five.en five.fr /dev/null
log "the word alignments of the same five sentences with their reference translations"
log "(forced decoding, argmax: each target word to its most attended source word); heatmaps"
head -5 "$SAMPLE/test.fr" > five.ref.fr
"$BIN/heed-align" -m model/model.heed five.en five.ref.fr --method argmax --soft five.jsonl \
  > five.align
paste -d '\n' five.en five.ref.fr five.align /dev/null
"$BIN/heed-align" plot --soft five.jsonl --links five.align -o five.html
log "heatmaps of the five: $PWD/five.html (open it in a browser)"
log "the test set ($(wc -l < "$SAMPLE/test.en") sentences), beam 5"
"$BIN/heed-translate" -m model/model.heed < "$SAMPLE/test.en" > test.hyp.fr
"$BIN/heed-score" -r "$SAMPLE/test.fr" --hyp test.hyp.fr
log "outputs in $PWD (model/model.heed, metrics.tsv)"
