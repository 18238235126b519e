#!/usr/bin/env bash
# The ablation's report generator (experiments/ablation/report.py, the Jinja2 template
# experiments/ablation/ablation.md.j2) on a small fixture of result files: the status line, means
# and standard deviations over seeds per test set and pooled, the runs of the learning rate the
# check chose (and only those), the comparisons and the verdicts worded from heed-score's
# statistics (differs, level, level though not identical, undecided; a p below the resampling
# floor as written; † for a side with one run), the learning-rate, training, arrangement, sweep
# and skipped tables, a cost table labelled with the mode it times, "not measured" for the cost
# files not there, the probes' tables (saturation on the trained models beside random vectors of
# their width, what the scorers' parameters learned, the long inputs, attention's share of a
# step), saturation.py on hand-worked rows and parameters.py on a hand-made model file, no
# template syntax left, plots that are well-formed SVG drawn the same byte for byte twice, and a
# page written atomically; the answers in short first (a comparison flipped, the pooling study's
# transfer accuracy with its Wilson interval), verdicts on ≤ 3 runs a side provisional, per-set,
# per-length and beam cells as numbers without verdicts, Welch's interval over seeds and the
# adjusted TOST p where heed-score writes them, and the committed docs/studies/ablation.md exactly
# what the committed results render, its three answers in short at most six lines each. A missing result
# file is an error naming it (66)
# that leaves the page as it was; a template asking for an unknown configuration, test set or
# name, or printing a number without a format, is an error naming the template's line (65); a
# missing Python package is named with its Debian package (69).
#   tests/cli/ablation_report.sh SOURCE_DIR
# Needs Debian's /usr/bin/python3 with python3-jinja2 and python3-matplotlib; skipped (77)
# without them.
set -u
SRC=${1:?usage: ablation_report.sh SOURCE_DIR}
PY=/usr/bin/python3
REPORT=$SRC/experiments/ablation/report.py
[ -x "$PY" ] || { echo "SKIPPED: $PY not found"; exit 77; }
missing=$("$PY" "$REPORT" --check 2>&1)
case $? in
  0) ;;
  69) echo "SKIPPED: $missing"; exit 77 ;;
  *) echo "FAIL: report.py --check: $missing" >&2; exit 1 ;;
esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# matplotlib's font cache in TMP: no warning about an unwritable home among the error lines.
export MPLCONFIGDIR=$TMP/matplotlib
FAILED=0
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }
expect() {  # name pattern: the page matches the extended regular expression
  grep -qE -- "$2" "$TMP/page.md" || fail "$1: no line matches '$2'"
}
# report NAME CODE ARGS...: report.py with ARGS exits CODE; its stderr in $TMP/err.
report() {
  local name=$1 want=$2
  shift 2
  "$PY" "$REPORT" --pooling "$TMP/pooling" --alignment "$TMP/alignment" "$@" 2>"$TMP/err"
  local got=$?
  [ "$got" = "$want" ] || fail "$name: exit $got, expected $want: $(head -c 300 "$TMP/err")"
}
# error NAME PATTERN: stderr is one line "report.py: …" matching PATTERN.
error() {
  [ "$(wc -l < "$TMP/err")" = 1 ] && grep -qE -- "^report.py: .*$2" "$TMP/err" ||
    fail "$1: stderr is not one line matching '$2': $(head -c 300 "$TMP/err")"
}
tsv() { sed 's/  */\t/g' > "$1"; }  # the fixture below is written with spaces for legibility

# Wilson's interval: 50 of 100 is [40.38 %, 59.62 %] (the textbook case), 1,000 of 1,000 reaches
# 100 % and starts at 99.62 %; a comparison flipped negates the difference and both intervals.
"$PY" - "$REPORT" <<'PYEOF' || fail "report.py's wilson or Comparison.flipped"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("report", sys.argv[1])
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)
low, high = report.wilson(0.5, 100)
assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962), (low, high)
low, high = report.wilson(1.0, 1000)
assert round(low, 4) == 0.9962 and high == 1.0, (low, high)
row = {"system": "b", "metric": "BLEU", "runs": "3", "difference": "+0.50", "ci95_low": "-0.20",
       "ci95_high": "+1.20", "p_value": "0.1", "p_holm": "0.2", "tost_p": "0.4", "equivalent": "no",
       "welch_low": "-0.53", "welch_high": "+1.53", "tost_p_holm": "0.8"}
c = report.Comparison(row, "a", 0.5)
c.baseline_runs = 5
f = c.flipped()
assert (f.interval, f.seed_interval, f.system, f.baseline) == ("-0.50 [-1.20, +0.20]", "[-1.53, +0.53]", "a", "b"), f.interval
assert c.provisional and c.tost_text == "0.8" and "provisional: 3 and 5 runs" in c.verdict, c.verdict
c.runs = 4
assert not c.provisional and "provisional" not in c.verdict_word
PYEOF

R=$TMP/results
mkdir -p "$R/curves" "$R/compare" "$TMP/alignment/compare"
printf 'corpus\t/data/train\nvalid\t/data/val\nsrc\tde\ntgt\ten\nmerges\t8000\nlowercase\t1
test\ttest2016\t1000\t/data/test_2016\ntest\ttest2017\t500\t/data/test_2017
updates\t6800\nvalid_every\t850\npatience\t4\nlr\t0.001\nlr_factors\t2
schedule\t--lr-schedule cosine --warmup-steps 500\nmodel\t--embed 256 --dropout 0.3\nhidden\t512
seeds\t1 2\nprecision\tbf16\nthreads\t2\nbootstrap\t1000\nmargin\t0.5\nquick\t0\nplanned_runs\t18
long_min\t30\nlong_max\t80\nlong_force\t0.9\nbeam\t5\ntrain_sentences\t29000\ntrain_longest\t39\ntrain_long\t29\n' \
  > "$R/settings.tsv"
tsv "$R/plan.tsv" <<'EOF2'
order id family stage seed lr hidden options
1 dot main core 1 0.001 512 --attention|dot
2 general main core 1 0.001 512 --attention|general
3 additive main core 1 0.001 512 --attention|additive
4 dot main lr-check 1 0.002 512 --attention|dot
5 general main lr-check 1 0.002 512 --attention|general
6 additive main lr-check 1 0.002 512 --attention|additive
7 dot main core 2 chosen 512 --attention|dot
8 general main core 2 chosen 512 --attention|general
9 additive main core 2 chosen 512 --attention|additive
10 none main main 1 0.001 512 --attention|none
11 dot-bahdanau bahdanau arrangement 1 chosen:dot-h256 256 --attention|dot|--decoder|bahdanau
12 general-bahdanau bahdanau,bahdanau-fast arrangement 1 0.001 256 --attention|general|--decoder|bahdanau
13 additive-a128 sweep-a128 sweep 1 0.001 256 --attention|additive|--attention-dim|128
14 mh1-a128 sweep-a128 sweep 1 0.001 256 --attention|multi-head|--heads|1|--attention-dim|128
15 general-identity main mechanistic 1 chosen:general 512 --attention|general|--identity-init|1
16 dot-h256 luong-h256 arrangement 1 chosen:dot*1 256 --attention|dot
17 dot-h256 luong-h256 lr-check 1 chosen:dot*2 256 --attention|dot
18 dot-bahdanau-fast bahdanau,+bahdanau-fast one-rate 1 0.004 256 --lr|0.004|--attention|dot|--decoder|bahdanau
EOF2
sed -i 's/|/ /g' "$R/plan.tsv"
tsv "$R/runs.tsv" <<'EOF2'
id family seed lr hidden status steps stop best_val_ppl best_step converged_step best_val_bleu minutes tok_per_s cpu
dot main 1 0.001 512 ok 6800 budget 5.10 5950 5100 40.0 21.0 5000 X
general main 1 0.001 512 ok 6800 budget 5.20 6800 5950 39.0 22.0 4800 X
additive main 1 0.001 512 ok 4250 early-stop 5.15 850 850 39.5 14.0 4700 X
dot main 1 0.002 512 failed-65 300 budget 9.30 300 300 8.0 1.0 5000 X
general main 1 0.002 512 ok 6800 budget 5.00 5100 4250 41.0 22.0 4800 X
dot main 2 0.001 512 ok 6800 budget 5.20 6800 5950 40.2 21.0 5200 X
general main 2 0.002 512 ok 6800 budget 5.10 5950 5100 41.2 22.0 4900 X
none main 1 0.001 512 failed-65 120 budget 80.0 100 100 1.0 0.5 6000 X
additive-a128 sweep-a128 1 0.001 256 ok 6800 budget 6.00 6800 6800 35.0 11.0 9000 X
mh1-a128 sweep-a128 1 0.001 256 ok 6800 budget 6.10 6800 6800 36.0 11.0 9100 X
general-identity main 1 0.002 512 ok 6800 budget 4.90 5100 4250 41.5 22.0 4800 X
dot-h256 luong-h256 1 0.001 256 ok 6800 budget 5.90 6800 6800 37.0 11.0 9000 X
dot-h256 luong-h256 1 0.002 256 ok 6800 budget 5.70 5950 5950 38.0 11.0 9000 X
EOF2
{
  printf 'id\tseed\tlr\ttest\tbleu\tchrf\n'
  printf '%s\n' "dot 1 0.001 40.00 60.00 30.00 50.00 36.00 56.00" "dot 2 0.001 42.00 62.00 32.00 52.00 38.00 58.00" \
    "general 1 0.001 10.00 20.00 10.00 20.00 10.00 20.00" "general 1 0.002 41.00 61.00 33.00 53.00 37.50 57.50" \
    "general 2 0.002 42.00 62.00 34.00 54.00 38.50 58.50" "additive 1 0.001 41.00 61.00 31.00 51.00 36.90 56.90" \
    "dot 1 0.002 39.00 59.00 29.00 49.00 35.00 55.00" "additive-a128 1 0.001 33.00 53.00 27.00 47.00 30.00 50.00" \
    "mh1-a128 1 0.001 34.00 54.00 28.00 48.00 31.00 51.00" |
    awk '{ n = split("test2016 test2017 pooled", t, " ")
           for (i = 1; i <= n; i++) printf "%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, t[i], $(2 * i + 2), $(2 * i + 3) }'
} > "$R/scores.tsv"
tsv "$R/lr-choice.tsv" <<'EOF2'
id base factor lr best_val_ppl chosen
dot 0.001 1 0.001 5.10 yes
dot 0.001 2 0.002 failed no
general 0.001 1 0.001 5.20 no
general 0.001 2 0.002 5.00 yes
additive 0.001 1 0.001 5.15 yes
additive 0.001 2 0.002 - no
dot-h256 0.001 1 0.001 5.90 no
dot-h256 0.001 2 0.002 5.70 yes
EOF2
sed -i 's/\t-\t/\t\t/' "$R/lr-choice.tsv"
printf 'id\tmessage\ndot-concat\theed-train: error: --decoder: unknown value '"'"'concat'"'"'\n' > "$R/skipped.tsv"
# heed-score --system --format tsv, as it writes it.
H='system	metric	runs	mean	sd	difference	ci95_low	ci95_high	p_value	p_holm	ci90_low	ci90_high	tost_p	equivalent	run_scores'
printf '%s\n' "$H" \
  'dot	BLEU	2	37.00	1.41	-	-	-	-	-	-	-	-	-	36.00,38.00' \
  'general	BLEU	2	38.00	0.71	+1.00	+0.40	+1.60	0.0020	0.0040	+0.50	+1.50	0.9000	no	37.50,38.50' \
  'additive	BLEU	1	36.90	-	-0.10	-0.30	+0.20	0.5000	0.5000	-0.25	+0.15	0.0100	yes	36.90' \
  'dot	chrF2	2	57.00	1.41	-	-	-	-	-	-	-	-	-	56.00,58.00' \
  'general	chrF2	2	58.00	0.71	+0.30	+0.10	+0.50	< 0.001	< 0.001	+0.12	+0.45	0.0400	yes	57.50,58.50' \
  'additive	chrF2	1	56.90	-	-0.80	-2.00	+0.50	0.3000	0.3000	-1.80	+0.30	0.6000	no	56.90' \
  '# hierarchical bootstrap: 1000 resamples' > "$R/compare/main.pooled.tsv"
