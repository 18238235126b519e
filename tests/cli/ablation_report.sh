# The ablation's report generator (experiments/ablation/report.py) on a small fixture of
# result files: every placeholder of the template is replaced, the figures come from the files
# (means and standard deviations over seeds, the bootstrap p-value from bootstrap.tsv, the speed
# rounds' medians, the diagonal AER), runs not finished yet are left out rather than invented, the
# plots are well-formed SVG, and the page is written atomically (no temporary file left).
#   tests/cli/ablation_report.sh SOURCE_DIR
set -u
SRC=${1:?usage: ablation_report.sh SOURCE_DIR}
command -v python3 >/dev/null || { echo "SKIPPED: no python3"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILED=0
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }
expect() {  # name pattern: the page matches the extended regular expression
  grep -qE -- "$2" "$TMP/page.md" || fail "$1: no line matches '$2'"
}

R=$TMP/results
mkdir -p "$R"
printf 'id\tseed\thidden\tsteps\tminutes\tbleu\tchrf\tbest_val_ppl\tattention_params\tattentional_layer_params\ttrain_tok_per_s\taer_argmax\taer_shift\tbootstrap_p_vs_dot\tcpu
dot-luong\t1\t512\t1000\t4.5\t34.00\t52.00\t9.0\t0\t524288\t3600\t76.0\t82.0\t-\tX
dot-luong\t2\t512\t1000\t4.5\t36.00\t54.00\t8.0\t0\t524288\t3600\t78.0\t84.0\t-\tX
general-luong\t1\t512\t1000\t4.3\t33.00\t51.00\t9.5\t262144\t524288\t3700\t75.0\t83.0\t-\tX
none-luong\t1\t512\t1000\t4.7\t9.90\t26.95\t25.7\t0\t262144\t4386\tn/a\tn/a\t0.0010\tX
sweep-dot-h128\t1\t128\t1000\t1.0\t20.00\t40.00\t15.0\t0\t32768\t9000\t80.0\t85.0\t-\tX
' > "$R/runs.tsv"
printf 'id\tseed\tbucket\tsentences\tbleu\n' > "$R/buckets.tsv"
for id in dot-luong general-luong none-luong; do
  for b in 1-10 11-15 16-20 21-99; do printf '%s\t1\t%s\t250\t30.5\n' "$id" "$b" >> "$R/buckets.tsv"; done
done
printf 'id\thidden\tround\ttrain_tok_per_s\ttranslate_sent_per_s\tcpu
dot-luong\t512\t1\t4321\t98.7\tX
dot-luong\t512\t2\t5000\t50.0\tX
dot-luong\t512\t3\t4000\t120.2\tX
' > "$R/speed-runs.tsv"
printf 'id\tbaseline\tseed\tp\ngeneral-luong\tdot-luong\t1\t0.0420\n' > "$R/bootstrap.tsv"
printf 'mechanism\tsource_length\tmedian_ms\ndot\t10\t2.0\ndot\t500\t10.0\nadditive\t10\t8.0\nadditive\t500\t24.0\n' > "$R/cost-length.tsv"
printf 'mechanism\thidden\tmedian_ms\ndot\t128\t1.0\ndot\t512\t2.5\ndot\t1024\t4.0\ngeneral\t128\t1.0\ngeneral\t1024\t30.0\n' > "$R/cost-hidden.tsv"
printf 'aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences\n74.43\t25\t25\t1\t1\t1\t508\n' > "$R/aer-diagonal.tsv"
printf 'steps\t1000\nseeds\t1 2 3\nprecision\tbf16\nthreads\t2\nvalid_every\t250\nquick\t0\nplanned_runs\t48\n' > "$R/settings.tsv"

python3 "$SRC/experiments/ablation/report.py" --results "$R" \
  --template "$SRC/experiments/ablation/ablation.md.in" --output "$TMP/page.md" \
  --pooling "$SRC/experiments/pooling/results/pooling.tsv" || fail "the generator exited $?"
[ -s "$TMP/page.md" ] || { echo "FAIL: no page written" >&2; exit 1; }
[ -e "$TMP/page.md.tmp" ] && fail "a temporary file was left"
grep -n '{{' "$TMP/page.md" && fail "placeholders left in the page"
expect "mean and std over two seeds" '^\| `dot-luong` \| 2 \| 35\.00 ± 1\.41 \| — \| 53\.00 ± 1\.41 \|'
expect "one seed, bootstrap p" '^\| `general-luong` \| 1 \| 33\.00 \| 0\.042 \|'
expect "speed: medians over the rounds" '`dot-luong`.*\| 4,321 \| 99 \|'
expect "speed: how far apart the rounds are" "^a median 25 %, at most 25 % in training and a median 140 %, at most 140 % in$"
expect "no attention, no AER" '^\| `none-luong` \|.*\| — \| — \|$'
expect "unfinished runs are left out" '^Status: 5 of 48 planned runs'
expect "diagonal AER" 'gives AER 74\.4'
expect "BLEU gap of the means" '25\.1 below'
expect "cost growth against length" '^`dot` grows 5\.0×, faster'
expect "cost growth against d" '^4\.0×, `general` 30\.0× and `additive`'
expect "cost table against length: no fitted exponent in the file" '^\| `dot` \| 2\.00 \| 10\.00 \| — \|$'
expect "cost table against d: a point not measured" '^\| `general` \| 1\.00 \| — \| 30\.00 \|$'
expect "cost at one hidden size" '^2\.50 ms, `general` — and —, `additive`$'
expect "seeds ahead: paired by seed, only seeds both ran" '^1 of 1 seeds\), each well above'
expect "no seed count without both runs" '`dot` ahead of both in — and$'
expect "no gap without both runs" '^— BLEU, `general` by —,'
expect "sweep point: seed 1's BLEU (validation perplexity)" '^\| `dot` \| 20\.00 \(15\.0\) \| 34\.00 \(9\.0\) \|'
grep -q '`additive-luong`' "$TMP/page.md" && fail "a configuration without runs got a row"
for svg in buckets sweep; do
  python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$R/$svg.svg" ||
    fail "$svg.svg is not well-formed XML"
done
[ "$FAILED" = 0 ] && echo "ablation_report: all checks passed"
exit $((FAILED > 0))
