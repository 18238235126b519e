#!/usr/bin/env bash
# Contract tests of heed-score: sacreBLEU's figures, line-count checks, bootstrap and sentence output.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_signals.sh"
S=$BIN/heed-score
printf 'The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n' > "$TMP/ref1"
printf 'The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n' > "$TMP/ref2"
printf "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n" > "$TMP/hyp"
printf 'The dog bit a man.\nIt was surprising.\nThe man bit the dog.\n' > "$TMP/hyp2"

# sacreBLEU's README example (BLEU = 48.53 82.4/50.0/45.5/37.5 ... hyp_len = 17 ref_len = 18).
expect_exit 0 bleu -- "$S" -r "$TMP/ref1" -r "$TMP/ref2" --hyp "$TMP/hyp" -m bleu
grep -qE '^BLEU\|nrefs:2\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:heed-[0-9.]+ = 48.53 82.4/50.0/45.5/37.5 \(BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18\)$' "$TMP/out" && ok || fail "bleu: $(cat "$TMP/out")"
# Standard input as the hypothesis, several systems prefixed by their names.
expect_exit 0 stdin -- sh -c "'$S' -r '$TMP/ref1' --hyp - -m chrf < '$TMP/hyp'"
grep -qE '^chrF2\|nrefs:1\|.* = [0-9]+\.[0-9]{2}$' "$TMP/out" && ok || fail "stdin: $(cat "$TMP/out")"
expect_exit 0 systems -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --hyp "$TMP/hyp2"
expect_eq systems-lines "$(wc -l < "$TMP/out")" 4
# Paired bootstrap: header, one row per system and metric, the baseline without p-value.
expect_exit 0 bootstrap -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --hyp "$TMP/hyp2" --bootstrap 200
expect_eq bootstrap-header "$(head -1 "$TMP/out")" $'system\tmetric\tscore\tmean\tci95\tp_value'
expect_eq bootstrap-rows "$(grep -vc '^#' "$TMP/out")" 5
awk -F'\t' 'NR > 1 && !/^#/ && NF != 6 { exit 1 }' "$TMP/out" && ok || fail "bootstrap: bad row"
# The old usage is unchanged: the paired bootstrap's figures, pinned.
expect_eq bootstrap-pinned "$(sed -n '2,5p' "$TMP/out" | sed "s|$TMP/||" | tr '\t\n' ' |')" \
  "hyp BLEU 45.07 41.54 46.75 -|hyp2 BLEU 24.91 24.45 6.49 0.1443|hyp chrF2 50.04 50.91 37.63 -|hyp2 chrF2 40.30 41.15 20.93 0.1443|"

# Several runs per system (--system NAME=RUN,...): TSV in a pipe, one row per system and metric,
# the baseline's comparison columns "-", then "# " lines. The columns after run_scores (Welch's
# test over the runs, the Holm-adjusted TOST p) came later: the first 15 keep their places.
# Every segment of both base runs misses words; better's runs are the reference itself.
printf 'A dog bit the man.\nIt was not surprising.\nThe man bit him.\n' > "$TMP/hyp3"
# (better's three runs: three files of the reference's text; one file given twice is refused.)
for copy in a b c; do cp "$TMP/ref1" "$TMP/ref1$copy"; done
runs=(-r "$TMP/ref1" --system "base=$TMP/hyp2,$TMP/hyp3" --system "better=$TMP/ref1a,$TMP/ref1b,$TMP/ref1c"
      --system "same=$TMP/hyp3,$TMP/hyp2" --bootstrap 200)
expect_exit 0 system -- "$S" "${runs[@]}"
expect_eq system-header "$(head -1 "$TMP/out")" \
  $'system\tmetric\truns\tmean\tsd\tdifference\tci95_low\tci95_high\tp_value\tp_holm\tci90_low\tci90_high\ttost_p\tequivalent\trun_scores\twelch_low\twelch_high\twelch_p\twelch_p_holm\ttost_p_holm'
