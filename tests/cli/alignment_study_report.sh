#!/usr/bin/env bash
# experiments/alignment-hansards/report.py on a fixture: two seeds of one mechanism and a
# baseline; the table's cells, its bold lowest per column, each row's best reading and the one
# chosen on the trial sentences (ties broken by the table's order), the
# status line from the queue, the curve along training by the best reading of the best model,
# the plot (well-formed SVG, the same byte for byte twice) and the heatmap page (well-formed
# XHTML, the pairs' sentences, one figure per mechanism) land between the page's markers, the
# rest of the page untouched; a page without the markers is refused and left as it was.
#   tests/cli/alignment_study_report.sh BIN_DIR SOURCE_DIR
# Needs Debian's /usr/bin/python3 with python3-matplotlib and python3-jinja2; skipped (77)
# without them.
source "$(dirname "$0")/lib.sh"
ROOT=${2:?usage: alignment_study_report.sh BIN_DIR SOURCE_DIR}
PY=/usr/bin/python3
REPORT=$ROOT/experiments/alignment-hansards/report.py
[ -x "$PY" ] || { echo "SKIPPED: $PY not found"; exit 77; }
missing=$("$PY" "$REPORT" --check 2>&1) || { echo "SKIPPED: $missing"; exit 77; }
export MPLCONFIGDIR=$TMP/matplotlib
results=$TMP/results
mkdir -p "$results/heatmaps" "$TMP/gold"
header=$'system\tseed\tstep\trun\treading\taer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences'
row() {  # SYSTEM SEED STEP RUN READING AER
  printf '%s\t%s\t%s\t%s\t%s\t%s\t70.00\t80.00\t100\t90\t200\t3\n' "$@"
}
{
  echo "$header"
  row dot 1 300 fwd argmax 40.00
  row dot 1 300 rev argmax 42.00
  row dot 1 300 fwd shift 60.00
  row dot 1 300 grow-diag argmax 35.00
  row dot 1 300 agree - 33.00
  row dot 2 300 fwd argmax 41.00
  row dot 2 300 agree - 36.50
  row ibm2 - - fwd - 19.09
  row ibm2 - - intersect - 14.50
  row diagonal - - fwd - 61.00
} > "$results/aer.tsv"
# The trial sentences: seed 1's lowest trial readings tie (en→fr argmax and agree, 30.00): the
# table's order picks argmax, whose test AER (40.00) is then shown though agree is lower on test;
# ibm2's is ∩; seed 2 has no trial rows ("—").
{
  echo "$header"
  row dot 1 300 fwd argmax 30.00
  row dot 1 300 agree - 30.00
  row dot 1 300 grow-diag argmax 50.00
  row ibm2 - - fwd - 20.00
  row ibm2 - - intersect - 17.00
} > "$results/trial.tsv"
{
  echo "$header"
  for step in 100 200 300; do
    row dot 1 "$step" fwd argmax "$((90 - step / 10)).00"
    row dot 1 "$step" agree - "$((80 - step / 10)).00"
  done
} > "$results/checkpoints.tsv"
{
  printf 'system\tseed\tdirection\tupdates\tbest_step\tbest_val_ppl\tearly_stop\tminutes\ttok_per_s\tcpu\n'
  printf 'dot\t1\tfwd\t300\t300\t9.8700\tno\t2.5\t4100\tsome cpu\n'
  printf 'dot\t1\trev\t300\t200\t10.1000\tyes\t2.0\t4000\tsome cpu\n'
} > "$results/training.tsv"
{
  printf 'set\ttrained_on\treference\tlinks\taer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences\n'
  printf 'hansards\tcorpus (9 pairs)\tHansards gold\tibm2 grow-diag-final-and\t18.12\t77.79\t89.40\t7410\t4038\t17438\t447\n'
} > "$results/silver.tsv"
{
  echo '# a comment line'
  printf 'system\tnote\trun\treading\taer\n'
  printf 'guided `general`\trun.sh, 20 min\tagree\t-\t14.55\n'
} > "$results/reference.tsv"
# The compare stage's files, as heed-align score --system writes them: dot against ibm2 (more
# errors), general against dot (across 0, equivalent within the margin).
mkdir -p "$results/compare"
H=$'system\tmetric\truns\tmean\tsd\tdifference\tci95_low\tci95_high\tp_value\tp_holm\tci90_low\tci90_high\ttost_p\tequivalent\trun_scores'
printf '%s\n' "$H" $'ibm2\tAER\t1\t14.50\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t14.50' \
  $'dot\tAER\t2\t34.75\t2.47\t+20.25\t+18.00\t+22.50\t< 0.001\t< 0.001\t+18.40\t+22.10\t1.0000\tno\t33.00,36.50' \
  '# AER in percent, lower is better' \
  "# hierarchical bootstrap: 1000 resamples, each drawing every system's runs and one shared set of segments with replacement; seed 12345; baseline ibm2" \
  > "$results/compare/aligner.tsv"
