#!/usr/bin/env bash
# Contract tests of heed-align score: the hand-computed case of tests/unit/align/aer_test.cpp in
# both gold formats, one-based and zero-based talp, transposed gold, the output layout, and
# every error path with its exit code. With ../shared/data beside the clone: the Hansards gold's
# own sure links score 0 AER in both of its formats.
source "$(dirname "$0")/lib.sh"
H=$BIN/heed-align
HEADER=$'aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences'
# Gold: sentence 1 S {0-0 1-1}, P {1-2}; sentence 2 none; sentence 3 S {0-1}, P {1-0}.
printf '1 1 1 S\n1 2 2 S\n1 2 3 P\n3 1 2 S\n3 2 1 P 0.4\n' > "$TMP/gold.wa"
printf '1-1 2-2 2p3\n\n1-2 2p1\n' > "$TMP/gold.talp"
printf '0-0 1-1 1p2\n\n0-1 1p0\n' > "$TMP/gold0.talp"
printf '0-0 1-2 2-2\n0-0 1-1\n0-1 1-0\n' > "$TMP/test"
# |A| = 7, |S| = 3, |P| = 5, |A∩S| = 2, |A∩P| = 4: AER = 1 - 6/10, P = 4/7, R = 2/3.
ROW=$'40.00\t57.14\t66.67\t7\t3\t5\t3'

expect_exit 0 help -- "$H" score --help
grep -q -- '--gold-format' "$TMP/out" && ! grep -q -- '--method' "$TMP/out" && ok ||
  fail "help: score --help should list its own options only"
expect_exit 0 naacl -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test"
expect_eq naacl "$(cat "$TMP/out")" "$HEADER"$'\n'"$ROW"
expect_eq naacl-quiet "$(wc -c < "$TMP/err")" 0
expect_exit 0 naacl-explicit -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" --gold-format naacl
expect_eq naacl-explicit "$(tail -1 "$TMP/out")" "$ROW"
expect_exit 0 talp-one-based -- "$H" score --gold "$TMP/gold.talp" --test "$TMP/test" --one-based
expect_eq talp-one-based "$(tail -1 "$TMP/out")" "$ROW"
expect_exit 0 talp-zero-based -- "$H" score --gold "$TMP/gold0.talp" --test "$TMP/test" --gold-format talp
expect_eq talp-zero-based "$(tail -1 "$TMP/out")" "$ROW"
# A 1-based file read as zero-based is off by one: a different score, no error.
expect_exit 0 talp-wrong-base -- "$H" score --gold "$TMP/gold.talp" --test "$TMP/test"
[ "$(tail -1 "$TMP/out")" != "$ROW" ] && ok || fail "talp-wrong-base: same score"
# Test links of the other direction (target-source) against the transposed gold.
awk '{ s = ""; for (k = 1; k <= NF; k++) { split($k, p, "-"); s = s (k > 1 ? " " : "") p[2] "-" p[1] } print s }' \
  "$TMP/test" > "$TMP/test.ts"
expect_exit 0 transpose-gold -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test.ts" --transpose-gold
expect_eq transpose-gold "$(tail -1 "$TMP/out")" "$ROW"
# Standard input as the test file; -o FILE.
expect_exit 0 stdin -- sh -c "'$H' score --gold '$TMP/gold.wa' --test - < '$TMP/test'"
expect_eq stdin "$(tail -1 "$TMP/out")" "$ROW"
expect_exit 0 output -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" -o "$TMP/score.tsv"
expect_eq output "$(cat "$TMP/score.tsv")" "$HEADER"$'\n'"$ROW"
expect_eq output-stdout-empty "$(wc -c < "$TMP/out")" 0
# NAACL gold omits sentences without links: a 4th test line is a 4th sentence (its 1 link is
# predicted, none is gold), and --sentences states the count.
{ cat "$TMP/test"; echo "0-0"; } > "$TMP/test4"
expect_exit 0 naacl-trailing -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test4" --sentences 4
expect_eq naacl-trailing "$(tail -1 "$TMP/out")" $'45.45\t50.00\t66.67\t8\t3\t5\t4'
# Perfect alignments, and none at all.
printf '0-0 1-1\n\n0-1\n' > "$TMP/sure"
expect_exit 0 perfect -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/sure"
expect_eq perfect "$(tail -1 "$TMP/out")" $'0.00\t100.00\t100.00\t3\t3\t5\t3'
printf '\n\n\n' > "$TMP/none"
expect_exit 0 no-links -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/none"
expect_eq no-links "$(tail -1 "$TMP/out")" $'100.00\t0.00\t0.00\t0\t3\t5\t3'