expect_eq system-rows "$(grep -vc '^#' "$TMP/out")" 7
awk -F'\t' '!/^#/ && NF != 20 { exit 1 }' "$TMP/out" && ok || fail "system: a row without 20 columns"
expect_eq system-baseline "$(sed -n 2p "$TMP/out")" \
  "$(printf 'base\tBLEU\t2\t41.96\t24.12\t-\t-\t-\t-\t-\t-\t-\t-\t-\t24.91,59.02\t-\t-\t-\t-\t-')"
# Better on every segment in every run: the interval above 0, p below the floor 1/(200+1),
# written "< 0.00498", never 0; Holm over two comparisons doubles the bound.
expect_eq system-better "$(awk -F'\t' '$1 == "better" && $2 == "BLEU" { print $3, $4, $5, $9, $10, $14 }' "$TMP/out")" \
  "3 100.00 0.00 < 0.00498 < 0.00996 no"
awk -F'\t' '$1 == "better" && !($7 > 0) { exit 1 }' "$TMP/out" && ok || fail "system: better's interval reaches 0"
# The same runs in another order: difference 0, p = 1.
expect_eq system-same "$(awk -F'\t' '$1 == "same" { print $2, $6, $9, $10 }' "$TMP/out" | tr '\n' '|')" \
  "BLEU +0.00 1.0000 1.0000|chrF2 +0.00 1.0000 1.0000|"
# Welch over the runs alone, worked by hand from the run scores. same against base (BLEU): both
# 24.91 and 59.02, sd s = 24.12, so se = √(s²/2 + s²/2) = s, df = 1/(1/4 + 1/4) = 2, the
# interval ±t(0.975, 2)·s = ±4.3027·24.12 = ±103.76, p = 1. better (3 runs of 100.00, no
# spread) against base: se = s/√2 = 17.06, df = 1 (base's runs alone vary), t = 58.04/17.06 =
# 3.40, p = 1 − 2·atan(3.40)/π = 0.1819 (Cauchy), the interval 58.04 ± 12.706·17.06: the seeds
# alone do not support the difference the bootstrap finds. Holm over the two: 2·0.1819, then 1.
# The TOST p Holm-adjusted too: 2·0.33 = 0.66 for same, 1 for better.
expect_eq system-welch "$(awk -F'\t' '$2 == "BLEU" && $1 != "base" { print $1, $16, $17, $18, $19, $20 }' "$TMP/out" | tr '\n' '|')" \
  "better -158.64 +274.71 0.1819 0.3639 1.0000|same -103.76 +103.76 1.0000 1.0000 0.6600|"
grep -q '^# hierarchical bootstrap: 200 resamples.*seed 12345; baseline base$' "$TMP/out" && ok || fail "system: no method line"
# Seeded: the same output again, another with --seed 7; a name given again adds runs.
cp "$TMP/out" "$TMP/system.tsv"
expect_exit 0 system-again -- "$S" "${runs[@]}"
expect_same system-deterministic "$TMP/system.tsv" "$TMP/out"
expect_exit 0 system-seed -- "$S" "${runs[@]}" --seed 7
cmp -s "$TMP/system.tsv" "$TMP/out" && fail "system-seed: --seed changes nothing" || ok
# Any --threads: the same output, byte for byte (the draws are made in order by one thread).
for threads in 1 3; do
  expect_exit 0 "system-threads-$threads" -- "$S" "${runs[@]}" --threads "$threads"
  expect_same "system-threads-$threads-same" "$TMP/system.tsv" "$TMP/out"
done
expect_exit 0 system-repeated -- "$S" -r "$TMP/ref1" --system "base=$TMP/hyp2" --system "better=$TMP/ref1a" \
  --system "base=$TMP/hyp3" --system "better=$TMP/ref1b,$TMP/ref1c" --system "same=$TMP/hyp3,$TMP/hyp2" --bootstrap 200