# The pooled set by source length: two groups, additive compared on the first only.
printf 'group\tshortest\tlongest\tsentences\n1\t3\t9\t1200\n2\t10\t10\t300\n' > "$R/length-groups.tsv"
printf '%s\n' "$H" \
  'dot	BLEU	2	36.00	1.00	-	-	-	-	-	-	-	-	-	35.00,37.00' \
  'general	BLEU	2	37.50	0.50	+1.50	+0.50	+2.50	0.0030	0.0060	+0.70	+2.30	0.9000	no	37.00,38.00' \
  'additive	BLEU	1	35.00	-	-1.00	-2.00	+0.10	0.2000	0.2000	-1.80	-0.10	0.3000	no	35.00' \
  > "$R/compare/main.length-1.tsv"
printf '%s\n' "$H" \
  'dot	BLEU	2	38.00	2.00	-	-	-	-	-	-	-	-	-	36.00,40.00' \
  'general	BLEU	2	38.40	0.20	+0.40	-0.20	+1.00	0.3000	0.3000	-0.10	+0.90	0.0100	yes	38.20,38.60' \
  > "$R/compare/main.length-2.tsv"
printf '%s\n' "$H" \
  'additive-a128	BLEU	1	30.00	-	-	-	-	-	-	-	-	-	-	30.00' \
  'mh1-a128	BLEU	1	31.00	-	+1.00	-0.50	+2.50	0.2000	0.2000	-0.20	+2.20	0.7000	no	31.00' > "$R/compare/sweep-a128.pooled.tsv"
# A family joined (general-bahdanau's second): its baseline at a rate its options fix. Written
# by a heed-score that also gives Welch's interval over the runs alone and the TOST p
# Holm-adjusted (columns after run_scores): the page shows the first, and the second in place
# of the unadjusted one.
printf '%s\n' "$H	welch_low	welch_high	welch_p	welch_p_holm	tost_p_holm" \
  'dot-bahdanau-fast	BLEU	3	30.00	0.50	-	-	-	-	-	-	-	-	-	29.50,30.00,30.50	-	-	-	-	-' \
  'general-bahdanau	BLEU	3	30.50	0.40	+0.50	-0.20	+1.20	0.1500	0.1500	-0.10	+1.10	0.4000	no	30.10,30.50,30.90	-0.53	+1.53	0.2600	0.2600	0.8000' \
  > "$R/compare/bahdanau-fast.pooled.tsv"
tsv "$R/curves/dot-s1-lr0.001.tsv" <<'EOF2'
step val_ppl val_bleu lr elapsed_s event
850 9.0 30.0 0.001 100 best
1700 6.0 36.0 0.0009 200 best
EOF2
tsv "$R/curves/dot-s2-lr0.001.tsv" <<'EOF2'
step val_ppl val_bleu lr elapsed_s event
850 8.0 31.0 0.001 100 best
1700 5.8 37.0 0.0009 200 best
EOF2
tsv "$R/curves/general-s1-lr0.001.tsv" <<'EOF2'
step val_ppl val_bleu lr elapsed_s event
850 99.0 1.0 0.001 100 best
EOF2
tsv "$R/curves/general-s1-lr0.002.tsv" <<'EOF2'
step val_ppl val_bleu lr elapsed_s event
850 8.5 31.0 0.002 100 best
EOF2
printf '# cpu: AMD EPYC\nmechanism\tmode\tpass\tprecision\tthreads\tbatch\tsource_length\ttarget_length\thidden\tmedian_ms\tbytes
dot\tall-steps\tforward-backward\tbf16\t2\t64\t10\t20\t512\t2.0\t13178888
dot\tall-steps\tforward-backward\tbf16\t2\t64\t500\t20\t512\t10.0\t144100000
additive\tall-steps\tforward-backward\tbf16\t2\t64\t10\t20\t512\t8.0\t20000000
additive\tall-steps\tforward-backward\tbf16\t2\t64\t500\t20\t512\t24.0\t151049999\n' > "$R/cost-length.tsv"
printf '# cpu: Test CPU (2 cores visible)\n# memory: 1 GiB\n' > "$R/machine.txt"
# The probes: saturation statistics (general's row is at the rate not chosen, none's run failed),
# the long inputs, each configuration's whole-against-one-by-one comparison and the family's.
tsv "$R/saturation.tsv" <<'EOF2'
id seed lr rows source_median entropy entropy_fraction max_weight score_sd zero_rows grad_scores_mean grad_scores_median
dot 1 0.001 100 14 0.6 0.30 0.70 3.0 0 0.04 0.02
dot 2 0.001 100 14 0.8 0.40 0.60 2.0 0 0.05 0.03
general 1 0.001 100 14 0.9 0.99 0.10 0.1 0 0.09 0.09
none 1 0.001 - - - - - - - - -
EOF2
printf 'input\tmechanism\tdim\tsource_length\tsamples\tentropy\tentropy_fraction\tmax_weight\tgrad_scores_norm\tgrad_scores_median\tgrad_query_norm
tanh\tdot\t512\t20\t100\t0.5\t0.1667\t0.8500\t0.05\t0.004\t1.0
tanh\tdot\t64\t20\t100\t2.0\t0.6676\t0.3000\t0.2\t0.1\t1.0\n' > "$R/stats.tsv"
# What the scorers learned (parameters.py): general's W_a at its chosen rate (and one run at the
# rate not chosen), general from the identity, dot with no such parameter.
tsv "$R/parameters.tsv" <<'EOF2'
id seed lr temperature scale identity residual
dot 1 0.001 - - - -
general 1 0.002 - - 0.010 0.990
general 2 0.002 - - 0.030 0.970
general 1 0.001 - - 9.000 0.100
general-identity 1 0.002 - - 0.800 0.400
EOF2
tsv "$R/long.tsv" <<'EOF2'
id seed lr bleu_long chrf_long bleu_joined chrf_joined
dot 1 0.001 30.00 55.00 32.00 57.00
dot 2 0.001 31.00 56.00 33.00 58.00
general 1 0.002 31.00 56.00 31.50 56.50
general 1 0.001 1.00 1.00 1.00 1.00
EOF2
# dot's kept translations of the long inputs (3), and of test2016 (whose lines 1–7 the long
# inputs join 2, 3 and 2 at a time): 3 sentence ends whole (1.0 an input: "1.5" is no end,
# "a!" is) against 7 one by one (2.3 an input).
mkdir -p "$R/hyps"
for seed in 1 2; do
  printf 'a man. a dog.\nit costs 1.5 euros\na cat!\n' | gzip > "$R/hyps/dot-s$seed-lr0.001.long.txt.gz"
  printf 'x%s.\n' 1 2 3 4 5 6 7 | gzip > "$R/hyps/dot-s$seed-lr0.001.test2016.txt.gz"
