#!/usr/bin/env bash
# Peak resident memory of heed-translate against the number of input lines (issue 29): a stream of
# varied lines (1 to 120 words drawn from the embedded sample's English, every 50th line 120 words,
# the input of tests/cli/translate_soak.sh) through a small English→French model (hidden 32,
# trained here for 60 updates on 2,000 sample pairs), beam 5 and greedy. A bounded process shows
# the same peak at every size after the first; the peak of GNU time's %M is printed per run with
# the estimate heed-translate logs (-v).
#
#   bash bench/translate_memory.sh [BIN_DIR] [SIZES]
# SIZES: line counts (default "1000 10000 100000 1000000"). Environment: BEAMS ("5 1"), THREADS
# (1). Memory, not time: the load of the machine does not change the figures.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=${1:-$root/build/bin}
SIZES=${2:-1000 10000 100000 1000000}
BEAMS=${BEAMS:-5 1}
THREADS=${THREADS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sample=$root/share/heed/sample
head -2000 "$sample/train.en" > "$work/raw.en"
head -2000 "$sample/train.fr" > "$work/raw.fr"
"$BIN/heed-tokenize" learn-bpe --merges 300 -i "$work/raw.en" -i "$work/raw.fr" -o "$work/codes" 2>/dev/null
for l in en fr; do "$BIN/heed-tokenize" --bpe "$work/codes" -i "$work/raw.$l" -o "$work/bpe.$l"; done
"$BIN/heed-train" --train-src "$work/bpe.en" --train-tgt "$work/bpe.fr" --bpe "$work/codes" \
  --tokenizer-mode conservative --hidden 32 --embed 16 --max-steps 60 --threads 1 -q -o "$work/m"
largest=0
for n in $SIZES; do [ "$n" -gt "$largest" ] && largest=$n; done
awk -v lines="$largest" 'BEGIN { srand(11) } { for (i = 1; i <= NF; i++) w[n++] = $i }
     END { for (l = 0; l < lines; l++) { k = l % 50 ? 1 + int(rand() * 120) : 120; s = w[int(rand() * n)]
             for (j = 1; j < k; j++) s = s " " w[int(rand() * n)]; print s } }' "$work/raw.en" > "$work/varied"
printf 'beam\tlines\tpeak_rss_mib\tseconds\testimate_mib\n'
for beam in $BEAMS; do
  for n in $SIZES; do
    head -"$n" "$work/varied" > "$work/in"
    /usr/bin/time -f '%M %e' -o "$work/time" "$BIN/heed-translate" -m "$work/m/model.heed" \
      --beam-size "$beam" --threads "$THREADS" -v -i "$work/in" -o /dev/null 2> "$work/err" ||
      { echo "translate_memory: beam $beam, $n lines: $(tail -1 "$work/err")" >&2; continue; }
    read -r kib seconds < "$work/time"
    estimate=$(sed -n 's/.*memory: at most \([0-9]*\) MiB.*/\1/p' "$work/err")
    printf '%s\t%s\t%s\t%s\t%s\n' "$beam" "$n" $((kib / 1024)) "$seconds" "${estimate:--}"
  done
done