expect_same system-repeated-same "$TMP/system.tsv" "$TMP/out"
# --print-config writes one "system = ..." line per value; the file replays the run.
expect_exit 0 system-print -- "$S" "${runs[@]}" --print-config
expect_eq system-print-lines "$(grep -c '^system = ' "$TMP/out")" 3
cp "$TMP/out" "$TMP/system-replay.cfg"
expect_exit 0 system-replayed -- "$S" --config "$TMP/system-replay.cfg"
expect_same system-replayed-same "$TMP/system.tsv" "$TMP/out"
# Identical single runs: equivalent within ±0.5 (TOST p below the floor). One run per system is
# the paired bootstrap's resampling: the same scores. A one-run system is warned about.
expect_exit 0 system-one-run -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --system "b=$TMP/hyp" \
  --system "c=$TMP/hyp2" --bootstrap 200 -m bleu
expect_eq system-one-run-equivalent "$(awk -F'\t' '$1 == "b" { print $5, $6, $9, $13, $14 }' "$TMP/out")" \
  "- +0.00 1.0000 < 0.00498 yes"
# One run a side: no Welch test; the TOST p Holm-adjusted over the two comparisons.
expect_eq system-one-run-welch "$(awk -F'\t' '$1 == "b" { print $16, $17, $18, $19, $20 }' "$TMP/out")" \
  "- - - - < 0.00996"
expect_eq system-one-run-scores "$(awk -F'\t' '!/^#/ && NR > 1 { print $4 }' "$TMP/out" | tr '\n' ' ')" "45.07 45.07 24.91 "
grep -q 'warning.*--system a: one run' "$TMP/err" && ok || fail "system-one-run: no warning: $(cat "$TMP/err")"
# --format table: aligned columns, mean ± sd, the difference with its interval, Welch's interval.
expect_exit 0 system-table -- "$S" "${runs[@]}" --format table -m bleu
expect_eq system-table-header "$(head -1 "$TMP/out")" \
  "system  metric  runs  mean ± sd      difference [95% CI]      p          p Holm     Welch [95% CI]      Welch p Holm  TOST p  TOST p Holm  equivalent ±0.50"
grep -qE '^base +BLEU +2 +41\.96 ± 24\.12 +baseline$' "$TMP/out" && ok || fail "system-table: $(sed -n 2p "$TMP/out")"
grep -qE '^better +BLEU +3 +100\.00 ± 0\.00 +\+[0-9.]+ \[\+[0-9.]+, \+[0-9.]+\] +< 0\.00498 +< 0\.00996 +\[-158\.64, \+274\.71\] +0\.3639 +1\.0000 +1\.0000 +no$' "$TMP/out" &&
  ok || fail "system-table: $(sed -n 3p "$TMP/out")"
# The verdict is the Holm-adjusted TOST p below 0.05. At ±50 same's 90% interval [-33.32,
# +39.17] lies inside and its TOST p is 0.04, but Holm over the two comparisons makes it 0.08:
# not equivalent (the verdict before the adjustment said yes). At ±60: 0.02, adjusted 0.04, yes.
expect_exit 0 system-margin -- "$S" "${runs[@]}" --equivalence-margin 50 -m bleu
expect_eq system-margin-same "$(awk -F'\t' '$1 == "same" { print $11, $12, $13, $14, $20 }' "$TMP/out")" \
  "-33.32 +39.17 0.0400 no 0.0800"
expect_exit 0 system-margin-wider -- "$S" "${runs[@]}" --equivalence-margin 60 -m bleu
expect_eq system-margin-wider-same "$(awk -F'\t' '$1 == "same" { print $13, $14, $20 }' "$TMP/out")" "0.0200 yes 0.0400"
# Identical one-run systems, 40 resamples: each TOST p is below the floor 1/41, but three
# comparisons make it "< 0.0732" after Holm, not below 0.05: none is shown equivalent.
expect_exit 0 system-holm-tost -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --system "b=$TMP/hyp" \
  --system "c=$TMP/hyp" --system "d=$TMP/hyp" --bootstrap 40 -m bleu
