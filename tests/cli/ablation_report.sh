# The ablation's report generator (experiments/ablation/report.py, the Jinja2 template
# experiments/ablation/ablation.md.j2) on a small fixture of result files: the figures come from
# the files (means and standard deviations over seeds, the bootstrap p-value from bootstrap.tsv,
# the speed rounds' medians and spread, costs and their ratios, the saturation statistics, the
# diagonal AER, the machine), runs not finished yet are left out or shown as "—" rather than
# invented, no template syntax is left, the plots are well-formed SVG drawn the same byte for
# byte twice, and the page is written atomically. A missing result file is an error naming it
# (66) that leaves the page as it was; a template asking for an unknown configuration or name,
# or printing a number without a format, is an error naming the template's line (65); a missing
# Python package is named with its Debian package (69).
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
  "$PY" "$REPORT" --pooling "$SRC/experiments/pooling/results/pooling.tsv" "$@" 2>"$TMP/err"
  local got=$?
  [ "$got" = "$want" ] || fail "$name: exit $got, expected $want: $(head -c 300 "$TMP/err")"
}
# error NAME PATTERN: stderr is one line "report.py: …" matching PATTERN.
error() {
  [ "$(wc -l < "$TMP/err")" = 1 ] && grep -qE -- "^report.py: .*$2" "$TMP/err" ||
    fail "$1: stderr is not one line matching '$2': $(head -c 300 "$TMP/err")"
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
printf 'input\tmechanism\tdim\tentropy_fraction\tmax_weight\tgrad_scores_median\tgrad_query_norm
normal\tdot\t512\t0.01\t0.987\t0.0000123\t0.5
normal\tscaled-dot\t512\t0.8\t0.25\t0.0456\t0.25
tanh\tdot\t512\t0.7\t0.4\t0.03\t0.125
tanh\tscaled-dot\t512\t0.996\t0.06\t0.002\t0.0078
tanh\tdot\t1024\t0.5\t0.61\t0.02\t0.2
' > "$R/stats.tsv"
printf 'aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences\n74.43\t25\t25\t1\t1\t1\t508\n' > "$R/aer-diagonal.tsv"
printf 'steps\t1000\nseeds\t1 2 3\nprecision\tbf16\nthreads\t2\nvalid_every\t250\nquick\t0\nplanned_runs\t48\n' > "$R/settings.tsv"
printf '# cpu: Test CPU (2 cores visible)\n# memory: 1 GiB\n' > "$R/machine.txt"

TEMPLATE=$SRC/experiments/ablation/ablation.md.j2
report "the generator" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page.md"
[ -s "$TMP/page.md" ] || { echo "FAIL: no page written" >&2; exit 1; }
[ -e "$TMP/page.md.tmp" ] && fail "a temporary file was left"
grep -nE '\{\{|\{%|\{#|%\}|#\}' "$TMP/page.md" && fail "template syntax left in the page"
grep -n 'None' "$TMP/page.md" && fail "a figure printed as None"
expect "mean and std over two seeds" '^\| `dot-luong` \| 2 \| 35\.00 ± 1\.41 \| — \| 53\.00 ± 1\.41 \|'
expect "one seed, bootstrap p" '^\| `general-luong` \| 1 \| 33\.00 \| 0\.042 \|'
expect "parameters with thousands separators" '^\| `general-luong` \|.*\| 262,144 \| 524,288 \|'
expect "speed: medians over the rounds" '`dot-luong`.*\| 4,321 \| 99 \|'
expect "speed: how far apart the rounds are" "^a median 25 %, at most 25 % in training and a median 140 %, at most 140 % in$"
expect "speed rounds counted" '^    SPEED_ROUNDS=3 STAGES="speed report"'
expect "no attention, no AER" '^\| `none-luong` \|.*\| — \| — \|$'
expect "unfinished runs are left out" '^Status: 5 of 48 planned runs'
expect "diagonal AER" 'gives AER 74\.4'
expect "BLEU gap of the means" '25\.1 below'
expect "settings" '^- \*\*Budget:\*\* 1000 updates .* in$'
expect "machine and minutes" '^- \*\*Machine:\*\* cpu: Test CPU \(2 cores visible\); memory: 1 GiB\. Training took 19 minutes'
expect "cost growth against length" '^`dot` grows 5\.0×, faster'
expect "cost ratio between mechanisms" '^4\.0× dearer than `dot` and ends 2\.4×:$'
expect "cost growth against d" '^4\.0×, `general` 30\.0× and `additive`'
expect "cost table against length: no fitted exponent in the file" '^\| `dot` \| 2\.00 \| 10\.00 \| — \|$'
expect "cost table against d: a point not measured" '^\| `general` \| 1\.00 \| — \| 30\.00 \|$'
expect "cost at one hidden size" '^2\.50 ms, `general` — and —, `additive`$'
expect "saturation figures, two significant digits" '^0\.99 on one position .* is$'
expect "saturation figures, small ones in exponent form" '^1\.2e-05, against 0\.25$'
expect "saturation table: dot and scaled-dot side by side" '^\| tanh \| 512 \| 0\.70 / 1\.00 \| 0\.40 / 0\.06 \| 0\.03 / 0\.002 \|$'
expect "saturation table: no row without both mechanisms" '^\| normal \| 512 \|'
grep -q '^| tanh | 1024 |' "$TMP/page.md" && fail "a saturation row without scaled-dot"
expect "pooling cell, as written with thousands separators" '^the length — 10,602 on the addition problem'
expect "seeds ahead: paired by seed, only seeds both ran" '^1 of 1 seeds\), each well above'
expect "no seed count without both runs" '`dot` ahead of both in — and$'
expect "no gap without both runs" '^— BLEU, `general` by —,'
expect "sweep point: seed 1's BLEU (validation perplexity)" '^\| `dot` \| 20\.00 \(15\.0\) \| 34\.00 \(9\.0\) \|'
expect "plots linked from the page" '^!\[buckets\]\(results/buckets\.svg\)$'
expect "plots linked from the page" '^!\[sweep\]\(results/sweep\.svg\)$'
grep -q '`additive-luong`' "$TMP/page.md" && fail "a configuration without runs got a row"
for svg in buckets sweep; do
  # Well-formed SVG whose text is text (the legend's names), not glyphs drawn as paths.
  "$PY" - "$R/$svg.svg" <<'EOF' || fail "$svg.svg is not an SVG with its legend as text"
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
sys.exit(root.tag != "{http://www.w3.org/2000/svg}svg" or "dot" not in texts)
EOF
  cp "$R/$svg.svg" "$TMP/$svg.first"
done
grep -q 'dc:date' "$R/buckets.svg" && fail "the SVG carries a date"
cp "$TMP/page.md" "$TMP/page.first"
report "a second run" 0 --results "$R" --template "$TEMPLATE" --output "$TMP/page.md"
for svg in buckets sweep; do
  cmp -s "$R/$svg.svg" "$TMP/$svg.first" || fail "$svg.svg differs from one run to the next"
done
cmp -s "$TMP/page.md" "$TMP/page.first" || fail "the page differs from one run to the next"

# A result file missing: named, and the page is left as it was.
mv "$R/stats.tsv" "$TMP/stats.tsv"
report "stats.tsv missing" 66 --results "$R" --template "$TEMPLATE" --output "$TMP/page.md"
error "stats.tsv missing" "results/stats\.tsv not found \(run\.sh's stage \"cost\" writes it\)$"
cmp -s "$TMP/page.md" "$TMP/page.first" || fail "stats.tsv missing: the page was changed"
mv "$TMP/stats.tsv" "$R/stats.tsv"
report "template missing" 66 --results "$R" --template "$TMP/none.j2" --output "$TMP/page.md"
error "template missing" "none\.j2 not found$"

# A template asking for what the results do not hold: an error with the template's line.
bad() {  # name code stderr-pattern template-text
  printf 'line one\n%s\n' "$4" > "$TMP/bad.j2"
  report "$1" "$2" --results "$R" --template "$TMP/bad.j2" --output "$TMP/bad.md"
  error "$1" "$3"
  [ -e "$TMP/bad.md" ] && fail "$1: a page was written"
}
bad "unknown configuration" 65 "bad\.j2:2: unknown configuration 'dot-lung'$" "{{ r.bleu('dot-lung') | pm }}"
bad "unknown mechanism" 65 "bad\.j2:2: unknown attention mechanism 'dott'$" "{{ r.cost('dott', 20) | num }}"
bad "unknown setting" 65 "bad\.j2:2: .*'stpes'" "{{ r.settings.stpes }}"
bad "unknown table" 65 "bad\.j2:2: .*'mian'" "{{ tables.mian }}"
bad "unknown column" 65 "bad\.j2:2: stats\.tsv has no column 'max_wieght'$" \
  "{{ r.stat('normal', 'dot', 512, 'max_wieght') | sig }}"
bad "a number without a format" 65 "bad\.j2:2: 2\.0 printed without a format" \
  "{{ r.gap('dot-luong', 'general-luong') }}"
bad "template syntax" 65 "bad\.j2:2: " "{{ r.bleu('dot-luong') | pm }"

# Without Debian's packages (-S: no site directories): exit 69 naming them.
"$PY" -S "$REPORT" --check 2>"$TMP/err"
got=$?
[ "$got" = 69 ] || fail "no packages: exit $got, expected 69"
error "no packages" "needs the Debian packages python3-jinja2 and python3-matplotlib "

[ "$FAILED" = 0 ] && echo "ablation_report: all checks passed"
exit $((FAILED > 0))
