#!/usr/bin/env bash
# Learning curves for users (issue 64): heed-train writes DIR/curves.svg at every validation,
# well-formed SVG with one marker per validation in the perplexity and BLEU panels (as many as
# the metrics file's validation rows), kept across --resume; heed-train plot draws several runs'
# metrics files together (a colour each in the legend), refuses a file that is not a metrics
# file (65, FILE:LINE) and a missing one (66).
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "SKIPPED: $PY not found"; exit 77; }
T=$BIN/heed-train
sample_pairs 300 20
train=("$T" --train-src "$TMP/src" --train-tgt "$TMP/tgt" --valid-src "$TMP/vsrc"
  --valid-tgt "$TMP/vtgt" --hidden 8 --embed 8 --threads 1 --valid-every 2 -q)
# validations FILE: the metrics file's rows with a validation perplexity.
validations() { awk -F'\t' 'NR > 1 && $7 != ""' "$1" | wc -l; }

expect_exit 0 train -- "${train[@]}" --max-steps 6 --metrics-file "$TMP/a.tsv" -o "$TMP/a"
expect_eq curves-root "$(xml_count "$TMP/a/curves.svg" root)" "{http://www.w3.org/2000/svg}svg"
expect_eq metrics-validations "$(validations "$TMP/a.tsv")" 3
expect_eq curves-ppl-points "$(xml_count "$TMP/a/curves.svg" './/s:circle[@class="valid-ppl"]')" 3
expect_eq curves-bleu-points "$(xml_count "$TMP/a/curves.svg" './/s:circle[@class="valid-bleu"]')" 3
expect_eq curves-panels "$(xml_count "$TMP/a/curves.svg" './/s:g[@class="panel"]')" 4
# The loss and learning-rate panels have their lines; none says it has no data.
expect_eq curves-lines "$(xml_count "$TMP/a/curves.svg" './/s:polyline[@class="series"]')" 4
expect_eq curves-no-empty "$(xml_count "$TMP/a/curves.svg" './/s:text[@class="no-data"]')" 0
# Its temporary file is gone (written atomically).
expect_eq curves-no-temporary "$(ls -a "$TMP/a" | grep -c 'curves.svg.')" 0

# --resume: the curves hold the validations before the resume as well as after.
expect_exit 0 resume -- "${train[@]}" --max-steps 10 --metrics-file "$TMP/a.tsv" -o "$TMP/a" --resume
expect_eq resumed-validations "$(validations "$TMP/a.tsv")" 5
expect_eq resumed-ppl-points "$(xml_count "$TMP/a/curves.svg" './/s:circle[@class="valid-ppl"]')" 5

# heed-train plot: two runs together, a legend entry each, their validations all drawn.
expect_exit 0 train-b -- "${train[@]}" --max-steps 4 --metrics-file "$TMP/b.tsv" -o "$TMP/b" --lr 0.01
expect_exit 0 plot -- "$T" plot "$TMP/a.tsv" "$TMP/b.tsv" -o "$TMP/both.svg"
expect_eq plot-stdout "$(wc -c < "$TMP/out")" 0
expect_eq plot-root "$(xml_count "$TMP/both.svg" root)" "{http://www.w3.org/2000/svg}svg"
expect_eq plot-legend "$(xml_count "$TMP/both.svg" './/s:text[@class="legend"]')" 2
expect_eq plot-ppl-points "$(xml_count "$TMP/both.svg" './/s:circle[@class="valid-ppl"]')" 7
expect_exit 0 plot-stdout-svg -- "$T" plot "$TMP/b.tsv"
cp "$TMP/out" "$TMP/b.svg"
expect_eq plot-stdout-points "$(xml_count "$TMP/b.svg" './/s:circle[@class="valid-ppl"]')" 2
expect_exit 0 plot-help -- "$T" plot --help
grep -q 'Usage: heed-train plot METRICS.tsv' "$TMP/out" && ok || fail "plot --help: $(head -2 "$TMP/out")"
# Its options are named in heed-train(1) (cli.help_vs_man checks heed-train's own table).
for option in $(help_options < "$TMP/out"); do
  sed 's/\\-/-/g' "$(dirname "$0")/../../man/heed-train.1" | grep -q -- "$option" && ok ||
    fail "plot --help: $option not in heed-train.1"
done
# Bad input: not a metrics file (65, naming file and line), a missing file (66), none (64).
printf 'step\tepoch\tloss\tperplexity\tlr\ttokens_per_s\tval_ppl\tval_bleu\telapsed_s\tevent\n1\t1\tx\t1\t0.1\t1\t\t\t1\t\n' > "$TMP/bad.tsv"
expect_exit 65 plot-bad -- "$T" plot "$TMP/bad.tsv"
expect_error_line train plot-bad "bad.tsv:2: loss 'x' is not a number$"
expect_exit 65 plot-not-metrics -- "$T" plot "$TMP/src"
expect_error_line train plot-not-metrics "src:1: a row before the header"
expect_exit 66 plot-missing -- "$T" plot "$TMP/nothing.tsv"
expect_error_line train plot-missing "nothing.tsv"
expect_exit 64 plot-none -- "$T" plot
finish