expect_eq system-holm-tost "$(awk -F'\t' '!/^#/ && NR > 1 { print $1, $11, $12, $13, $14, $20 }' "$TMP/out" | tr '\n' '|')" \
  "a - - - - -|b +0.00 +0.00 < 0.0244 no < 0.0732|c +0.00 +0.00 < 0.0244 no < 0.0732|d +0.00 +0.00 < 0.0244 no < 0.0732|"
grep -q '^# equivalence (TOST, alpha 0.05) within (-0.50, +0.50): equivalent when the TOST p, Holm-adjusted over the 3 comparisons' "$TMP/out" &&
  ok || fail "system-holm-tost: no equivalence line: $(grep '^# equivalence' "$TMP/out")"
# --minus: each run scored as its score minus its --minus run's (a beam's gain over its greedy
# output, say). Against one shared --minus run the gains' difference is the scores' difference on
# every resample, so the comparison's difference, interval, p and TOST are those of the plain one;
# each row's mean is the run's score minus the --minus run's.
expect_exit 0 minus-plain -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --system "b=$TMP/hyp2" --bootstrap 200 -m bleu
cp "$TMP/out" "$TMP/plain.tsv"
expect_exit 0 minus-shared -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --minus "a=$TMP/hyp3" \
  --system "b=$TMP/hyp2" --minus "b=$TMP/hyp3" --bootstrap 200 -m bleu
expect_eq minus-shared-comparison "$(awk -F'\t' '$1 == "b" { print $6, $7, $8, $9, $10, $11, $12, $13, $14 }' "$TMP/out")" \
  "$(awk -F'\t' '$1 == "b" { print $6, $7, $8, $9, $10, $11, $12, $13, $14 }' "$TMP/plain.tsv")"
score_of() { "$S" -r "$TMP/ref1" -m bleu --format json "$1" | awk -F': ' '/"score"/ { sub(",", "", $2); print $2 }'; }
gain() { awk -v a="$(score_of "$1")" -v b="$(score_of "$2")" 'BEGIN { printf "%.2f", a - b }'; }
expect_eq minus-shared-means "$(awk -F'\t' '!/^#/ && NR > 1 { print $4 }' "$TMP/out" | tr '\n' ' ')" \
  "$(gain "$TMP/hyp" "$TMP/hyp3") $(gain "$TMP/hyp2" "$TMP/hyp3") "
grep -q '^# --minus: every run scored as its score minus that of its --minus run' "$TMP/out" && ok ||
  fail "minus: no method line: $(grep '^#' "$TMP/out")"
# Several runs: run r against --minus run r, in order; its gain in run_scores.
expect_exit 0 minus-runs -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp,$TMP/hyp2" --minus "a=$TMP/hyp3,$TMP/hyp" \
  --system "b=$TMP/ref1a,$TMP/hyp3" --minus "b=$TMP/hyp2,$TMP/ref1b" --bootstrap 200 -m bleu
expect_eq minus-runs-scores "$(awk -F'\t' '!/^#/ && NR > 1 { print $15 }' "$TMP/out" | tr '\n' ' ')" \
  "$(gain "$TMP/hyp" "$TMP/hyp3"),$(gain "$TMP/hyp2" "$TMP/hyp") $(gain "$TMP/ref1a" "$TMP/hyp2"),$(gain "$TMP/hyp3" "$TMP/ref1b") "