done
# The long inputs made to go on: dot's two runs and general's compared one (none kept for it).
tsv "$R/long-forced.tsv" <<'EOF2'
id seed lr bleu chrf ratio bp
dot 1 0.001 20.00 45.00 0.90 0.89
dot 2 0.001 22.00 47.00 0.92 0.91
general 1 0.002 21.00 46.00 0.95 0.95
EOF2
for seed in 1 2; do
  printf 'a man.."..\nit costs 1.5 euros\na cat! a dog\n' | gzip > "$R/hyps/dot-s$seed-lr0.001.long-forced.txt.gz"
done
printf '%s\n' "$H" \
  'dot	BLEU	2	21.00	1.41	-	-	-	-	-	-	-	-	-	20.00,22.00' \
  'general	BLEU	1	21.00	-	+0.00	-1.00	+1.00	1.0000	1.0000	-0.80	+0.80	0.0400	yes	21.00' \
  > "$R/compare/main.long-forced.tsv"
# The pooled sets with beam 5: dot's two runs, each 1.00 above its greedy pooled BLEU, and
# general's two compared ones, 0.50 and 1.00 above (general at 0.001 is not its compared rate).
# Against dot, general is undecided greedy on the same runs and differs with the beam; the beam's
# change of the difference, 0.75 − 1.00, is heed-score --minus's row (beam-gain).
tsv "$R/beam.tsv" <<'EOF2'
id seed lr beam bleu chrf ratio bp
dot 1 0.001 5 37.00 57.00 0.97 0.97
dot 2 0.001 5 39.00 59.00 0.97 0.97
general 1 0.002 5 38.00 58.00 0.98 0.98
general 2 0.002 5 39.50 59.00 0.98 0.98
general 1 0.001 5 99.00 99.00 1.00 1.00
EOF2
printf '%s\n' "$H" \
  'dot	BLEU	2	38.00	1.41	-	-	-	-	-	-	-	-	-	37.00,39.00' \
  'general	BLEU	2	38.75	1.06	+0.75	+0.25	+1.25	0.0100	0.0200	+0.35	+1.15	0.9000	no	38.00,39.50' \
  > "$R/compare/main.beam.tsv"
printf '%s\n' "$H" \
  'dot	BLEU	2	37.00	1.41	-	-	-	-	-	-	-	-	-	36.00,38.00' \
  'general	BLEU	2	38.00	0.71	+1.00	-0.10	+2.10	0.2000	0.4000	+0.20	+1.80	0.9000	no	37.50,38.50' \
  > "$R/compare/main.beam-greedy.tsv"
printf '%s\n' "$H" \
  'dot	BLEU	2	1.00	0.00	-	-	-	-	-	-	-	-	-	1.00,1.00' \
  'general	BLEU	2	0.75	0.35	-0.25	-1.30	+0.80	0.6000	0.6000	-1.10	+0.60	0.4000	no	0.50,1.00' \
  > "$R/compare/main.beam-gain.tsv"
# Worked by hand: dot's whole translations keep 30/0.94 = 31.91 and 31/0.96 = 32.29 of BLEU
# without the penalty; the penalty's share of each loss is log 0.94 / log(30/32) = 0.959 and
# log 0.96 / log(31/33) = 0.653, 81 % on average. general at 0.001 is not its compared rate.
tsv "$R/long-length.tsv" <<'EOF2'
id seed lr ratio_long bp_long ratio_joined bp_joined
dot 1 0.001 0.93 0.94 1.01 1.00
dot 2 0.001 0.95 0.96 0.99 1.00
general 1 0.002 0.98 0.99 1.00 1.00
general 1 0.001 0.50 0.40 1.00 1.00
EOF2
printf 'the grid was widened\nafter two checks.\n' > "$R/protocol-changes.md"
printf 'first\tsentences\twords\n1\t2\t31\n3\t3\t45\n6\t2\t40\n' > "$R/long-set.tsv"
mkdir -p "$R/long" "$R/share" "$R/counterpart"
printf '%s\n' "$H" \
  'general	BLEU	2	38.00	0.71	-	-	-	-	-	-	-	-	-	37.50,38.50' \
  'general-identity	BLEU	2	38.20	0.30	+0.20	-0.10	+0.50	0.2000	0.2000	+0.00	+0.40	0.0100	yes	38.00,38.40' \
  > "$R/counterpart/general-identity.tsv"
tsv "$R/silver.tsv" <<'EOF2'
id seed lr reading aer precision recall predicted sure possible sentences
dot 1 0.001 argmax 40.00 60 60 100 100 100 10
dot 2 0.001 argmax 42.00 58 58 100 100 100 10
dot 1 0.001 shift 30.00 70 70 100 100 100 10
dot 2 0.001 shift 31.00 69 69 100 100 100 10
general 1 0.001 argmax 99.00 1 1 100 100 100 10
general 1 0.002 argmax 38.00 62 62 100 100 100 10
general 2 0.002 argmax 39.00 61 61 100 100 100 10
none 1 0.001 argmax - - - - - - -
EOF2
# Alignment along training: dot's second seed read at two validations' models.
printf 'id\tseed\tlr\tstep\taer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences\n%s\n%s\n' \
  'dot	2	0.001	3400	45.50	54	54	100	100	100	10' 'dot	2	0.001	1700	60.25	40	40	100	100	100	10' \
  > "$R/silver-curves.tsv"
# heed-align score --system on the kept links: against the family's baseline and the diagonal.
mkdir -p "$R/silver-compare"
printf '%s\n' "$H" \
  'dot	AER	2	41.00	1.41	-	-	-	-	-	-	-	-	-	40.00,42.00' \
  'general	AER	2	38.50	0.71	-2.50	-4.00	-1.00	0.0020	0.0020	-3.80	-1.20	0.9000	no	38.00,39.00' \
  > "$R/silver-compare/main.tsv"
printf '%s\n' "$H" \
  'diagonal	AER	1	40.67	-	-	-	-	-	-	-	-	-	-	40.67' \
  'dot	AER	2	41.00	1.41	+0.33	-0.40	+1.10	0.4000	0.4000	-0.30	+0.90	0.0300	yes	40.00,42.00' \
  'general	AER	2	38.50	0.71	-2.17	-3.00	-1.30	< 0.001	< 0.002	-2.90	-1.40	1.0000	no	38.00,39.00' \
  > "$R/silver-compare/diagonal.tsv"
printf 'baseline\taer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences\ndiagonal\t40.67\t61.51\t57.31\t11877\t12747\t12747\t1000\n' \
  > "$R/silver-baselines.tsv"
printf 'set\ttrained_on\treference\tlinks\taer\nhansards\tcorpus\tgold\tibm2\t18.12\nhansards-small\tsmall\tgold\tibm2\t20.63\n' \
  > "$TMP/alignment/silver.tsv"
# The Hansards study's comparisons on gold (heed-align score --system, margin 1).
printf '%s\n' "$H" \
  'dot	AER	2	20.24	0.78	-	-	-	-	-	-	-	-	-	19.69,20.79' \
  'general	AER	2	19.42	0.20	-0.82	-1.60	-0.10	0.0300	0.0600	-1.50	-0.20	0.0400	yes	19.56,19.28' \
  "# hierarchical bootstrap: 1000 resamples, each drawing every system's runs and one shared set of segments with replacement, the drawn runs' deviation from the system's mean times sqrt(n/(n-1)) for n runs (Rao & Wu 1988); seed 12345; baseline dot" \
  > "$TMP/alignment/compare/dot.tsv"
# aligner.tsv has no method line naming the rescaling: an older heed-align's, marked ‡.
printf '%s\n' "$H" \
  'ibm2	AER	1	14.50	-	-	-	-	-	-	-	-	-	-	14.50' \
  'general	AER	2	19.42	0.20	+4.92	+3.90	+6.00	< 0.001	< 0.001	+4.00	+5.80	1.0000	no	19.56,19.28' \
  > "$TMP/alignment/compare/aligner.tsv"
printf 'system\tseed\treason\n' > "$TMP/alignment/compare/left-out.tsv"
printf '%s\n' "$H" \
  'one-by-one	BLEU	2	32.50	0.71	-	-	-	-	-	-	-	-	-	32.00,33.00' \
  'whole	BLEU	2	30.50	0.71	-2.00	-3.00	-1.00	0.0010	0.0010	-2.80	-1.20	0.9900	no	30.00,31.00' \
  > "$R/long/dot.tsv"
