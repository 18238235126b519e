#!/usr/bin/env bash
# The lexical shortlist (heed-translate --shortlist) on Multi30k test2016, German→English:
# speed and BLEU with and without it, greedy with batches of 64 and beam 5 with batches of 1.
#
# The table is learnt by heed-align ibm2 (fast_align's recommended settings) on the BPE'd
# training corpus the model was trained on, so that its words are the model's units. BLEU is
# scored as the Multi30k recipe scores it (heed-score --lowercase against the
# lowercased reference). Speed: sentences per second of the translation loop (model loading
# excluded: 1,000 / the seconds heed-translate -v reports), the median of REPEATS runs per side,
# the runs interleaved (without, with, without, with …) so that drift hits both; speedup is the
# ratio of the medians, paired_speedup the median of each repeat's with/without ratio (steadier
# when the machine's load drifts). Run it at normal priority on an otherwise idle machine.
#
#   bash bench/shortlist.sh [BUILD_DIR] [REPEATS]
# Environment: WORK (/tmp/heed-multi30k: train.bpe.{de,en}, test.ref.lc.en, as the recipe
# leaves them), MODEL (the attention family's general model,
# $WORK/runs/family-general-bf16-u3400/s1/model.heed), DATA (multi30k/raw),
# PRECISION (bf16), THREADS (2), FREQUENT (100), BEST (50).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
REPEATS=${2:-3}
WORK=${WORK:-/tmp/heed-multi30k}
MODEL=${MODEL:-$WORK/runs/family-general-bf16-u3400/s1/model.heed}
DATA=${DATA:-$root/../shared/data/multi30k/raw}
PRECISION=${PRECISION:-bf16}
THREADS=${THREADS:-2}
FREQUENT=${FREQUENT:-100}
BEST=${BEST:-50}
for f in "$WORK/train.bpe.de" "$WORK/train.bpe.en" "$WORK/test.ref.lc.en" "$MODEL" \
  "$DATA/test_2016_flickr.de"; do
  [ -f "$f" ] || { echo "shortlist.sh: $f not found (run experiments/attention-family/)" >&2; exit 66; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

heed_machine_report
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# model: $MODEL ($PRECISION, $THREADS threads); shortlist: --shortlist-frequent $FREQUENT --shortlist-best $BEST"
"$BUILD/bin/heed-align" ibm2 -d --optimize-tension --variational-bayes --threads "$THREADS" \
  "$WORK/train.bpe.de" "$WORK/train.bpe.en" -o /dev/null --lexical-table "$out/lex.tsv"
echo "# lexical table: $(wc -l < "$out/lex.tsv") entries (heed-align ibm2 -d --optimize-tension --variational-bayes train.bpe.de train.bpe.en --lexical-table)"

# translate NAME SIDE OPTIONS...: one run; prints the seconds of its translation loop.
translate() {
  local name=$1 side=$2; shift 2
  local shortlist=()
  [ "$side" = with ] && shortlist=(--shortlist "$out/lex.tsv" --shortlist-frequent "$FREQUENT"
                                   --shortlist-best "$BEST")
  "$BUILD/bin/heed-translate" -m "$MODEL" --precision "$PRECISION" --threads "$THREADS" -v "$@" \
    "${shortlist[@]}" -i "$DATA/test_2016_flickr.de" -o "$out/$name.$side" 2> "$out/log"
  grep -q 'shortlist:' "$out/log" && grep -o 'shortlist: [0-9]* of [0-9]*' "$out/log" > "$out/$name.size"
  sed -n 's/.* target tokens in \([0-9.]*\) s: .*/\1/p' "$out/log"
}

printf 'case\tshortlist\tbleu\tsentences_per_s\truns\tspeedup\tpaired_speedup\twords_scored\n'
for case in "greedy-b64:--beam-size 1 --batch-size 64" "beam5-b1:--beam-size 5 --batch-size 1"; do
  name=${case%%:*}
  read -r -a options <<< "${case#*:}"
  declare -A rates=() seconds=()
  ratios=()
  for ((r = 0; r < REPEATS; r++)); do
    for side in without with; do
      seconds[$side]=$(translate "$name" "$side" "${options[@]}")
      rates[$side]+="$(echo "1000 / ${seconds[$side]}" | bc -l | xargs printf '%.1f') "
    done
    ratios+=("$(echo "${seconds[without]} / ${seconds[with]}" | bc -l)")
  done
  paired=$(heed_median "${ratios[@]}")
  median_without=$(heed_median ${rates[without]})
  for side in without with; do
    bleu=$("$BUILD/bin/heed-score" --lowercase -m bleu -r "$WORK/test.ref.lc.en" \
           --hyp "$out/$name.$side" | sed 's/^[^=]*= \([0-9.]*\) .*/\1/')
    median=$(heed_median ${rates[$side]})
    size=all
    [ "$side" = with ] && size=$(sed 's/shortlist: //' "$out/$name.size")
    ratio=1
    [ "$side" = with ] && ratio=$paired
    printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\n' "$name" "$side" "$bleu" "$median" \
      "${rates[$side]% }" "$(echo "$median / $median_without" | bc -l)" "$ratio" "$size"
  done
  unset rates seconds
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