# Given wrongly: exit 64, one line, nothing read.
minus_bad() {  # NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  expect_exit 64 "minus-$name" -- "$S" -r "$TMP/ref1" --bootstrap 10 "$@"
  expect_error_line score "minus-$name" "$pattern"
}
minus_bad no-system "--minus applies to --system" --hyp "$TMP/hyp" --minus "a=$TMP/hyp2"
minus_bad unknown "--minus c: no --system of that name" --system "a=$TMP/hyp" --minus "c=$TMP/hyp2"
minus_bad count "--minus a: 1 runs for the system's 2" --system "a=$TMP/hyp,$TMP/hyp3" --minus "a=$TMP/hyp2"
minus_bad missing "--system b: no --minus" --system "a=$TMP/hyp" --minus "a=$TMP/hyp2" --system "b=$TMP/hyp3"
minus_bad twice "--minus a: '.*' is the run '.*' again" --system "a=$TMP/hyp,$TMP/hyp3" --minus "a=$TMP/hyp2,$TMP/hyp2"
minus_bad spec "--minus 'a': .*expected NAME=RUN" --system "a=$TMP/hyp" --minus a
# Bad values: exit 64, one line naming the option.
for bad in "base" "=$TMP/hyp" "base=" "base=$TMP/hyp,,$TMP/hyp2" "$(printf 'a\tb=%s' "$TMP/hyp")"; do
  expect_exit 64 "system-bad $bad" -- "$S" -r "$TMP/ref1" --system "$bad" --bootstrap 10
  expect_error_line score "system-bad $bad" "--system '.*': .*expected NAME=RUN\[,RUN\.\.\.\]"
done
printf 'system = base=%s\nsystem = broken\n' "$TMP/hyp" > "$TMP/system.cfg"
expect_exit 64 system-bad-config -- "$S" -r "$TMP/ref1" --config "$TMP/system.cfg" --bootstrap 10
expect_error_line score system-bad-config "system.cfg:2: --system 'broken'"
for bad in 0 -1 nan inf x; do
  expect_exit 64 "margin $bad" -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --bootstrap 10 --equivalence-margin "$bad"
  expect_error_line score "margin $bad" "equivalence-margin"
done
expect_exit 64 format-bad -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --bootstrap 10 --format html
expect_error_line score format-bad "--format: unknown value 'html'"
expect_exit 64 system-no-bootstrap -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp"
expect_error_line score system-no-bootstrap "--system .*--bootstrap"
expect_exit 64 system-bootstrap-0 -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --bootstrap 0
expect_error_line score system-bootstrap-0 "--bootstrap"
expect_exit 64 system-bootstrap-cap -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --bootstrap 1000001
expect_error_line score system-bootstrap-cap "bootstrap"
expect_exit 64 system-and-hyp -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --hyp "$TMP/hyp2" --bootstrap 10
expect_error_line score system-and-hyp "--hyp and --system cannot be combined"
expect_exit 64 system-sentence -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --sentence --bootstrap 10
expect_error_line score system-sentence "--sentence"
# Issue 62. One file given twice for a system is one run, not two (it gave sd 0 and a narrower
# interval): refused, whether named again, given again under the system's name, or reached by
# another path. The same file for two systems is two identical systems, as before.
expect_exit 64 system-run-twice -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp,$TMP/hyp,$TMP/hyp" --bootstrap 10
expect_error_line score system-run-twice "--system a: '$TMP/hyp' is the run '$TMP/hyp' again"
expect_exit 64 system-run-twice-merged -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" \
  --system "b=$TMP/hyp2" --system "a=$TMP/hyp" --bootstrap 10
expect_error_line score system-run-twice-merged "--system a: .* again"
mkdir -p "$TMP/sub"
expect_exit 64 system-run-twice-path -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp,$TMP/sub/../hyp" --bootstrap 10
expect_error_line score system-run-twice-path "--system a: '$TMP/sub/../hyp' is the run '$TMP/hyp' again"
# A lone system: its mean and spread, and a warning that nothing is compared (it said nothing).
expect_exit 0 system-alone -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp,$TMP/hyp2" --bootstrap 10 -m bleu
expect_eq system-alone-rows "$(grep -vc '^#' "$TMP/out")" 2
grep -q "warning.*--system a: the only system, so nothing is compared" "$TMP/err" && ok ||
  fail "system-alone: no warning: $(cat "$TMP/err")"