printf '%s\n' "$H" $'dot\tAER\t2\t34.75\t2.47\t-\t-\t-\t-\t-\t-\t-\t-\t-\t33.00,36.50' \
  $'general\tAER\t1\t34.50\t-\t-0.25\t-0.90\t+0.40\t0.4400\t0.4400\t-0.80\t+0.30\t0.0100\tyes\t34.50' \
  "# hierarchical bootstrap: 1000 resamples, each drawing every system's runs and one shared set of segments with replacement, the drawn runs' deviation from the system's mean times sqrt(n/(n-1)) for n runs (Rao & Wu 1988); seed 12345; baseline dot" \
  > "$results/compare/dot.tsv"
printf 'system\tseed\treason\nfast_align\t-\tno FAST_ALIGN to make its links again\n' > "$results/compare/left-out.tsv"
# The workflow keeps a unit's rows in TABLE/UNIT.tsv (UNIT: SYSTEM-sSEED, or the baseline's name):
# the tables above split that way.
for table in aer trial checkpoints training; do
  mkdir -p "$results/$table"
  awk -F'\t' -v d="$results/$table" 'NR == 1 { header = $0; next }
    { unit = $2 == "-" ? $1 : $1 "-s" $2; f = d "/" unit ".tsv"
      if (!(f in seen)) { print header > f; seen[f] = 1 } print > f }' "$results/$table.tsv"
  rm "$results/$table.tsv"
done
svg='<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect class="cell" width="5" height="5"/></svg>'
echo "$svg" > "$results/heatmaps/dot.1.svg"
echo "$svg" > "$results/heatmaps/general.1.svg"
printf 'first sentence\nthe cat & the dog\n' > "$TMP/gold/test.e"
printf 'premiere phrase\nle chat et le chien\n' > "$TMP/gold/test.f"
printf '# top\n\n<!-- alignment-mechanisms: generated by experiments/alignment-hansards/report.py; do not edit -->\nold\n<!-- end of alignment-mechanisms -->\n\n# bottom\n' > "$TMP/page.md"
run_report() {  # PAGE
  "$PY" "$REPORT" --results "$results" --page "$1" --queue "dot:1 dot:2 general:1" \
    --directions "fwd rev" --hansards "$TMP/gold" 2> "$TMP/err"
}
run_report "$TMP/page.md"
expect_eq exit $? 0
page=$(cat "$TMP/page.md")
grep -q '^2 of 6 models trained' <<< "$page" && ok || fail "status line: $(grep trained <<< "$page" | head -1)"
grep -q '^old$' <<< "$page" && fail "the old table is still there" || ok
expect_eq head "$(head -1 "$TMP/page.md")" "# top"
expect_eq tail "$(tail -1 "$TMP/page.md")" "# bottom"
# Seed 1: its cells, "—" where a reading is missing, bold where no row is lower (ibm2's 19.09
# is, in the first column; the guided reference's 14.55 in agree's), its best reading by name.
grep -qF '| `dot`, seed 1 | 40.00 | **42.00** | **60.00** | — | — | — | — | — | **35.00** | — | — | 33.00 | 33.00 (agree) | 40.00 (en→fr, argmax; trial 30.00) |' <<< "$page" &&
  ok || fail "dot seed 1 row: $(grep -F '`dot`, seed 1' <<< "$page")"
# A baseline's one reading stands in the argmax column; its best names the run alone.
grep -qF '| heed-align ibm2 (`-d -o -v`) | **19.09** | — | — | — | — | — | **14.50** | — | — | — | — | — | 14.50 (∩) | 14.50 (∩; trial 17.00) |' <<< "$page" &&
  ok || fail "ibm2 row: $(grep -F 'ibm2' <<< "$page" | head -1)"
grep -qF '| guided `general` (run.sh, 20 min) |' <<< "$page" && grep -qF '| **14.55** | 14.55 (agree) | — |' <<< "$page" &&
  ok || fail "reference row: $(grep -F 'guided' <<< "$page")"
grep -qF '| `dot`, seed 2 | 41.00 |' <<< "$page" && grep -F '`dot`, seed 2' <<< "$page" | grep -qF '| 36.50 (agree) | — |' &&
  ok || fail "dot seed 2 row: $(grep -F '`dot`, seed 2' <<< "$page")"
grep -qF 'Best reading per seed: `dot` seed 1 33.00 (agree), seed 2 36.50 (agree).' <<< "$page" && ok ||
  fail "seed spread: $(grep -F 'Best reading' <<< "$page")"
grep -qF '| `dot` | 1 | fr→en | 300 | 10.10 (200) | yes | 2.0 | 4000 |' <<< "$page" && ok || fail "training row"
# Models whose best validation is the budget's last one are said to be budget-bound, with how
# fast the curve's AER was still falling (agree: 70 at update 100, 50 at 300).
grep -qF '1 of 2 models ran to the update budget (300) with their best validation perplexity at the last validation' <<< "$page" &&
  grep -qF '(AER points fallen: `dot` 20.00 from update 100 to 300)' <<< "$page" && ok ||
  fail "budget note: $(grep -F 'update budget' <<< "$page")"