printf '%s\n' "$H" \
  'dot	BLEU	2	30.50	0.71	-	-	-	-	-	-	-	-	-	30.00,31.00' \
  'general	BLEU	2	31.00	0.71	+0.50	-0.50	+1.50	0.3000	0.6000	-0.30	+1.30	0.4000	no	30.50,31.50' \
  > "$R/compare/main.long.tsv"
printf '# cpu: Test CPU\n# model: dot, bi-LSTM 256+256\nphase\tms\tshare\tgflop\tgflops\tpeak_fraction
attention\t40.0\t0.200\t1\t1\t0.1\nupdate\t200.0\t1.000\t5\t5\t0.5\n# target tokens per second: 5000\n' > "$R/share/dot.train.r1.tsv"
printf 'phase\tms\tshare\tgflop\tgflops\tpeak_fraction\nattention\t50.0\t0.200\t1\t1\t0.1\nupdate\t220.0\t1.000\t5\t5\t0.5\n' > "$R/share/dot.train.r2.tsv"
printf '# cpu: Test CPU\n# decoding: beam 1, batch 64\nphase\tus_per_step\tshare\tgflop_per_step\tgflops\tpeak_fraction
attention\t500.0\t0.100\t1\t1\t0.1\nstep\t5000.0\t1.000\t5\t5\t0.5\n' > "$R/share/dot.greedy.tsv"
# The pooling study's tables (question 3), as heed-pooling writes them.
mkdir -p "$TMP/pooling"
pooling_header='task\tT\ttrain\tmodel\tlr\tsolved\tsteps_to_solve\tsteps\tbest_accuracy\tfinal_accuracy\tfinal_mse\ttransfer\tparams\tseconds\tbudget_steps\tstop_after\tnote'
printf "$pooling_header\naddition\t50\tfixed\tff-pool\t0.01\tyes\t2000\t2000\t1.0000\t1.0000\t0.00003\t-\t10602\t26.5\t100000\t0\t-\n" \
  > "$TMP/pooling/fixed-short.tsv"
printf "$pooling_header\naddition\t100\tmarkers:1-20\tdense\t0.0003\tyes\t3000\t3000\t1.0000\t1.0000\t0.00100\tmarkers 20-54:0.1550\t1000501\t1.0\t20000\t0\t-\n" \
  > "$TMP/pooling/generalisation-markers.tsv"
# The dense controls: two rates of the flattened layer at T = 500 (neither solved), the per-step
# reading at 500 and, at one rate, at 5,000 (controls-long).
printf "$pooling_header\naddition\t500\tfixed\tdense\t0.01\tno\t-\t20000\t0.7000\t0.0000\t0.50000\t-\t5500501\t9.0\t20000\t0\t-\naddition\t500\tfixed\tdense\t0.0003\tno\t-\t20000\t0.9980\t0.9900\t0.00010\t-\t5500501\t9.0\t20000\t0\t-\naddition\t500\tfixed\tdense-mean\t0.01\tyes\t1000\t1000\t1.0000\t1.0000\t0.00001\t-\t20601\t1.0\t20000\t0\t-\naddition\t500\tfixed\tdense-mean\t0.0003\tno\t-\t1000\t0.1670\t0.1670\t0.04000\t-\t20601\t1.0\t20000\t1000\t-\n" \
  > "$TMP/pooling/controls-short.tsv"
printf "$pooling_header\naddition\t5000\tfixed\tdense-mean\t0.01\tyes\t2000\t2000\t1.0000\t1.0000\t0.00001\t-\t20601\t9.0\t20000\t0\t-\n" \
  > "$TMP/pooling/controls-long.tsv"

TEMPLATE=$SRC/experiments/ablation/ablation.md.j2
report "the generator" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page.md"
[ -s "$TMP/page.md" ] || { echo "FAIL: no page written" >&2; exit 1; }
[ -e "$TMP/page.md.tmp" ] && fail "a temporary file was left"
grep -nE '\{\{|\{%|\{#|%\}|#\}' "$TMP/page.md" && fail "template syntax left in the page"
grep -nE 'None($|[^-])' "$TMP/page.md" && fail "a figure printed as None"  # the literature's "None-State" is a name
expect "status line, failed runs counted" '^\*\*Status: 13 of 18 runs done \(2 failed: '
expect "mean ± sd over seeds, per test set and pooled" '^\| `dot` \| 512 \| 2 of 2 \| 41\.00 ± 1\.41 \| 31\.00 ± 1\.41 \| 37\.00 ± 1\.41 \|$'
expect "the chosen learning rate's runs, not the others" '^\| `general` \| 512 \| 2 of 2 \| 41\.50 ± 0\.71 \| 33\.50 ± 0\.71 \| 38\.00 ± 0\.71 \|$'
expect "chrF table" '^\| `additive` \| 512 \| 1 of 2 \| 61\.00 \| 51\.00 \| 56\.90 \|$'
grep -q '^| `none` | 512 |' "$TMP/page.md" && fail "a failed run's configuration got a score row"
expect "training: lr, ppl, updates, early stops" '^\| `general` \| 0\.002 \| 5\.05 ± 0\.07 \| 5,525 \| 4,675 \| 0 of 2 \| 41\.10 ± 0\.14 \| 22\.0 \| 4,850 \|$'
expect "training: a configuration at the rate of the check that sets it (plan.tsv's chosen:general)" \
  '^\| `general-identity` \| 0\.002 \| 4\.90 \| 5,100 \| 4,250 \| 0 of 1 \|'
expect "training: early stop counted" '^\| `additive` \| 0\.001 \| 5\.15 \| 850 \| 850 \| 1 of 1 \|'
# Each cell: the best validation perplexity (it chooses), then the validation BLEU there.
expect "lr check table, the winner at the edge of the grid" '^\| `general` \| 5\.20 / 39\.00 \| 5\.00 / 41\.00 \| 0\.002 \(the highest rate tried\) \|$'
expect "lr check: a failed run" '^\| `dot` \| 5\.10 / 40\.00 \| failed \| 0\.001 \|$'
expect "lr check unfinished" '^\| `additive` \| 5\.15 / 39\.50 \| — \| 0\.001 \(check unfinished\) \|$'
expect "a rate carried to another width, checked there" \
  '^\| `dot-h256` \| 256 \| 0\.001 \(`dot`.s\) \| 5\.90 / 37\.00 \(0\.001\) \| 5\.70 / 38\.00 \(0\.002\) \| 0\.002 \(the highest rate tried\) \|$'
grep -q '^| `dot-h256` | 5\.90' "$TMP/page.md" && fail "a carried check in the core scorers' table"
expect "lr check: the BLEU would choose the same rates" '^  would have chosen the same rates \(\[Learning-rate check\]'
# Where the validation BLEU would choose another rate than the perplexity, the limits say so.
cp "$R/runs.tsv" "$TMP/runs.kept"
awk -F'\t' -v OFS='\t' '$1 == "general" && $3 == 1 && $4 == "0.001" { $12 = "42.0" } 1' "$TMP/runs.kept" > "$R/runs.tsv"
report "lr check: BLEU disagrees" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page-bleu.md"
grep -qF 'would have chosen another for `general` (0.001: 42.00 against 41.00 at 0.002) ([Learning-rate check]' \
  "$TMP/page-bleu.md" || fail "lr check: BLEU disagrees: $(grep -F 'would have chosen' "$TMP/page-bleu.md")"
cp "$TMP/runs.kept" "$R/runs.tsv"
expect "training: a configuration at its width's check (plan.tsv's chosen:dot*1 and chosen)" \
  '^\| `dot-h256` \| 0\.002 \| 5\.70 \| 5,950 \|'
expect "verdict: differs" '^- `general` against `dot`: differs: 1\.00 BLEU higher \[\+0\.40, \+1\.60\] \(Holm p = 0\.0040\) \(provisional: 2 and 2 runs\); chrF level: within ±0\.5 chrF \(TOST p = 0\.0400\), though not identical: \+0\.30 \[\+0\.10, \+0\.50\], Holm p < 0\.001 \(provisional: 2 and 2 runs\)$'
expect "verdict: level, one run marked" '^- `additive` against `dot`: level: within ±0\.5 BLEU \(TOST p = 0\.0100\); -0\.10 \[-0\.30, \+0\.20\] \(†\); chrF undecided: -0\.80 \[-2\.00, \+0\.50\]; neither a difference \(Holm p = 0\.3000\) nor equivalence within ±0\.5 chrF \(TOST p = 0\.6000\) \(†\)$'
expect "verdict: not compared yet" '^- `general-bahdanau` against `dot-bahdanau` \(0\.001 against 0\.002\): not compared yet \(`general-bahdanau` has 0 finished runs, `dot-bahdanau` 0\)'
expect "verdict: a family joined" '^- `general-bahdanau` against `dot-bahdanau-fast` \(0\.001 against 0\.004\): undecided: \+0\.50 \[-0\.20, \+1\.20\]'
expect "comparison table: a family joined" '^\| `general-bahdanau` \| pooled \| \+0\.50 \[-0\.20, \+1\.20\] \| \[-0\.53, \+1\.53\] \| 0\.1500 \| 0\.8000 \| undecided, provisional \|'
expect "verdict: over seeds alone, the TOST p adjusted, provisional on three runs a side" \
  '^- `general-bahdanau` against `dot-bahdanau-fast` \(0\.001 against 0\.004\): undecided: \+0\.50 \[-0\.20, \+1\.20\]; neither a difference \(Holm p = 0\.1500\) nor equivalence within ±0\.5 BLEU \(TOST p = 0\.8000\); over seeds alone \[-0\.53, \+1\.53\] \(provisional: 3 and 3 runs\)'