# The comparison's memory grows with the systems times --bootstrap: estimated and refused (64)
# before any run is read, with as many one-line systems as this machine's memory cannot hold at
# 1,000,000 resamples (2 metrics × 8 bytes each). The address space is limited, so that a tool
# that allocated instead fails (71) rather than use the machine's memory.
if ! under_sanitizer; then
  memory_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
  systems=$((memory_kib / 15625 + 64))
  mkdir -p "$TMP/many"
  many=()
  for i in $(seq "$systems"); do
    echo "x" > "$TMP/many/$i"
    many+=(--system "s$i=$TMP/many/$i")
  done
  echo "x" > "$TMP/many/ref"
  (ulimit -v 4000000; exec "$S" -r "$TMP/many/ref" "${many[@]}" --bootstrap 1000000) >"$TMP/out" 2>"$TMP/err"
  expect_eq system-memory-exit $? 64
  expect_error_line score system-memory "$systems --system and --bootstrap 1000000 over 1 segments: the comparison could need .* GiB, more than the .* GiB of memory here"
  rm -rf "$TMP/many"
fi
expect_exit 64 margin-without-system -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --equivalence-margin 1
expect_error_line score margin-without-system "--equivalence-margin applies to --system"
# No hypothesis file: standard input, as sacreBLEU reads it ('heed-score -r REF < HYP').
expect_exit 0 hyp-given -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp"
cp "$TMP/out" "$TMP/hyp-given"
expect_exit 0 hyp-on-stdin -- sh -c "'$S' -r '$TMP/ref1' < '$TMP/hyp'"
expect_same hyp-on-stdin "$TMP/hyp-given" "$TMP/out"
# Several metrics as words after -m (sacreBLEU's form) or one comma list: the same.
expect_exit 0 metrics-words -- "$S" -r "$TMP/ref1" -m bleu chrf --hyp "$TMP/hyp"
expect_same metrics-words "$TMP/hyp-given" "$TMP/out"
expect_exit 0 metrics-words-print -- "$S" -r "$TMP/ref1" -m bleu chrf --print-config
expect_eq metrics-words-print "$(grep '^metrics' "$TMP/out" | tr '\n' '|')" "metrics = bleu|metrics = chrf|"
expect_exit 64 metrics-word-bad -- "$S" -r "$TMP/ref1" -m bleu ter --hyp "$TMP/hyp"
expect_error_line score metrics-word-bad "--metrics: unknown value 'ter'"
# --confidence and --format json are one system's corpus scores.
expect_exit 64 confidence-two -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --hyp "$TMP/hyp2" --confidence
expect_error_line score confidence-two "--confidence is one system's interval .* compared with --bootstrap N"
expect_exit 64 json-sentence -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --sentence --format json
expect_error_line score json-sentence "--format json writes one system's corpus scores"
expect_exit 0 json-parses -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --confidence --format json
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert [m["name"] for m in d] == ["BLEU", "chrF2"] and all("confidence_mean" in m for m in d)' "$TMP/out" &&
  ok || fail "json-parses: $(head -c 300 "$TMP/out")"
# A run of the wrong length, or not text: exit 65 naming the file (and line); nothing written.
head -2 "$TMP/hyp" > "$TMP/short-run"
expect_exit 65 system-short -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp" --system "b=$TMP/hyp2,$TMP/short-run" --bootstrap 10
expect_error_line score system-short "short-run' has 2 lines but the reference .*ref1' has 3"
expect_eq system-short-nothing-written "$(wc -c < "$TMP/out")" 0
printf "The dog bit the man.\nIt wasn\xe2t surprising.\nThe man had just bitten him.\n" > "$TMP/bad-run"
expect_exit 65 system-invalid -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp,$TMP/bad-run" --bootstrap 10
expect_error_line score system-invalid "bad-run:2: invalid UTF-8 at byte 8"
expect_exit 66 system-missing -- "$S" -r "$TMP/ref1" --system "a=$TMP/hyp,$TMP/none" --bootstrap 10
expect_error_line score system-missing "none"
# One run may come from standard input.
expect_exit 0 system-stdin -- sh -c "'$S' -r '$TMP/ref1' --system 'a=$TMP/hyp,-' --system 'b=$TMP/hyp2' --bootstrap 10 < '$TMP/hyp2'"
expect_eq system-stdin-runs "$(awk -F'\t' '$1 == "a" && $2 == "BLEU" { print $15 }' "$TMP/out")" "45.07,24.91"

