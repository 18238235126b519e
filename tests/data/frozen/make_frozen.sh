#!/usr/bin/env bash
# Regenerates a frozen model and its expected outputs (docs/testing.md, "Frozen models"):
#   tests/data/frozen/make_frozen.sh BIN_DIR VERSION
# e.g. `tests/data/frozen/make_frozen.sh build/bin v1` writes tests/data/frozen/v1/. Run it by
# hand, once, when a new model-format version is introduced; tests never run it (the whole point
# is that the files stay as an older heed wrote them). Training is seeded and single-threaded,
# but the outputs are what this machine computes: commit them together with the model.
set -euo pipefail
BIN=${1:?usage: make_frozen.sh BIN_DIR VERSION}
VERSION=${2:?usage: make_frozen.sh BIN_DIR VERSION}
HERE=$(cd "$(dirname "$0")" && pwd)
SAMPLE=$HERE/../../../share/heed/sample
OUT=$HERE/$VERSION
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"

# A tiny model (well under 200 KB) trained briefly on the sample corpus, English to French:
# small enough to commit, trained enough that its outputs are sentences, not noise.
"$BIN/heed-tokenize" learn-bpe --merges 150 -i "$SAMPLE/train.en" -i "$SAMPLE/train.fr" -o "$WORK/codes"
for lang in en fr; do
  "$BIN/heed-tokenize" --bpe "$WORK/codes" -i "$SAMPLE/train.$lang" -o "$WORK/train.$lang"
done
"$BIN/heed-train" --train-src "$WORK/train.en" --train-tgt "$WORK/train.fr" --bpe "$WORK/codes" \
  --tokenizer-mode conservative --vocab-size 300 --embed 16 --hidden 24 --dropout 0 \
  --batch-size 32 --lr 0.003 --max-epochs 25 --threads 1 --seed 1 -q -o "$WORK/train"
cp "$WORK/train/model.heed" "$OUT/model.heed"
# The same model claiming the next format version: must be refused by name, not misread.
next=$((${VERSION#v} + 1))
perl -0777 -pe "s/\"format_version\":\"${VERSION#v}\"/\"format_version\":\"$next\"/" \
  "$OUT/model.heed" > "$OUT/future.heed"
cmp -s "$OUT/model.heed" "$OUT/future.heed" && { echo "format_version not found" >&2; exit 1; }

head -6 "$SAMPLE/test.en" > "$OUT/input.en"
X=("$BIN/heed-translate" -m "$OUT/model.heed" -i "$OUT/input.en" --threads 1)
"${X[@]}" -b 1 > "$OUT/greedy.txt"
"${X[@]}" -b 5 --n-best 5 > "$OUT/nbest.txt"
"${X[@]}" -b 5 --alignment hard > "$OUT/hard.txt"
"${X[@]}" -b 5 --alignment soft > "$OUT/soft.txt"
ls -l "$OUT"