expect "comparison table: its baseline's rate fixed" '^#### `bahdanau-fast`: against `dot-bahdanau-fast`$'
expect "verdict: the sweep's family baseline" '^- `mh1-a128` against `additive-a128`: undecided: \+1\.00 \[-0\.50, \+2\.50\]'
expect "comparison table row" '^\| `general` \| pooled \| \+1\.00 \[\+0\.40, \+1\.60\] \| — \| 0\.0040 \| 0\.9000 \| differs, provisional \| \+0\.30 \[\+0\.10, \+0\.50\] \| — \| < 0\.001 \| 0\.0400 \| level, provisional \|$'
expect "comparison table: one run marked" '^\| `additive` \| pooled \| .* \| level † \| .* \| undecided † \|$'
grep -q '^| `general` | test2016 |' "$TMP/page.md" && fail "a comparison row without its file"
expect "family not compared yet" '^_Not compared yet: `dot-bahdanau` and at least one other need finished runs\._$'
expect "arrangements table" '^\| `general` \| 0\.001 \| — \| — \|$'
expect "arrangements table: a scorer at two rates" '^\| `dot` \| 0\.004 \| — \| — \|$'
expect "sweep table" '^\| `mh1` \| 31\.00 \(1\) \|$'
expect "skipped table" '^\| `dot-concat` \| heed-train: error: --decoder: unknown value .concat. \|$'
expect "cost labelled with its mode" '^\(`--mode all-steps --pass forward-backward`, bf16, batch 64, 20 target steps, 2 threads\):$'
expect "cost table" '^\| `dot` \| 2\.00 \| 10\.00 \| — \|$'
expect "working buffers in MB" '^\| `additive` \| 20\.0 \| 151\.0 \|$'
expect "cost ratio" '`additive` over `dot` 4\.0× at S = 10 and$'
expect "cost file not there" '^_Not measured \(the cost stage has not run\)\._$'
expect "test sets with their sizes" 'Test sets: test2016 \(1,000 sentences\), test2017 \(500 sentences\);$'
expect "learning-rate check in the setup" 'times each of 2; the rate with the lowest'
expect "changes to the protocol printed under the setup" '^- \*\*Changes during the study\*\* \(`protocol-changes.md`\): the grid was widened$'
expect "answers' places, before they are written" '^_The answer is written once the study has finished; the evidence so far:_$'
expect "the design's limits, with the fixture's corpus and budget" 'One corpus, `[^`]*` \(de → en\)'
expect "the design's limits: the budget" '^  [0-9,]+ updates with early stopping; a run whose best validation$'
expect "machine and minutes" '^- \*\*Machine:\*\* cpu: Test CPU \(2 cores visible\); memory: 1 GiB\. Training took 190 minutes'
expect "saturation on the trained models: the chosen rate's runs, mean over seeds" '^\| `dot` \| 2 \| 0\.35 \| 0\.65 \| 2\.50 \| 0\.000 \| 0\.025 \|$'
grep -q '^| `general` | 1 | 0\.99' "$TMP/page.md" && fail "saturation: a run at the rate not chosen"
expect "saturation: random vectors at the models' width only" '^\| random tanh vectors, `dot`, d = 512, S = 20 \| — \| 0\.17 \| 0\.85 \| — \| — \| 0\.004 \|$'
grep -q 'd = 64, S = 20' "$TMP/page.md" && fail "saturation: random vectors of another width"
expect "long inputs described, and the lengths not probed" \
  "^3 inputs of 31–45 source words \\(median 40\\), each 2–3 consecutive sentences of test2016 joined \\(sentences are joined until an input has 30 words, and one past 80 is left out: with this corpus's sentences no input is longer than 45, so 46–80 words are not probed\\); of the 29,000 training sentences 29 have 30 source words or more, the longest 39\\. "
expect "long inputs table" '^\| `dot` \| 2 \| 32\.50 ± 0\.71 \| 30\.50 ± 0\.71 \| -2\.00 \[-3\.00, -1\.00\] \| differs, provisional \| — \|$'
expect "answer 2's evidence: against dot on the longest group" \
  '^- `general` against `dot` on the longest sentences \(10 source words, 300 sentences; \[by source length\]\(#by-source-length\)\): \+0\.40 \[-0\.20, \+1\.00\] BLEU \(exploratory\)$'
expect "BLEU by source length: the groups" '^\| configuration \| 3–9 words \(1,200\) \| 10 words \(300\) \|$'
expect "BLEU by source length: mean ± sd of the compared runs" '^\| `dot` \| 36\.00 ± 1\.00 \| 38\.00 ± 2\.00 \|$'
expect "BLEU by source length: one run, and a group without the configuration" '^\| `additive` \| 35\.00 \| — \|$'
expect "BLEU by source length: against the baseline" '^\| `general` \| \+1\.50 \[\+0\.50, \+2\.50\] \| \+0\.40 \[-0\.20, \+1\.00\] \|$'
expect "BLEU by source length: against the baseline, one run" '^\| `additive` \| -1\.00 \[-2\.00, \+0\.10\] † \| — \|$'
expect "the limits: how early whole translations stop, from long-length.tsv" \
  "^  whole, they come out 0\.94–0\.98 of the reference's length and end 1\.0 sentences per input \(one by one: 2\.3\); the brevity penalty is most of the loss in log BLEU for \`dot\`, \`general\` \(63–81 %\), for which the probe measures where a model trained on single sentences stops more than how its attention reads a long input \(Long inputs, \"Where the loss goes\"\)\. Made to go on to about the expected length \(Long inputs, \"Made to go on\"\), they reach 21\.0 BLEU, against 31\.5–32\.5 one by one\. So the question \"especially for long sequences\" stays open$"
expect "the limits: the longest input probed, and the driver on any corpus" \
  '^  beyond the longest input probed \(45 source words\): no corpus of long$'
# dot: 20/0.89 = 22.47 and 22/0.91 = 24.18 without the penalty; sentence ends: "a man..\".." one
# (at the line's end; a '.' before '.' or '"' ends none), "1.5" none, "a cat! a dog" one: 2 in 3.
expect "beam search: the runs with a beam row, beside their greedy BLEU" \
  '^\| `dot` \| 2 \| 37\.00 ± 1\.41 \| 38\.00 ± 1\.41 \| \+1\.00 ± 0\.00 \| 58\.00 ± 1\.41 \| 0\.97 ± 0\.00 \| — \| — \| — \|$'
expect "beam search: against the baseline, greedy and beam, on the same runs" \
  '^\| `general` \| 2 \| 38\.00 ± 0\.71 \| 38\.75 ± 1\.06 \| \+0\.75 ± 0\.35 \| 58\.50 ± 0\.71 \| 0\.98 ± 0\.00 \| \+1\.00 \[-0\.10, \+2\.10\] \| \+0\.75 \[\+0\.25, \+1\.25\] \| -0\.25 \[-1\.30, \+0\.80\] \(Holm p = 0\.6000\) \|$'
expect "the limits: what the beam changes" \
  '^  search\]\(#greedy-and-beam-search\)\): beam 5 adds 0\.75–1\.00 BLEU to a configuration.s mean on the pooled test sets; of 1 comparisons with a baseline, 0 keep the verdict greedy decoding gives the same runs \(`general` undecided, provisional → differs, provisional\)\. The check covers the runs that have a$'
expect "answer 1's evidence: the beam beside greedy on the same runs" \
  '^- `general` against `dot` with beam 5 \(the runs with a model; \[greedy and beam search\]\(#greedy-and-beam-search\)\): \+0\.75 \[\+0\.25, \+1\.25\] BLEU \(exploratory, 2 and 2 runs\); greedy, the same runs: \+1\.00 \[-0\.10, \+2\.10\]; the beam.s change of the difference: -0\.25 \[-1\.30, \+0\.80\] BLEU \(Holm p = 0\.6000\)$'
expect "long inputs made to go on: the least length said" '^sentence held back until 0\.9 × the training text'"'"'s$'
expect "long inputs made to go on" \
  '^\| `dot` \| 2 \| 32\.50 ± 0\.71 \| 30\.50 ± 0\.71 \| 21\.00 ± 1\.41 \| 0\.7 ± 0\.0 \| 0\.91 ± 0\.01 \| 23\.32 ± 1\.20 \| — \|$'
expect "long inputs made to go on: one run, against the baseline" \
  '^\| `general` \| 1 \| 31\.50 \| 31\.00 \| 21\.00 \| — \| 0\.95 \| 22\.11 \| level: within ±0\.5 BLEU'
expect "long inputs: where the loss goes" \
  '^\| `dot` \| 2 \| 1\.0 ± 0\.0 / 2\.3 ± 0\.0 \| 0\.94 ± 0\.01 / 1\.00 ± 0\.01 \| 0\.95 ± 0\.01 / 1\.00 ± 0\.00 \| 32\.10 ± 0\.27 / 32\.50 ± 0\.71 \| 81 % \|$'