# Sentence scores: one row per segment; a perfect segment scores 100.
expect_exit 0 sentence -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --sentence
expect_eq sentence-rows "$(wc -l < "$TMP/out")" 4
expect_eq sentence-perfect "$(sed -n 2p "$TMP/out")" $'1\t100.00\t100.00'
# Errors: line counts, missing files, bad options.
head -2 "$TMP/hyp" > "$TMP/short"
expect_exit 65 mismatch -- "$S" -r "$TMP/ref1" --hyp "$TMP/short"
expect_error_line score mismatch "has 2 lines but the reference .* has 3"
{ cat "$TMP/hyp"; echo "One more."; } > "$TMP/long"
expect_exit 65 mismatch-longer -- "$S" -r "$TMP/ref1" --hyp "$TMP/long" --sentence
expect_error_line score mismatch-longer "long' has 4 lines but the reference .* has 3"
expect_eq mismatch-nothing-written "$(wc -c < "$TMP/out")" 0
expect_exit 65 mismatch-refs -- "$S" -r "$TMP/ref1" -r "$TMP/short" --hyp "$TMP/hyp"
expect_error_line score mismatch-refs "has 3 lines but the reference .*short' has 2"
expect_exit 66 missing -- "$S" -r "$TMP/none" --hyp "$TMP/hyp"
expect_error_line score missing "none"
expect_exit 64 no-ref -- "$S" --hyp "$TMP/hyp"
expect_error_line score no-ref "ref"
expect_exit 64 bad-tok -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --tokenize moses
expect_error_line score bad-tok "tokenize"

# Invalid UTF-8: 65 naming file and line. Corpus scores need every segment: nothing is written.
printf "The dog bit the man.\nIt wasn\xe2t surprising.\nThe man had just bitten him.\n" > "$TMP/bad"
expect_exit 65 invalid-utf8 -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad"
expect_error_line score invalid-utf8 "bad:2: invalid UTF-8 at byte 8"
expect_eq invalid-utf8-nothing-written "$(wc -c < "$TMP/out")" 0
expect_exit 65 invalid-utf8-ref -- "$S" -r "$TMP/bad" --hyp "$TMP/hyp"
expect_error_line score invalid-utf8-ref "bad:2: invalid UTF-8 at byte 8"
# --sentence writes the rows before the bad segment; with -o they are kept in FILE.partial.
expect_exit 65 invalid-utf8-sentence -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad" --sentence
expect_eq invalid-utf8-sentence-rows "$(tr '\t\n' ' |' < "$TMP/out")" "line BLEU chrF2|1 100.00 100.00|"
mkdir "$TMP/o"
echo "old" > "$TMP/o/s.tsv"
expect_exit 65 invalid-utf8-file -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad" --sentence -o "$TMP/o/s.tsv"
expect_error_line score invalid-utf8-file "bad:2: invalid UTF-8 .*; the line before it is in '.*/o/s.tsv.partial'"
expect_eq invalid-utf8-file-untouched "$(cat "$TMP/o/s.tsv")" "old"
expect_eq invalid-utf8-file-partial "$(tr '\t\n' ' |' < "$TMP/o/s.tsv.partial")" "line BLEU chrF2|1 100.00 100.00|"
expect_eq invalid-utf8-file-no-temp "$(ls "$TMP/o" | tr '\n' ' ')" "s.tsv s.tsv.partial "
# replace: U+FFFD, scored, one warning naming the line.
expect_exit 0 invalid-utf8-replace -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad" --on-invalid replace --sentence
expect_eq invalid-utf8-replace-rows "$(wc -l < "$TMP/out")" 4
expect_eq invalid-utf8-replace-warning "$(grep -c 'bad:2: invalid UTF-8 at byte 8: replaced by U+FFFD' "$TMP/err")" 1
expect_exit 64 invalid-utf8-bad-choice -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --on-invalid skip
expect_error_line score invalid-utf8-bad-choice "on-invalid: unknown value 'skip'"
# A NUL byte is not text either.
printf 'The dog bit the man.\nIt was\0 not unexpected.\nThe man bit him first.\n' > "$TMP/nul"
expect_exit 65 nul -- "$S" -r "$TMP/nul" --hyp "$TMP/hyp"
expect_error_line score nul "nul:2: NUL byte at byte 7"
expect_exit 0 nul-replace -- "$S" -r "$TMP/nul" --hyp "$TMP/hyp" --on-invalid replace

