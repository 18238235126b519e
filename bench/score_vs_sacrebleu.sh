#!/usr/bin/env bash
# heed-score beside the real sacreBLEU 2.x on the same files: corpus BLEU (13a, intl, none;
# cased and lowercased; one and two references) and chrF2, printed side by side with a verdict
# per line ("same" when the two scores agree to two decimals). Not a unit test: it needs the
# sacreBLEU sources, brought beside the clone with the tool library's fetch
# (github:mjpost/sacrebleu), and the peer runner ../shared/peers/sacrebleu.sh.
#
#   SACREBLEU_MIRROR=/work/.mirror/mjpost+sacrebleu/repo bash bench/score_vs_sacrebleu.sh \
#     [BUILD_DIR] REF HYP [HYP ...]
# Without REF/HYP it scores Multi30k's test2016 English against two systems made from
# ../shared/data (the flickr 2017 references do not align, so the systems are the reference
# with words dropped and shuffled: imperfect hypotheses with every n-gram order present).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
shift || true
RUNNER=${RUNNER:-$root/../shared/peers/sacrebleu.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $# -ge 2 ]; then
  ref=$1
  shift
  hyps=("$@")
else
  data=$root/../shared/data/multi30k/raw
  [ -f "$data/test_2016_flickr.en" ] || { echo "score_vs_sacrebleu.sh: give REF HYP (no $data)" >&2; exit 66; }
  ref=$data/test_2016_flickr.en
  awk 'BEGIN { srand(3) } { out = ""; for (i = 1; i <= NF; i++) if (rand() > 0.15) out = out (out ? " " : "") $i; print out }' "$ref" > "$work/sys1"
  awk 'BEGIN { srand(5) } { for (i = NF; i > 1; i--) if (rand() < 0.3) { j = int(rand() * i) + 1; t = $i; $i = $j; $j = t } print }' "$ref" > "$work/sys2"
  hyps=("$work/sys1" "$work/sys2")
fi
# A second reference: the first with its last word dropped (tests multi-reference statistics).
awk '{ $NF = ""; sub(/ +$/, ""); print }' "$ref" > "$work/ref2"

heed_machine_report
echo "# sacrebleu: $("$RUNNER" --version 2>/dev/null | tail -1)"
printf 'hypothesis\tsetting\theed\tsacrebleu\tverdict\n'
for hyp in "${hyps[@]}"; do
  name=$(basename "$hyp")
  for setting in "13a" "13a -lc" "intl" "none" "13a 2refs" "chrf"; do
    refs=("$ref")
    case $setting in
      chrf)
        heed=$("$BUILD/bin/heed-score" -m chrf -r "$ref" --hyp "$hyp" | sed 's/.*= \([0-9.]*\).*/\1/')
        sb=$("$RUNNER" "$ref" -i "$hyp" -m chrf -b -w 2) ;;
      *)
        tok=${setting%% *} lc=() sblc=()
        [[ $setting == *-lc* ]] && lc=(--lowercase) && sblc=(-lc)
        [[ $setting == *2refs* ]] && refs+=("$work/ref2")
        heed_refs=()
        for r in "${refs[@]}"; do heed_refs+=(-r "$r"); done
        heed=$("$BUILD/bin/heed-score" -m bleu --tokenize "$tok" "${lc[@]}" "${heed_refs[@]}" --hyp "$hyp" |
               sed 's/^[^=]*= \([0-9.]*\) .*/\1/')
        sb=$("$RUNNER" "${refs[@]}" -i "$hyp" -m bleu -tok "$tok" "${sblc[@]}" -b -w 2) ;;
    esac
    verdict=same
    [ "$heed" = "$sb" ] || verdict=DIFFERENT
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$setting" "$heed" "$sb" "$verdict"
  done
done