expect "long inputs: where the loss goes, the chosen rate's run alone" \
  '^\| `general` \| 1 \| — \| 0\.98 / 1\.00 \| 0\.99 / 1\.00 \| 31\.31 / 31\.50 \| 63 % \|$'
expect "long inputs against the baseline, the chosen rate's runs" '^\| `general` \| 1 \| 31\.50 \| 31\.00 \| — \| — \| undecided: \+0\.50 \[-0\.50, \+1\.50\]'
expect "share table: medians over the rounds, the whole's range" '^\| `dot` \| 210\.0 \(200–220\) \| 45\.0 \(20 %\) \| 5,000\.0 \| 500\.0 \(10 %\) \| — \| — \| — \|$'
expect "share setup from the files" 'run them \(cpu: Test CPU; decoding: beam 1, batch 64; model: bi-LSTM 256\+256; 2 interleaved rounds\):$'
expect "silver AER, the chosen rate's runs; against the diagonal, level" \
  '^\| `dot` \| 2 \| 41\.00 ± 1\.41 \| 30\.50 ± 0\.71 \| — \| \+0\.33 \[-0\.40, \+1\.10\] level, provisional \|$'
expect "silver: against the baseline and the diagonal, with intervals (the diagonal has one run: †)" \
  '^\| `general` \| 2 \| 38\.50 ± 0\.71 \| — \| -2\.50 \[-4\.00, -1\.00\] differs, provisional \| -2\.17 \[-3\.00, -1\.30\] differs, provisional \|$'
grep -q '^| `general` | 1 | 99' "$TMP/page.md" && fail "silver: a run at the rate not chosen"
expect "silver: the diagonal baseline" '^\| diagonal \(every target word to the source word at its relative position\) \| — \| 40\.67 \| — \| — \| — \|$'
expect "answer 1's evidence: the alignment against dot's, from the silver comparisons" \
  "^- \`general\`'s attention as alignment .*, against \`dot\`'s: differs: 2\.50 AER lower \[-4\.00, -1\.00\] \(Holm p = 0\.0020\) \(provisional: 2 and 2 runs\)$"
expect "answer 1's evidence: the alignment against the diagonal's" \
  "^- \`dot\`'s against the diagonal's: level: within ±1 AER \(TOST p = 0\.0300\); \+0\.33 \[-0\.40, \+1\.10\] \(provisional: 2 runs\)$"
expect "answer 1's evidence: the attention on gold against dot's (the Hansards study)" \
  "^- \`general\`'s attention as alignment on gold .*, against \`dot\`'s: level: within ±1 AER \(TOST p = 0\.0400\); -0\.82 \[-1\.60, -0\.10\] \(provisional: 2 and 2 runs\)$"
expect "answer 1's evidence: on gold against the classic aligner, named; the diagonal not compared yet" \
  "^- \`general\`'s on gold against the classic aligner's: differs: 4\.92 AER higher \[\+3\.90, \+6\.00\] \(Holm p < 0\.001\) \(provisional: 2 runs\) \(against \`ibm2\`\) ‡; against the diagonal's: not compared yet "
expect "the mark of an interval from before the rescaled run draws, explained" \
  "^\(exploratory\)\. ‡ marks an interval on the Hansards gold$"
expect "alignment along training: the run's AER at each update, in order" \
  '^\| 1,700 \| 60\.25 \|$'
expect "alignment along training: the second row" '^\| 3,400 \| 45\.50 \|$'
expect "alignment along training: the run named" '^\| updates \| `dot` \(seed 2, lr 0\.001\) \|$'
expect "alignment along training: lowest, last and the kept model (update 6,800, not read)" \
  '^AER along training: `dot` lowest 45\.50 at update 3,400, 45\.50 at the last read \(3,400\); the model it keeps \(update 6,800\) not read\.$'
expect "silver: the comparisons' margin from the settings" 'level\* within ±1 AER \(TOST\)'
expect "silver against gold, from the Hansards study" 'the same recipe.s links score 18\.12$'
# W_a's distance from αI is not shown (basis-dependent): parameters.tsv's identity and residual
# columns stay off the page, and a run with nothing else learned has no row.
sed -n '/^### What the scorers/,/^### Saturation/p' "$TMP/page.md" | grep -qE '^\| `(dot|general(-identity)?)` \|' &&
  fail "what the scorers learned: W_a's distance from a scaled identity shown"
grep -q '‖W_a − αI‖ / ‖W_a‖ =' "$TMP/page.md" && fail "W_a's distance from αI quoted"
expect "answer 1's evidence: general from the identity against general" \
  '^- `general-identity` \(W_a started at the identity, that is at `dot`\) against `general` \(from a random start\): BLEU level: within ±0\.5 BLEU \(TOST p = 0\.0100\); \+0\.20 \[-0\.10, \+0\.50\] \(provisional: 2 and 2 runs\) \(against `general`\)$'
expect "mechanistic check against its counterpart" '^\| `general-identity` \| `general` \| level: within ±0\.5 BLEU \(TOST p = 0\.0100\); \+0\.20 \[-0\.10, \+0\.50\] \(provisional: 2 and 2 runs\) \| — \|$'
expect "literature box" '^### In the literature$'
expect "question 3: the paper's table beside the pooling study's run (2,000 updates: 2 epochs)" \
  '^\| addition \| `ff-pool` \| 1 / 2 \| 1 / — \| 1 / — \| 1 / — \| 2 / — \| 3 / — \|$'
expect "question 3: the dense controls, the flattened layer's best rate where none solved" \
  '^\| addition \| `dense` \| fixed \| no: 99\.8 % \(lr 0\.0003, 20,000 updates\) \|  \|$'
expect "question 3: the per-step reading at T = 5,000 from controls-long, its one rate said" \
  '^\| addition \| `dense-mean` \| fixed \| \*\*1,000\*\* \(lr 0\.01\) \| \*\*2,000\*\* \(lr 0\.01\) \(1 of 2 rates\) \|$'
expect "question 3: the positions test" \
  '^\| addition \| `dense` \| 0\.0003 \| 3,000 \| 100\.0 % \| markers 20-54: 15\.5 % \|$'
for plot in curves_ppl curves_bleu sweep silver_curves by_length; do
  expect "plot $plot linked" "^!\[$plot\]\(results/${plot//_/-}\.svg\)$"
done
for svg in curves-ppl curves-bleu sweep silver-curves by-length; do
  # Well-formed SVG whose text is text (the legend's names), not glyphs drawn as paths.
  "$PY" - "$R/$svg.svg" <<'EOF2' || fail "$svg.svg is not an SVG with its legend as text"
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
sys.exit(root.tag != "{http://www.w3.org/2000/svg}svg" or not ("dot (2 seeds, lr 0.001)" in texts or "mh1" in texts
                                                        or "dot (seed 2, lr 0.001)" in texts
                                                        or "dot (2 runs)" in texts))
EOF2
  cp "$R/$svg.svg" "$TMP/$svg.first"
done
grep -q 'general (1 seed' "$R/curves-ppl.svg" && fail "curves: a run at the learning rate not chosen"
grep -q 'dc:date' "$R/curves-ppl.svg" && fail "the SVG carries a date"
cp "$TMP/page.md" "$TMP/page.first"
report "a second run" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page.md"
for svg in curves-ppl curves-bleu sweep silver-curves by-length; do
  cmp -s "$R/$svg.svg" "$TMP/$svg.first" || fail "$svg.svg differs from one run to the next"
done
cmp -s "$TMP/page.md" "$TMP/page.first" || fail "the page differs from one run to the next"

# A result file missing: named, and the page is left as it was.
mv "$R/runs.tsv" "$TMP/runs.tsv"
report "runs.tsv missing" 66 --results "$R" --template "$TEMPLATE" --output "$TMP/page.md"
error "runs.tsv missing" "results/runs\.tsv not found \(the Snakefile's rule ablation_run writes it\)$"
cmp -s "$TMP/page.md" "$TMP/page.first" || fail "runs.tsv missing: the page was changed"
mv "$TMP/runs.tsv" "$R/runs.tsv"
report "template missing" 66 --results "$R" --template "$TMP/none.j2" --output "$TMP/page.md"
error "template missing" "none\.j2 not found$"
# A probe's row of a run without greedy scores: named, and the page is left as it was.
cp "$R/beam.tsv" "$TMP/beam.tsv"
printf 'dot\t3\t0.001\t5\t40.00\t60.00\t0.98\t0.98\n' >> "$R/beam.tsv"
printf 'dot\tmain\t3\t0.001\t512\tok\t6800\tbudget\t5.2\t6800\t5950\t40\t21\t5000\tX\n' >> "$R/runs.tsv"
report "beam row without scores" 65 --results "$R" --template "$TEMPLATE" --output "$TMP/page.md"
error "beam row without scores" "dot seed 3 lr 0\.001: probed, but no pooled BLEU in scores\.tsv$"
cmp -s "$TMP/page.md" "$TMP/page.first" || fail "beam row without scores: the page was changed"
cp "$TMP/beam.tsv" "$R/beam.tsv"
sed -i '$d' "$R/runs.tsv"

