#!/usr/bin/env bash
# heed-score beside real sacreBLEU 2 (../shared/peers/sacrebleu.sh beside the clone): the same
# lines of text and the same JSON, version fields aside, for BLEU and chrF (several metrics after
# -m), chrF++ (--chrf-word-order 2), --confidence (sacreBLEU's draws, so its interval to the
# digit), lowercase, other tokenizers and two references. Skipped, visibly, where that script
# cannot run sacreBLEU.
source "$(dirname "$0")/lib.sh"
PEER=$(dirname "$0")/../../../shared/peers/sacrebleu.sh
S=$BIN/heed-score

# A test set with what tells implementations apart: punctuation at word ends and starts (chrF++'s
# words), references shorter than six characters (orders a reference lacks), an empty line,
# accents and case.
head -300 "$DATA/../../share/heed/sample/test.fr" >"$TMP/ref"
printf '.\nOk\n\n(Oui) « non »\n' >>"$TMP/ref"
awk '{ out = ""; for (i = 1; i <= NF; ++i) if (i % 5 != 3) out = out (out ? " " : "") $i;
       if (NR % 7 == 0) out = toupper(out); print out }' "$TMP/ref" >"$TMP/hyp"
head -300 "$DATA/../../share/heed/sample/test.en" >"$TMP/ref2"
printf 'x\nOk!\n\n(yes) no\n' >>"$TMP/ref2"

if ! bash "$PEER" "$TMP/ref" -i "$TMP/hyp" -m bleu >"$TMP/probe" 2>"$TMP/probe.err"; then
  echo "SKIPPED: real sacreBLEU cannot run here ($PEER: $(tail -1 "$TMP/probe.err"))"
  exit 77
fi

# same NAME HEED-ARGS -- SACREBLEU-ARGS: both outputs, version fields and the alignment spaces
# of sacreBLEU's text aside, are equal.
same() {
  local name=$1 heed=() peer=()
  shift
  while [ "$1" != -- ]; do heed+=("$1"); shift; done
  shift
  peer=("$@")
  expect_exit 0 "$name (heed)" -- "$S" "${heed[@]}"
  normalise <"$TMP/out" >"$TMP/heed.$name"
  bash "$PEER" "${peer[@]}" 2>"$TMP/err" | normalise >"$TMP/peer.$name"
  [ -s "$TMP/peer.$name" ] && ok || fail "$name: sacreBLEU wrote nothing: $(tail -2 "$TMP/err")"
  expect_same "$name" "$TMP/peer.$name" "$TMP/heed.$name"
}
normalise() { sed -E 's/version:[^ |"]+/version:V/; s/"version": "[^"]*"/"version": "V"/; s/^ +//; s/ += / = /'; }

R=("$TMP/ref")
same bleu-chrf -r "${R[@]}" -m bleu chrf --hyp "$TMP/hyp" -- "${R[@]}" -i "$TMP/hyp" -m bleu chrf -w 2 -f text
same chrf-plus-plus -r "${R[@]}" -m chrf --chrf-word-order 2 --hyp "$TMP/hyp" -- \
  "${R[@]}" -i "$TMP/hyp" -m chrf --chrf-word-order 2 -w 2 -f text
same confidence -r "${R[@]}" -m bleu chrf --confidence --hyp "$TMP/hyp" -- \
  "${R[@]}" -i "$TMP/hyp" -m bleu chrf --confidence -w 2 -f text
same json -r "${R[@]}" -m bleu chrf --format json --hyp "$TMP/hyp" -- \
  "${R[@]}" -i "$TMP/hyp" -m bleu chrf -w 2
same json-one-metric -r "${R[@]}" -m bleu --format json -w 3 --hyp "$TMP/hyp" -- \
  "${R[@]}" -i "$TMP/hyp" -m bleu -w 3
same json-confidence -r "${R[@]}" -m chrf --chrf-word-order 2 --confidence --bootstrap 300 \
  --format json --hyp "$TMP/hyp" -- \
  "${R[@]}" -i "$TMP/hyp" -m chrf --chrf-word-order 2 --confidence --confidence-n 300 -w 2
# sacreBLEU's -lc lowercases for BLEU alone, --chrf-lowercase for chrF: heed's --lowercase for both.
same lowercase-intl -r "${R[@]}" -m bleu --lowercase --tokenize intl --hyp "$TMP/hyp" -- \
  "${R[@]}" -i "$TMP/hyp" -m bleu -lc -tok intl -w 2 -f text
same chrf-lowercase -r "${R[@]}" -m chrf --lowercase --hyp "$TMP/hyp" -- \
  "${R[@]}" -i "$TMP/hyp" -m chrf --chrf-lowercase -w 2 -f text
same two-references -r "$TMP/ref" -r "$TMP/ref2" -m bleu chrf --chrf-word-order 2 \
  --hyp "$TMP/hyp" -- "$TMP/ref" "$TMP/ref2" -i "$TMP/hyp" -m bleu chrf --chrf-word-order 2 \
  -w 2 -f text
# sacreBLEU's own spellings, read by heed-score as its options, and the hypothesis on stdin.
expect_exit 0 spelled-as-sacrebleu -- sh -c "'$S' -r '$TMP/ref' -m bleu chrf -cw 2 -w 2 -f text < '$TMP/hyp'"
normalise <"$TMP/out" >"$TMP/heed.spelled"
bash "$PEER" "$TMP/ref" -m bleu chrf -cw 2 -w 2 -f text <"$TMP/hyp" 2>/dev/null | normalise >"$TMP/peer.spelled"
expect_same spelled-as-sacrebleu "$TMP/peer.spelled" "$TMP/heed.spelled"

finish
