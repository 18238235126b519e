#!/usr/bin/env bash
# Tokenizer benchmark: heed-tokenize against Debian's sentencepiece (spm_train / spm_encode),
# same text, same vocabulary size, medians of REPEATS runs, in one run on one machine.
#
#   bash bench/tokenize_speed.sh [BUILD_DIR] [REPEATS]
#
# Text: Multi30k train (de, en, fr) + Tatoeba en and fr from ../shared/data, repeated to
# >= 50 MB. Needs: apt-get install sentencepiece bc.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
REPEATS=${2:-3}
DATA=$ROOT/../shared/data
T=$BUILD/bin/heed-tokenize
source "$ROOT/bench/machine.sh"
command -v spm_train >/dev/null || { echo "needs sentencepiece (apt-get install sentencepiece)" >&2; exit 2; }
[ -d "$DATA" ] || { echo "needs $DATA" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

{ cat "$DATA"/multi30k/raw/train.{de,en,fr}; gzip -dc "$DATA/tatoeba-eng-fra/fra.txt.gz" | tr '\t' '\n'; } > "$WORK/base.txt"
while [ "$(stat -c %s "$WORK/text.txt" 2>/dev/null || echo 0)" -lt 50000000 ]; do cat "$WORK/base.txt" >> "$WORK/text.txt"; done
MB=$(echo "$(stat -c %s "$WORK/text.txt") / 1000000" | bc -l)
LINES=$(wc -l < "$WORK/text.txt")

heed_machine_report
printf '# text: %.1f MB, %d lines (Multi30k train de/en/fr + Tatoeba en/fr, repeated)\n' "$MB" "$LINES"
echo "# repeats: $REPEATS (median reported)"

# Models: heed learns 8000 merges on heed-tokenized text; spm a vocabulary of 8000 pieces.
"$T" --threads 2 -i "$WORK/text.txt" -o "$WORK/text.tok"
declare -a heed_learn spm_learn heed_tok1 heed_tok2 heed_bpe1 heed_bpe2 spm_enc
for r in $(seq "$REPEATS"); do
  heed_learn+=("$(heed_time "$T" learn-bpe --threads 2 --merges 8000 -i "$WORK/text.tok" -o "$WORK/codes")")
  spm_learn+=("$(heed_time spm_train --input="$WORK/text.txt" --model_prefix="$WORK/spm" --vocab_size=8000 \
                 --model_type=bpe --num_threads=2 --minloglevel=2)")
done
for r in $(seq "$REPEATS"); do
  heed_tok1+=("$(heed_time "$T" --threads 1 -i "$WORK/text.txt")")
  heed_tok2+=("$(heed_time "$T" --threads 2 -i "$WORK/text.txt")")
  heed_bpe1+=("$(heed_time "$T" --threads 1 --bpe "$WORK/codes" -i "$WORK/text.txt")")
  heed_bpe2+=("$(heed_time "$T" --threads 2 --bpe "$WORK/codes" -i "$WORK/text.txt")")
  spm_enc+=("$(heed_time spm_encode --model="$WORK/spm.model" --input="$WORK/text.txt")")
done

row() { # name seconds...
  local name=$1; shift
  local m; m=$(heed_median "$@")
  printf '%s\t%.2f\t%.1f\t%s\n' "$name" "$m" "$(echo "$MB / $m" | bc -l)" "$*"
}
echo -e "task\tmedian_s\tMB_per_s\truns_s"
row "heed learn-bpe 8000 merges (2 threads, tokenized input)" "${heed_learn[@]}"
row "spm_train bpe vocab 8000 (2 threads)" "${spm_learn[@]}"
row "heed tokenize (1 thread)" "${heed_tok1[@]}"
row "heed tokenize (2 threads)" "${heed_tok2[@]}"
row "heed tokenize --bpe (1 thread)" "${heed_bpe1[@]}"
row "heed tokenize --bpe (2 threads)" "${heed_bpe2[@]}"
row "spm_encode (1 thread, its only mode)" "${spm_enc[@]}"
echo "# ratios: learn spm/heed = $(echo "$(heed_median "${spm_learn[@]}") / $(heed_median "${heed_learn[@]}")" | bc -l | cut -c1-5);" \
     "encode heed-bpe-2t/spm = $(echo "$(heed_median "${spm_enc[@]}") / $(heed_median "${heed_bpe2[@]}")" | bc -l | cut -c1-5)"