# Runs on two CPUs, one of them a run under two names (a configuration whose options fix the
# rate repeating another's run): the CPUs counted, the pair's figures side by side, and one CPU
# alone says nothing of CPUs.
cp "$R/runs.tsv" "$TMP/runs.one-cpu"
cp "$R/scores.tsv" "$TMP/scores.one-cpu"
printf 'dot-bahdanau\tbahdanau\t1\t0.004\t256\tok\t6800\tbudget\t6.50\t6800\t6800\t30\t11\t9000\tX\n' >> "$R/runs.tsv"
printf 'dot-bahdanau-fast\tbahdanau\t1\t0.004\t256\tok\t6800\tbudget\t6.48\t6800\t6800\t30\t11\t9000\tY\n' >> "$R/runs.tsv"
for t in test2016 test2017 pooled; do
  printf 'dot-bahdanau\t1\t0.004\t%s\t30.00\t50.00\n' "$t"
  printf 'dot-bahdanau-fast\t1\t0.004\t%s\t30.25\t50.50\n' "$t"
done >> "$R/scores.tsv"
report "two CPUs" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page-cpus.md"
grep -qE 'updates do not\)\. The runs trained on 14 on X and 1 on Y: oneDNN chooses its kernels by CPU' \
  "$TMP/page-cpus.md" || fail "two CPUs: the runs per CPU not stated"
grep -qF '`dot-bahdanau-fast` seed 1 is `dot-bahdanau` seed 1 at 0.004 again under another name, on Y where that ran on X: best validation perplexity 6.50, then 6.48; pooled BLEU 30.00, then 30.25; chrF 50.00, then 50.50 (what the kernels change in one whole run).' \
  "$TMP/page-cpus.md" || fail "two CPUs: the same run on two CPUs not set side by side"
grep -q 'prediction interval of one more seed' "$TMP/page-cpus.md" && fail "two CPUs: a spread without other seeds"
# A second seed of the repeating configuration on the same CPU: its figures beside the pair.
printf 'dot-bahdanau-fast\tbahdanau\t2\t0.004\t256\tok\t6800\tbudget\t6.61\t6800\t6800\t30\t11\t9000\tY\n' >> "$R/runs.tsv"
for t in test2016 test2017 pooled; do printf 'dot-bahdanau-fast\t2\t0.004\t%s\t29.50\t49.90\n' "$t"; done >> "$R/scores.tsv"
report "two CPUs, a second seed" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page-cpus.md"
# On Y: perplexity 6.48, 6.61 (6.545 ± 0.092), BLEU 30.25, 29.50 (29.875 ± 0.530); X's run,
# 6.50 and 30.00, lies −0.49 and +0.24 sd away; one more of two runs: t(1) · √1.5 = 15.56 sd.
grep -qF "On Y \`dot-bahdanau-fast\`'s 2 runs reach best validation perplexity 6.54 ± 0.09 and pooled BLEU 29.88 ± 0.53; the X run lies -0.5 and 0.2 of their standard deviations from their means, inside the 95 % prediction interval of one more seed (±15.56 standard deviations with 2 runs)" \
  "$TMP/page-cpus.md" || fail "two CPUs: the seeds' spread not beside the pair: $(grep -o 'On Y.*' "$TMP/page-cpus.md")"
sed -i '$d' "$R/runs.tsv"
head -n -3 "$R/scores.tsv" > "$TMP/scores.cut" && cp "$TMP/scores.cut" "$R/scores.tsv"
sed -i '$s/\tY$/\tX/' "$R/runs.tsv"
sed -i 's/^\(dot-bahdanau-fast\t1\t0\.004\t[a-z0-9]*\t\)30\.25\t50\.50$/\130.00\t50.00/' "$R/scores.tsv"
sed -i '$s/\t6\.48\t/\t6.50\t/' "$R/runs.tsv"
report "one run twice on one CPU" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page-cpus.md"
grep -qF 'then 50.00 (the same to the last digit).' "$TMP/page-cpus.md" ||
  fail "one run twice on one CPU: not said to repeat"
grep -q 'The runs trained on' "$TMP/page-cpus.md" && fail "one CPU: CPUs counted"
grep -q 'The runs trained on' "$TMP/page.md" && fail "the fixture (one CPU): CPUs counted"
cp "$TMP/runs.one-cpu" "$R/runs.tsv"
cp "$TMP/scores.one-cpu" "$R/scores.tsv"

# A template asking for what the results do not hold: an error with the template's line.
bad() {  # name code stderr-pattern template-text
  printf 'line one\n%s\n' "$4" > "$TMP/bad.j2"
  report "$1" "$2" --results "$R" --template "$TMP/bad.j2" --output "$TMP/bad.md"
  error "$1" "$3"
  [ -e "$TMP/bad.md" ] && fail "$1: a page was written"
}
bad "unknown configuration" 65 "bad\.j2:2: unknown configuration 'dott'$" "{{ r.bleu('dott') | pm }}"
bad "unknown test set" 65 "bad\.j2:2: unknown test set 'test2019' " "{{ r.bleu('dot', 'test2019') | pm }}"
bad "unknown metric" 65 "bad\.j2:2: unknown metric 'TER' " "{{ r.verdict('general', 'pooled', 'TER') }}"
bad "unknown mechanism" 65 "bad\.j2:2: unknown attention mechanism 'dott'$" "{{ r.cost('dott', 20) | num }}"
bad "unknown setting" 65 "bad\.j2:2: .*'stpes'" "{{ r.settings.stpes }}"
bad "unknown table" 65 "bad\.j2:2: .*'mian'" "{{ tables.mian }}"
bad "a number without a format" 65 "bad\.j2:2: 5\.1 printed without a format" "{{ r.ppl('dot')[0] }}"
bad "template syntax" 65 "bad\.j2:2: " "{{ r.bleu('dot') | pm }"
bad "unknown family" 65 "bad\.j2:2: 'dot' is not compared in family 'bahdanau-fast'$" "{{ r.verdict('dot', 'pooled', 'BLEU', 'bahdanau-fast') }}"

# The answers written by hand for this study's results (RESULTS/answers.md.j2, a macro each):
# each in its place above its evidence, its figures from the results; without the file, the
# evidence alone (the page above). A macro the page does not know, or an error in one, names the
# answers file and its line.
printf '%s\n' "{% macro dot_weights() %}" \
  "A learned W_a buys {{ r.cmp('general').interval }} BLEU ({{ r.cmp('general').verdict_word }})." \
  "{% endmacro %}" "{% macro arrangements() %}" "Arrangements: {{ r.bleu('dot') | pm }}." \
  "Figures: {{ r.saturation_of('dot', 'entropy_fraction') | mean | num(2) }}, {{ r.cost_mb('additive', 500) | num(1) }} MB, {{ r.attention_share('dot') | num(2) }}, {{ r.attention_share('dot', 'beam5') | num(2) }}." \
  "{% endmacro %}" "{% macro _helper() %}not an answer{% endmacro %}" \
  "{% macro literature() %}Beside theirs: {{ r.long_part('dot', 'ratio_long') | mean | num(2) }}.{% endmacro %}" \
  "{% macro sweep() %}Done: {{ r.complete('core') }} {{ r.complete('sweep') }} {{ r.best_at_budget('dot') }}.{% endmacro %}" \
  "{% macro in_short() %}In short: dot − general {{ r.cmp('general').flipped().interval }}; a dense layer at unseen positions {{ r.pooling_transfer('addition', 'dense').value | num(1) }} % [{{ r.pooling_transfer('addition', 'dense').low | num(1) }}, {{ r.pooling_transfer('addition', 'dense').high | num(1) }}]; solved in {{ r.pooling_updates('fixed-short', 'addition', 'ff-pool', 50) | thousands }} updates.{% endmacro %}" \
  > "$R/answers.md.j2"
report "answers" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page-answers.md"
# Before the second setting has runs, its section says it is planned; with RESULTS-en-de beside
# RESULTS (here a copy of the fixture, en→de), its comparisons stand beside the first's, greedy /
# beam, and the limits name it.
grep -q '^Planned and not begun (`configs-en-de.tsv`' "$TMP/page-answers.md" ||
  fail "second setting: not said to be planned"
cp -r "$R" "$R-en-de"
sed -i 's/^src\tde$/src\ten/; s/^tgt\ten$/tgt\tde/' "$R-en-de/settings.tsv"
report "second setting" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page-second.md"
grep -qxF '| `general` | +1.00 [+0.40, +1.60] differs, provisional / +0.75 [+0.25, +1.25] | +1.00 [+0.40, +1.60] differs, provisional / +0.75 [+0.25, +1.25] |' "$TMP/page-second.md" ||
  fail "second setting: the comparisons side by side: $(grep -A6 'scorer − `dot`' "$TMP/page-second.md" | tr '\n' '|')"