# --system: aligners compared by AER over their runs and the sentences. Hand-worked: a = test
# (40.00), b = the sure links (0.00: -40.00 against a), c = both as two runs (mean 20.00, sd
# sqrt(2 * 20^2) = 28.28), d = test again (a difference of exactly 0 in every resample: p = 1,
# equivalent, TOST p below the floor 1/(200+1), "< 0.015" after Holm over the 3 comparisons).
# The baseline has one run, so no comparison has Welch's test over the runs ("-").
expect_exit 0 compare -- "$H" score --gold "$TMP/gold.wa" --system a="$TMP/test" --system b="$TMP/sure" \
  --system c="$TMP/test,$TMP/sure" --system d="$TMP/test" --bootstrap 200
expect_eq compare-header "$(head -1 "$TMP/out")" \
  "$(printf 'system\tmetric\truns\tmean\tsd\tdifference\tci95_low\tci95_high\tp_value\tp_holm\tci90_low\tci90_high\ttost_p\tequivalent\trun_scores\twelch_low\twelch_high\twelch_p\twelch_p_holm\ttost_p_holm')"
expect_eq compare-baseline "$(sed -n 2p "$TMP/out")" "$(printf 'a\tAER\t1\t40.00\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t40.00\t-\t-\t-\t-\t-')"
expect_eq compare-difference "$(sed -n 3p "$TMP/out" | cut -f1-6)" "$(printf 'b\tAER\t1\t0.00\t-\t-40.00')"
expect_eq compare-runs "$(sed -n 4p "$TMP/out" | cut -f1-6,15)" "$(printf 'c\tAER\t2\t20.00\t28.28\t-20.00\t40.00,0.00')"
expect_eq compare-same "$(sed -n 5p "$TMP/out" | cut -f6-20)" \
  "$(printf '+0.00\t+0.00\t+0.00\t1.0000\t1.0000\t+0.00\t+0.00\t< 0.00498\tyes\t40.00\t-\t-\t-\t-\t< 0.015')"
expect_eq compare-runs-welch "$(sed -n 4p "$TMP/out" | cut -f16-19)" "$(printf -- '-\t-\t-\t-')"
awk -F'\t' 'NR == 3 { exit !($7 <= $6 && $6 <= $8) }' "$TMP/out" && ok ||
  fail "compare: the difference outside its interval: $(sed -n 3p "$TMP/out")"
grep -q '^# AER in percent, lower is better' "$TMP/out" && grep -q '^# hierarchical bootstrap: 200 resamples' "$TMP/out" &&
  ok || fail "compare: no method lines: $(tail -4 "$TMP/out")"
grep -q 'warning.*--system a: one run' "$TMP/err" && ok || fail "compare: no one-run warning"
# The same seed, the same figures.
cp "$TMP/out" "$TMP/compare.first"
expect_exit 0 compare-again -- "$H" score --gold "$TMP/gold.wa" --system a="$TMP/test" --system b="$TMP/sure" \
  --system c="$TMP/test,$TMP/sure" --system d="$TMP/test" --bootstrap 200
expect_same compare-again "$TMP/out" "$TMP/compare.first"
# Any --threads, the same figures byte for byte.
expect_exit 0 compare-threads -- "$H" score --gold "$TMP/gold.wa" --system a="$TMP/test" --system b="$TMP/sure" \
  --system c="$TMP/test,$TMP/sure" --system d="$TMP/test" --bootstrap 200 --threads 3
expect_same compare-threads "$TMP/out" "$TMP/compare.first"
expect_exit 64 compare-with-test -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" --system a="$TMP/test"
expect_error_line align compare-with-test "cannot be combined"
expect_exit 64 compare-no-name -- "$H" score --gold "$TMP/gold.wa" --system "=$TMP/test"
expect_error_line align compare-no-name "no name before '='"
expect_exit 64 bootstrap-without-system -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" --bootstrap 10
expect_error_line align bootstrap-without-system "applies to --system"
expect_exit 64 compare-zero-bootstrap -- "$H" score --gold "$TMP/gold.wa" --system a="$TMP/test" --bootstrap 0
expect_error_line align compare-zero-bootstrap "bootstrap"
expect_exit 64 no-test -- "$H" score --gold "$TMP/gold.wa"
expect_error_line align no-test "give --test FILE, or --system"
head -2 "$TMP/test" > "$TMP/test2"
expect_exit 65 compare-lines -- "$H" score --gold "$TMP/gold.wa" --system a="$TMP/test" --system b="$TMP/test2"
expect_error_line align compare-lines "test2' has 2 lines but '.*test' has 3"
expect_eq compare-lines-stdout "$(wc -c < "$TMP/out")" 0