# Empty lines are segments like any other; a perfect empty hypothesis needs no special case.
printf 'The dog bit the man.\n\nThe man bit him first.\n' > "$TMP/ref-empty"
printf 'The dog bit the man.\n\nThe man bit him.\n' > "$TMP/hyp-empty"
expect_exit 0 empty-lines -- "$S" -r "$TMP/ref-empty" --hyp "$TMP/hyp-empty" --sentence
expect_eq empty-lines-rows "$(wc -l < "$TMP/out")" 4

# CRLF line ends and a leading byte order mark change no score.
"$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --sentence > "$TMP/plain.out"
{ printf '\xef\xbb\xbf'; sed 's/$/\r/' "$TMP/hyp"; } > "$TMP/hyp-bom-crlf"
{ printf '\xef\xbb\xbf'; cat "$TMP/ref1"; } > "$TMP/ref-bom"
expect_exit 0 bom-crlf -- "$S" -r "$TMP/ref-bom" --hyp "$TMP/hyp-bom-crlf" --sentence
expect_same bom-crlf-same "$TMP/plain.out" "$TMP/out"

# A 1 MB segment is scored like a short one.
head -c 1000000 /dev/zero | tr '\0' 'x' | sed 's/xxxxxxxxx/word one, /g' > "$TMP/mb"
{ cat "$TMP/ref1"; cat "$TMP/mb"; echo; } > "$TMP/ref-mb"
{ cat "$TMP/hyp"; cat "$TMP/mb"; echo; } > "$TMP/hyp-mb"
expect_exit 0 long-1mb -- "$S" -r "$TMP/ref-mb" --hyp "$TMP/hyp-mb" --sentence
expect_eq long-1mb-row "$(sed -n 5p "$TMP/out")" $'4\t100.00\t100.00'

# SIGINT and SIGTERM while the bootstrap runs: 130 and 143, the target untouched, no temporary
# file left.
for _ in $(seq 300); do cat "$TMP/hyp"; done > "$TMP/hyp-900"
for _ in $(seq 300); do cat "$TMP/ref1"; done > "$TMP/ref-900"
expect_stopped_cleanly sigint INT "$TMP/o/s.tsv" 0 -- \
  "$S" -r "$TMP/ref-900" --hyp "$TMP/hyp-900" --hyp "$TMP/ref-900" --bootstrap 1000000 -o "$TMP/o/s.tsv"
expect_stopped_cleanly sigterm TERM "$TMP/o/new.tsv" 0 -- \
  "$S" -r "$TMP/ref-900" --hyp "$TMP/hyp-900" --hyp "$TMP/ref-900" --bootstrap 1000000 -o "$TMP/o/new.tsv"
# Standard input is read once: '-' for both the reference and the hypothesis is a usage error.
echo "a b" > "$TMP/one"
expect_exit 64 two-stdin -- sh -c "'$BIN/heed-score' -r - --hyp - < '$TMP/one'"
expect_error_line score two-stdin "only one of the --ref and --hyp files can be '-'"
# A path with a line end in it still makes one error line.
expect_exit 66 newline-path -- "$BIN/heed-score" -r "$(printf '%s/no\nfile' "$TMP")" --hyp "$TMP/one"
expect_error_line score newline-path 'no\\nfile'
finish