grep -qF '| scorer − `dot` | de→en | en→de |' "$TMP/page-second.md" || fail "second setting: the directions"
grep -qF 'and the core comparison in a second direction' "$TMP/page-second.md" || fail "second setting: the limits"
rm -rf "$R-en-de"
grep -A4 -x '### 1\. Dot-product attention with no learned weights' "$TMP/page-answers.md" | tr '\n' '|' |
  grep -qxF '### 1. Dot-product attention with no learned weights||A learned W_a buys +1.00 [+0.40, +1.60] BLEU (differs, provisional).||_The evidence:_|' ||
  fail "answers: question 1's not in its place: $(grep -A3 -x '### 1\..*' "$TMP/page-answers.md")"
grep -q '^Arrangements: 37\.00 ± 1\.41\.$' "$TMP/page-answers.md" || fail "answers: no arrangements answer"
# The answers in short open the page, before the answers in detail: a comparison read the other
# way round (dot − general: the difference and interval negated), the pooling study's transfer
# accuracy with its Wilson interval over the 1,000 sequences (15.5 %: [13.4, 17.9]), and the
# updates its best rate took.
sed -n '/^## The answers in short$/,/^## The answers in detail$/p' "$TMP/page-answers.md" |
  grep -qxF 'In short: dot − general -1.00 [-1.60, -0.40]; a dense layer at unseen positions 15.5 % [13.4, 17.9]; solved in 2,000 updates.' ||
  fail "answers: the answers in short not first: $(grep -m1 -A4 'answers in short' "$TMP/page-answers.md")"
[ "$(grep -n -m1 '^## ' "$TMP/page-answers.md" | cut -d: -f2-)" = "## The answers in short" ] ||
  fail "answers: the first section is not the answers in short"
grep -A2 -x '#### The findings here beside theirs' "$TMP/page-answers.md" | tail -n 1 | grep -qxE 'Beside theirs: [0-9]+\.[0-9]{2}\.' ||
  fail "answers: no findings beside the literature's: $(grep -A2 'findings here' "$TMP/page-answers.md")"
# Whether a stage has all its planned runs (additive's second seed is missing), and how many of a
# configuration's runs were still improving at the budget (dot's second seed).
grep -q '^Done: False True 1\.$' "$TMP/page-answers.md" || fail "answers: stages done: $(grep '^Done' "$TMP/page-answers.md")"
# The figures the answers quote beyond the tables': the trained attention's statistics (mean over
# the compared runs), the working buffers in MB, attention's share of an update (median over the
# rounds; a mode not measured, a dash).
grep -q '^Figures: 0\.35, 151\.0 MB, 0\.20, —\.$' "$TMP/page-answers.md" ||
  fail "answers: figures: $(grep '^Figures' "$TMP/page-answers.md")"
expect_count() { [ "$(grep -c -- "$2" "$3")" = "$1" ] || fail "$4: '$2' $(grep -c -- "$2" "$3") times, not $1"; }
expect_count 1 '^_The answer is written once the study has finished' "$TMP/page-answers.md" "answers: question 2 not written"
printf '{%% macro answer_one() %%}x{%% endmacro %%}\n' > "$R/answers.md.j2"
report "answers: unknown name" 65 --results "$R" --template "$TEMPLATE" --output "$TMP/bad.md"
error "answers: unknown name" "answers\.md\.j2: no answer is called answer_one \(the page's: in_short, dot_weights, "
printf '{%% macro sweep() %%}\n{{ r.bleu(%s) | pm }}\n{%% endmacro %%}\n' "'dott'" > "$R/answers.md.j2"
report "answers: an error in one" 65 --results "$R" --template "$TEMPLATE" --output "$TMP/bad.md"
error "answers: an error in one" "answers\.md\.j2:2: unknown configuration 'dott'$"
rm "$R/answers.md.j2"

# saturation.py (the probes' statistics) on hand-worked rows: a one-hot row (entropy 0, a 0
# weight, no gradient through the softmax), [0.9, 0.1] (entropy 0.325083, fraction 0.468996,
# score spread ln 9 / 2 = 1.098612) and a uniform row of 4 (entropy ln 4, fraction 1, spread 0).
SAT=$SRC/experiments/ablation/saturation.py
exit_of() { "$PY" "$@" > /dev/null 2> "$TMP/err"; echo $?; }  # SCRIPT ARGS: its exit code; stderr in $TMP/err
printf '{"id": 0, "weights": [[1, 0], [0.9, 0.1]]}\n{"id": 1, "weights": [[0.25, 0.25, 0.25, 0.25]]}\n' > "$TMP/soft.jsonl"
got=$("$PY" "$SAT" --header "$TMP/soft.jsonl" | cut -f1-7 | tr '\t\n' ' |')
[ "$got" = "rows source_median entropy entropy_fraction max_weight score_sd zero_rows|3 2 0.570459 0.489665 0.716667 0.549306 0.333333|" ] ||
  fail "saturation.py: $got"
printf '{"id": 0, "weights": [[0, 1, 0], [1, 0]]}\n' > "$TMP/soft.jsonl"
got=$("$PY" "$SAT" "$TMP/soft.jsonl" | cut -f3,6-9)
[ "$got" = "$(printf '0\tnan\t1\t0\t0')" ] || fail "saturation.py, one-hot rows: $got"
printf '{"id": 0, "weights": [[0.5, 0.5]]}\n{"id": 1, "weights": [[1.5, 0]]}\n' > "$TMP/soft.jsonl"
got=$(exit_of "$SAT" "$TMP/soft.jsonl")
[ "$got" = 65 ] && grep -qx "saturation.py: $TMP/soft.jsonl:2: a row of weights outside \[0, 1\]" "$TMP/err" ||
  fail "saturation.py, a bad row: exit $got, $(head -c 200 "$TMP/err")"

# parameters.py on a hand-made model file (safetensors, as heed writes it): log τ = ln 4 at hidden
# 16 (τ 4, τ/√16 = 1); W_a = [[2, 1], [0, 2]]: α = tr/d = 2, ‖W − 2I‖ / ‖W‖ = 1/3. A file that is
# no model: 65, naming it; a missing one: 66.
PARAMS=$SRC/experiments/ablation/parameters.py
"$PY" - "$TMP/model.heed" <<'EOF2'
import json, math, struct, sys
tensors = [("decoder/attention/log_temperature", [1], [math.log(4)]),
           ("decoder/attention/weight", [2, 2], [2, 1, 0, 2])]
header, data = {"__metadata__": {"config": json.dumps({"hidden": 16})}}, b""
for name, shape, values in tensors:
    blob = struct.pack(f"<{len(values)}f", *values)
    header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + len(blob)]}
    data += blob
text = json.dumps(header).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + data)
EOF2
got=$("$PY" "$PARAMS" --header "$TMP/model.heed" | tr '\t\n' ' |')
[ "$got" = "temperature scale identity residual|4 1 2 0.333333|" ] || fail "parameters.py: $got"
printf 'not a model' > "$TMP/bad.heed"
got=$(exit_of "$PARAMS" "$TMP/bad.heed")
[ "$got" = 65 ] && grep -q "^parameters.py: $TMP/bad.heed: not a readable heed model: " "$TMP/err" ||
  fail "parameters.py, not a model: exit $got, $(head -c 200 "$TMP/err")"
[ "$(exit_of "$PARAMS" "$TMP/absent.heed")" = 66 ] || fail "parameters.py, a missing file: exit $got"

# The study's own page: what the committed results render is the committed
# docs/studies/ablation.md (it is generated, never edited), and it opens with the three answers in
# short, each at most six lines. Rendered from a copy, so that the plots it draws are not written into the checkout.
mkdir -p "$TMP/study/experiments/ablation" "$TMP/study/docs/studies"
cp -r "$SRC/experiments/ablation/results" "$TMP/study/experiments/ablation/results"
report "the study's page" 0 --pooling "$SRC/experiments/pooling/results" \
  --alignment "$SRC/experiments/alignment-hansards/results" \
  --results "$TMP/study/experiments/ablation/results" --template "$TEMPLATE" \
  --output "$TMP/study/docs/studies/ablation.md"
cmp -s "$TMP/study/docs/studies/ablation.md" "$SRC/docs/studies/ablation.md" ||
  fail "docs/studies/ablation.md is not what its results render (regenerate it: snakemake page in experiments/ablation): $(diff "$SRC/docs/studies/ablation.md" "$TMP/study/docs/studies/ablation.md" | head -n 4 | tr '\n' '|')"
answers=$(sed -n '/^## The answers in short$/,/^## The answers in detail$/p' "$TMP/study/docs/studies/ablation.md")
[ "$(grep -c '^\*\*[123]\. ' <<< "$answers")" = 3 ] || fail "the study's page: not three answers in short"
awk '/^\*\*[123]\. / { n = 0; q = $1 } q && NF { n++; if (n > 6) { print q; q = "" } } !NF { q = "" }' \
  <<< "$answers" | grep -q . && fail "the study's page: an answer in short longer than six lines"
grep -q -- '— / —' <<< "$answers" && fail "the study's page: an answer in short with a figure missing"

# Without Debian's packages (-S: no site directories): exit 69 naming them.
"$PY" -S "$REPORT" --check 2>"$TMP/err"
got=$?
[ "$got" = 69 ] || fail "no packages: exit $got, expected 69"
error "no packages" "needs the Debian packages python3-jinja2 and python3-matplotlib "

[ "$FAILED" = 0 ] && echo "ablation_report: all checks passed"
exit $((FAILED > 0))