# Errors: usage (64), mismatched counts and malformed links (65), missing input (66),
# unwritable output (74); one line each, nothing on stdout.
expect_exit 64 no-gold -- "$H" score --test "$TMP/test"
expect_error_line align no-gold "gold"
expect_exit 64 bad-format -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" --gold-format moses
expect_error_line align bad-format "gold-format"
expect_exit 64 zero-sentences -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" --sentences 0
expect_error_line align zero-sentences "sentences"
expect_exit 64 both-stdin -- "$H" score --gold - --test -
expect_error_line align both-stdin "only one"
expect_exit 64 other-option -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" --method union
expect_error_line align other-option "method"
head -2 "$TMP/test" > "$TMP/test2"
expect_exit 65 talp-shorter-test -- "$H" score --gold "$TMP/gold.talp" --test "$TMP/test2" --one-based
expect_error_line align talp-shorter-test "gold.talp' has 3 lines but '.*test2' has 2"
expect_eq talp-shorter-test-stdout "$(wc -c < "$TMP/out")" 0
expect_exit 65 talp-longer-test -- "$H" score --gold "$TMP/gold.talp" --test "$TMP/test4" --one-based
expect_error_line align talp-longer-test "gold.talp' has 3 lines but '.*test4' has 4"
expect_exit 65 naacl-beyond -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test2"
expect_error_line align naacl-beyond "gold.wa:4: sentence 3 is beyond the 2 sentences"
expect_exit 65 sentences-mismatch -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" --sentences 4
expect_error_line align sentences-mismatch "test' has 3 lines but --sentences is 4"
printf '1 1 1 S\n1 2 x S\n' > "$TMP/bad.wa"
expect_exit 65 naacl-malformed -- "$H" score --gold "$TMP/bad.wa" --test "$TMP/test"
expect_error_line align naacl-malformed "bad.wa:2: expected NAACL gold .*'1 2 x S'"
printf '1-1\n1-2 2x3\n\n' > "$TMP/bad.talp"
expect_exit 65 talp-malformed -- "$H" score --gold "$TMP/bad.talp" --test "$TMP/test" --one-based
expect_error_line align talp-malformed "bad.talp:2: .*'2x3'"
printf '0-1 1-1\n\n' > "$TMP/zero.talp"
expect_exit 65 talp-zero-in-one-based -- "$H" score --gold "$TMP/zero.talp" --test "$TMP/test2" --one-based
expect_error_line align talp-zero-in-one-based "zero.talp:1: .*1-based.*'0-1'"
printf '0-0\n0-0 1p1\n0-0\n' > "$TMP/bad.test"
expect_exit 65 test-malformed -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/bad.test"
expect_error_line align test-malformed "bad.test:2: expected Pharaoh links 'i-j', got '1p1'"
expect_eq test-malformed-stdout "$(wc -c < "$TMP/out")" 0
mkdir "$TMP/o"
echo old > "$TMP/o/score.tsv"
expect_exit 65 error-keeps-output -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/bad.test" -o "$TMP/o/score.tsv"
expect_eq error-keeps-output "$(ls "$TMP/o" | tr '\n' ' '):$(cat "$TMP/o/score.tsv")" "score.tsv :old"
expect_exit 66 missing-gold -- "$H" score --gold "$TMP/nothing" --test "$TMP/test"
expect_error_line align missing-gold "nothing"
expect_exit 66 missing-test -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/nothing"
expect_error_line align missing-test "nothing"
expect_exit 74 unwritable -- "$H" score --gold "$TMP/gold.wa" --test "$TMP/test" -o "$TMP/no/dir/s.tsv"
expect_error_line align unwritable "no/dir"

# The shared Hansards gold: its sure links, as zero-based test alignments, score AER 0 against
# both the NAACL file and the talp copy (same orientation, same base).
HANSARDS=$(dirname "$0")/../../../shared/data/hansards-naacl2003-en-fr
if [ -f "$HANSARDS/test.talp" ]; then
  awk '{ s = ""; for (k = 1; k <= NF; k++) if ($k ~ /-/) { split($k, p, "-"); s = s (s == "" ? "" : " ") p[1] - 1 "-" p[2] - 1 } print s }' \
    "$HANSARDS/test.talp" > "$TMP/hansards.sure"
  for gold in test.wa.nonullalign test.talp; do
    expect_exit 0 "hansards-$gold" -- "$H" score --gold "$HANSARDS/$gold" --test "$TMP/hansards.sure" --one-based
    expect_eq "hansards-$gold" "$(tail -1 "$TMP/out")" $'0.00\t100.00\t100.00\t4038\t4038\t17438\t447'
  done
else
  echo "SKIPPED: $HANSARDS not found (the Hansards group)"
fi
# Empty gold and test alignments: nothing to score is an error, not AER 0.00.
: > "$TMP/empty"
expect_exit 65 empty-input -- "$BIN/heed-align" score --gold "$TMP/empty" --test "$TMP/empty"
expect_error_line align empty-input "empty: nothing to score"
finish