# The differences with their intervals: a column per family, a line of what each supports.
grep -qF '| `dot` | 2 | 33.00,36.50 | +20.25 [+18.00, +22.50] (p Holm < 0.001) | baseline |' <<< "$page" && ok ||
  fail "compare row: $(grep -F '| `dot` | 2 |' <<< "$page")"
grep -qF '| `general` | 1 | 34.50 | — | -0.25 [-0.90, +0.40] (p Holm 0.4400) |' <<< "$page" && ok ||
  fail "compare row: $(grep -F '| `general` | 1 |' <<< "$page")"
grep -qF -- '- Against the classic aligner better on the trial sentences, `ibm2`: fewer errors (the interval below 0): none; more errors (above 0): `dot`;' <<< "$page" && ok ||
  fail "compare verdict: $(grep -F -- '- Against' <<< "$page")"
grep -qF 'neither (the interval across 0): `general` (equivalent within the margin: TOST p 0.0100).' <<< "$page" && ok ||
  fail "compare verdict: $(grep -F -- '- Against `dot`' <<< "$page")"
grep -qF -- '- Left out: `fast_align` (no FAST_ALIGN to make its links again).' <<< "$page" && ok ||
  fail "left out: $(grep -F 'Left out' <<< "$page")"
# A comparison file from a heed-align before the rescaled run draws is said to be one (its
# method line names no rescaling); one from after is not.
grep -qF 'These intervals (`compare/aligner.tsv`) come from a heed-align that drew each system' <<< "$page" && ok ||
  fail "unscaled note: $(grep -F 'These intervals' <<< "$page")"
# --choices: each system's reading chosen on the trial sentences, with its trial and test AER.
"$PY" "$REPORT" --results "$results" --queue "dot:1 dot:2 general:1" --directions "fwd rev" --choices > "$TMP/choices"
expect_eq choices "$(cat "$TMP/choices")" "$(printf 'system\tseed\trun\treading\ttrial_aer\ttest_aer\ndot\t1\tfwd\targmax\t30.00\t40.00\nibm2\t-\tintersect\t-\t17.00\t14.50')"
# The curve follows agree, the best reading of the best model that the checkpoints have.
grep -qF '| updates | `dot` (agree) |' <<< "$page" && grep -qF '| 200 | 60.00 |' <<< "$page" && ok ||
  fail "curve table: $(grep -A5 -F '| updates |' <<< "$page")"
grep -qF '](results/emergence.svg)' <<< "$page" && ok || fail "plot link"
grep -qF '[heatmaps](results/heatmaps.html)' <<< "$page" && ok || fail "heatmap link"
grep -qF '| hansards | corpus (9 pairs) | ibm2 grow-diag-final-and | Hansards gold | 18.12 | 77.79 | 89.40 | 7,410 |' <<< "$page" &&
  ok || fail "silver row"
# The plot and the page: well-formed XML; the plot the same byte for byte when drawn again.
# The page is HTML5 with the XHTML namespace: drop the doctype, then it parses as XML.
sed 1d "$results/heatmaps.html" > "$TMP/heatmaps.xml"
expect_eq heatmap-figures "$(xml_count "$TMP/heatmaps.xml" './/h:figure')" 2
expect_eq heatmap-cells "$(xml_count "$TMP/heatmaps.xml" './/s:rect[@class="cell"]')" 2
grep -qF 'the cat &amp; the dog' "$results/heatmaps.html" && ok || fail "heatmap sentence, escaped"
expect_eq plot-lines "$(xml_count "$results/emergence.svg" './/s:g[@id="line2d_1"]')" 1
cp "$results/emergence.svg" "$TMP/first.svg"
cp "$TMP/page.md" "$TMP/again.md"
run_report "$TMP/again.md"
expect_same plot-twice "$TMP/first.svg" "$results/emergence.svg"
expect_same page-twice "$TMP/page.md" "$TMP/again.md"
# Without --queue and --directions: the full study's (config.yaml's plan): 10 mechanism-seeds ×
# 2 directions.
cp "$TMP/page.md" "$TMP/defaults.md"
"$PY" "$REPORT" --results "$results" --page "$TMP/defaults.md" --hansards "$TMP/gold" 2> "$TMP/err"
grep -q ' of 20 models trained' "$TMP/defaults.md" && ok ||
  fail "defaults: $(grep trained "$TMP/defaults.md" | head -1)"
# A page without the markers is refused, not rewritten.
printf '# no markers\n' > "$TMP/bare.md"
run_report "$TMP/bare.md"
expect_eq bare-exit $? 1
expect_eq bare-untouched "$(cat "$TMP/bare.md")" "# no markers"
finish
