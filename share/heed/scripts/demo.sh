#!/usr/bin/env bash
# Installs what is missing, builds heed and runs the main job on the embedded sample
# (share/heed/sample, Tatoeba en-fr, CC-BY 2.0): tokenize, learn BPE, apply it, detokenize.
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
heed_log "three sentences: raw, tokenized with BPE, detokenized again"
head -3 "$SAMPLE/test.fr" > sample.fr
"$HEED_BIN/heed-tokenize" --bpe bpe.codes < sample.fr > sample.bpe.fr
"$HEED_BIN/heed-tokenize" detokenize < sample.bpe.fr > sample.detok.fr
paste -d '\n' sample.fr sample.bpe.fr sample.detok.fr /dev/null
if cmp -s sample.fr sample.detok.fr; then
  heed_log "round trip exact; outputs in $WORK"
else
  heed_log "round trip differs (normalization); outputs in $WORK"
fi
printf 'vocabulary sizes: en %s, fr %s tokens\n' "$(wc -l < vocab.en)" "$(wc -l < vocab.fr)"
