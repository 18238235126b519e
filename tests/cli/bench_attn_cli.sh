#!/usr/bin/env bash
# Contract tests of heed-bench-attn: the TSV columns, one row per grid point, every registered
# mechanism benchmarked, the table and JSON formats, the growth section, stdout purity, bad grids
# (zero or negative sizes, unknown mechanism, heads not dividing the hidden size) refused with
# one error line and exit 64, a closed pipe; --plot's SVG (well-formed XML, one polyline per
# series, decade ticks) and its refusals; --stats' columns, rows and JSON, and its bad options.
# Tiny grids only; no time is asserted.
source "$(dirname "$0")/lib.sh"
B=$BIN/heed-bench-attn
COLUMNS="mechanism mode pass precision threads batch source_length target_length hidden heads window precompute median_ms p10_ms p90_ms gflop gflops peak_fraction bytes"
# A tiny grid: 2 sentences, 3 target steps, width 8, one timed run, a small GEMM for the peak
# (each call adds the source lengths; Boost refuses an option given twice).
COMMON=(--threads 1 --warmup 0 --peak-repeats 1)
TINY=("${COMMON[@]}" --batch 2 --target-length 3 --hidden 8 --window 1 --repeats 1)

expect_exit 0 help -- "$B" --help
for option in --attention --source-length --precompute --format --peak-size; do
  grep -q -- "$option" "$TMP/out" && ok || fail "help: no $option"
done

# Every registered mechanism (heed-train --help lists them) gets rows, in both modes and passes.
expect_exit 0 all -- "$B" "${TINY[@]}" --source-length 4,8 --peak-size 32
rows() { grep -v '^#' "$TMP/out"; }
expect_eq header "$(rows | head -1 | tr '\t' ' ')" "$COLUMNS"
awk -F'\t' '!/^#/ && NF != 19 { exit 1 }' "$TMP/out" && ok || fail "all: a row without 19 columns"
mechanisms=$(rows | tail -n +2 | cut -f1 | sort -u | tr '\n' ' ')
expect_eq mechanisms-count "$(echo "$mechanisms" | wc -w)" 15
for m in none dot scaled-dot general additive location cosine scaled-general normed-additive \
         coverage ff-pool local-m local-p multi-head linear; do
  case " $mechanisms" in *" $m "*) ok ;; *) fail "all: no rows for $m (got: $mechanisms)" ;; esac
done
# dot: 2 modes × 2 passes × 2 lengths; coverage steps only: 2 passes × 2 lengths.
expect_eq dot-rows "$(rows | cut -f1 | grep -cx dot)" 8
expect_eq coverage-rows "$(rows | cut -f1 | grep -cx coverage)" 4
expect_eq coverage-modes "$(rows | awk -F'\t' '$1 == "coverage" { print $2 }' | sort -u)" step
# Numbers where numbers belong: p10 <= median <= p90, FLOPs and bytes positive (but for none).
awk -F'\t' 'NR > 1 && !/^#/ && ($14 > $13 || $13 > $15 || $19 <= 0 || ($1 != "none" && $16 <= 0)) { exit 1 }' \
  <(rows) && ok || fail "all: a row with inconsistent numbers"
# The machine: CPU, ISA and the measured peak as comment lines; the growth fits after the rows.
grep -q '^# cpu: ' "$TMP/out" && grep -q '^# isa: ' "$TMP/out" &&
  grep -q '^# matmul_peak_gflops: threads=1 size=32 f32=' "$TMP/out" && ok || fail "all: no machine lines"
expect_eq growth-header "$(grep -m1 '^# section' "$TMP/out" | cut -f1-2,13)" $'# section\tmechanism\ttime_exponent'
grep -q $'^# growth\tlinear\tall-steps\tforward\t' "$TMP/out" && ok || fail "all: no growth row for linear"
# Logs on stderr, never on stdout.
grep -q '\[info\]' "$TMP/err" && ok || fail "all: no info log on stderr"
grep -q '\[info\]\|heed-bench-attn' "$TMP/out" && fail "all: log on stdout" || ok

# Options a mechanism declares multiply its points; the others do not.
expect_exit 0 heads -- "$B" "${TINY[@]}" --attention dot,multi-head --heads 1,2,4 --mode step \
  --pass forward --source-length 4 --peak-size 0
expect_eq heads-rows "$(rows | tail -n +2 | cut -f1,10 | tr '\t\n' ' |')" \
  "dot -|multi-head 1|multi-head 2|multi-head 4|"
# --precompute off: again at every step, for the mechanisms that have a precomputation.
expect_exit 0 precompute -- "$B" "${TINY[@]}" --attention general,dot --precompute on,off \
  --mode step --pass forward --source-length 4 --peak-size 0
expect_eq precompute-rows "$(rows | tail -n +2 | cut -f1,12 | tr '\t\n' ' |')" \
  "general on|general off|dot -|"
# Ranges.
expect_exit 0 range -- "$B" "${TINY[@]}" --attention dot --mode step --pass forward \
  --source-length 4:32:x2 --peak-size 0
expect_eq range-rows "$(rows | tail -n +2 | cut -f7 | tr '\n' ' ')" "4 8 16 32 "

# Formats: table (aligned, same columns), JSON (parsed by Python when it is there).
expect_exit 0 table -- "$B" "${TINY[@]}" --attention dot --format table --source-length 4 \
  --peak-size 0
expect_eq table-header "$(grep -v '^#' "$TMP/out" | head -1 | tr -s ' ')" "$COLUMNS"
expect_exit 0 json -- "$B" "${TINY[@]}" --attention dot,linear --format json --source-length 4,8 \
  --peak-size 32
if command -v python3 > /dev/null; then
  python3 - "$TMP/out" "$COLUMNS" <<'EOF' && ok || fail "json: not the report"
import json, sys
report = json.load(open(sys.argv[1]))
columns = sys.argv[2].split()
assert report["machine"]["cpu"] and report["machine"]["isa"]
assert report["machine"]["matmul_peak"][0]["threads"] == 1
assert len(report["results"]) == 16, len(report["results"])
for row in report["results"]:
    assert sorted(row) == sorted(columns), row
    assert row["heads"] is None and row["batch"] == 2
assert {g["mechanism"] for g in report["growth"]} == {"dot", "linear"}
EOF
fi
expect_exit 0 no-peak -- "$B" "${TINY[@]}" --attention dot --peak-size 0 --mode step --pass forward \
  --source-length 4
expect_eq no-peak-fraction "$(rows | tail -n +2 | cut -f18 | sort -u)" "-"
grep -q '^# matmul_peak_gflops: not measured' "$TMP/out" && ok || fail "no-peak: not said"

# Bad grids: exit 64, one line naming what is wrong, before any work (nothing on stdout).
bad() { # NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  expect_exit 64 "$name" -- "$B" "${COMMON[@]}" "$@"
  expect_error_line bench-attn "$name" "$pattern"
  expect_eq "$name-stdout" "$(wc -c < "$TMP/out")" 0
}
bad zero-batch "option '--batch' must be an integer >= 1 .*not '0'" --batch 0
bad negative-source "option '--source-length' must be an integer >= 1 .*not '-5'" \
  --source-length 4,-5
bad zero-hidden "option '--hidden' .*not '0'" --hidden 0
bad zero-target "option '--target-length' .*not '0'" --target-length 0
bad bad-range "option '--source-length' .*FIRST <= LAST.*not '8:4:x2'" --source-length 8:4:x2
bad not-a-number "option '--batch' must be an integer .*not 'ten'" --batch ten
bad unknown-mechanism "unknown attention 'nope'" --attention dot,nope
bad heads-divide "--heads 3 must divide" --attention multi-head --heads 3
bad bad-mode "--mode" --mode steps
bad bad-format "--format" --format csv
bad bad-precompute "--precompute" --precompute maybe
bad no-points "no points" --attention coverage --mode all-steps
bad location-too-long "--source-length 5000: attention 'location'" --attention location \
  --source-length 5000
bad repeats "repeats" --repeats 0
# Sizes the parser accepts but no machine holds: refused before anything is allocated (they
# crashed with SIGSEGV or leaked oneDNN's and std::vector's messages).
bad huge-hidden "--hidden 4611686018427387904: the largest point's buffers could need .* GiB, more than the .* GiB of memory here" \
  --hidden 4611686018427387904
bad huge-batch "--batch 4611686018427387904 .*: the largest point's buffers could need" --batch 4611686018427387904
bad huge-peak "--peak-size 3037000500: the matmul could need .* GiB, more than" --peak-size 3037000500

# --plot: the report on stdout as without it, and a well-formed SVG with one polyline per
# series (here dot and linear, both modes: 4), decade ticks on both axes, an exponent per entry.
PY=/usr/bin/python3
expect_exit 0 plot -- "$B" "${TINY[@]}" --attention dot,linear --pass forward --source-length 4,8,16 \
  --peak-size 0 --plot "$TMP/plot.svg"
expect_eq plot-rows "$(rows | tail -n +2 | wc -l)" 12
if [ -x "$PY" ]; then
  "$PY" - "$TMP/plot.svg" <<'EOF' && ok || fail "plot: not the SVG expected"
import re, sys
import xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
s = "{http://www.w3.org/2000/svg}"
assert root.tag == s + "svg", root.tag
assert len(root.findall(".//" + s + "polyline")) == 4
assert len(root.findall(".//" + s + "circle")) == 12
labels = lambda cls: [t.text for t in root.iter(s + "text") if t.get("class") == cls]
assert labels("x-tick-label") == ["1", "10", "100"], labels("x-tick-label")
ys = labels("y-tick-label")
assert ys and all(re.fullmatch(r"(0\.0*)?10*", y) for y in ys), ys
legend = labels("legend")
assert sorted(l.split(" (")[0] for l in legend) == ["dot", "dot", "linear", "linear"], legend
assert all(re.search(r"\(mode=(all-steps|step)\): -?[0-9]+\.[0-9]{2}$", l) for l in legend), legend
assert "pass=forward" in labels("settings")[0] and "hidden=8" in labels("settings")[0]
EOF
else
  echo "SKIPPED: plot parsing ($PY not found)"
fi
expect_exit 64 plot-stdout -- "$B" "${TINY[@]}" --plot -
expect_error_line bench-attn plot-stdout "--plot takes a file name"
# An unwritable plot is refused before any work: exit 74, nothing on stdout.
expect_exit 74 plot-unwritable -- "$B" "${TINY[@]}" --attention dot --source-length 4 --peak-size 0 \
  --plot "$TMP/no/such/dir/plot.svg"
expect_eq plot-unwritable-stdout "$(wc -c < "$TMP/out")" 0

# --stats: one row per input, width and mechanism (dot, scaled-dot), these columns.
STATS_COLUMNS="input mechanism dim source_length samples entropy entropy_fraction max_weight grad_scores_norm grad_scores_median grad_query_norm"
expect_exit 0 stats -- "$B" --stats --dims 1,4:16:x4 --samples 5 --source-length 6
expect_eq stats-header "$(head -1 "$TMP/out" | tr '\t' ' ')" "$STATS_COLUMNS"
expect_eq stats-rows "$(tail -n +2 "$TMP/out" | cut -f1-4 | tr '\t\n' ' |')" \
  "normal dot 1 6|normal scaled-dot 1 6|normal dot 4 6|normal scaled-dot 4 6|normal dot 16 6|normal scaled-dot 16 6|tanh dot 1 6|tanh scaled-dot 1 6|tanh dot 4 6|tanh scaled-dot 4 6|tanh dot 16 6|tanh scaled-dot 16 6|"
# At d = 1 the scale is 1: scaled-dot's numbers are dot's.
expect_eq stats-d1 "$(awk -F'\t' '$1 == "normal" && $3 == 1 { print $6, $8, $11 }' "$TMP/out" | uniq | wc -l)" 1
# Weights: entropy within [0, log 6], largest weight within [1/6, 1].
awk -F'\t' 'NR > 1 && ($6 < 0 || $6 > log(6) + 1e-4 || $8 < 1/6 - 1e-4 || $8 > 1) { exit 1 }' \
  "$TMP/out" && ok || fail "stats: a weight statistic out of range"
grep -q '\[info\]\|heed-bench-attn' "$TMP/out" && fail "stats: log on stdout" || ok
expect_exit 0 stats-json -- "$B" --stats --dims 2,8 --samples 3 --input normal --format json
if [ -x "$PY" ]; then
  "$PY" - "$TMP/out" "$STATS_COLUMNS" <<'EOF' && ok || fail "stats-json: not the report"
import json, sys
rows = json.load(open(sys.argv[1]))["stats"]
assert [(r["mechanism"], r["dim"]) for r in rows] == \
    [("dot", 2), ("scaled-dot", 2), ("dot", 8), ("scaled-dot", 8)], rows
for r in rows:
    assert sorted(r) == sorted(sys.argv[2].split()), r
    assert r["input"] == "normal" and r["source_length"] == 50 and r["samples"] == 3
    assert 0 <= r["entropy_fraction"] <= 1 and isinstance(r["grad_query_norm"], float)
EOF
fi
expect_exit 0 stats-table -- "$B" --stats --dims 2 --samples 2 --format table
expect_eq stats-table-header "$(head -1 "$TMP/out" | tr -s ' ')" "$STATS_COLUMNS"
bad_stats() { # NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  expect_exit 64 "$name" -- "$B" "$@"
  expect_error_line bench-attn "$name" "$pattern"
  expect_eq "$name-stdout" "$(wc -c < "$TMP/out")" 0
}
bad_stats stats-zero-dims "option '--dims' must be an integer >= 1 .*not '0'" --stats --dims 16,0
bad_stats stats-bad-dims "option '--dims' .*not '64:16:x2'" --stats --dims 64:16:x2
bad_stats stats-word-dims "option '--dims' .*not 'wide'" --stats --dims wide
bad_stats stats-grid-option "--batch belongs to the timing grid, not to --stats" --stats --batch 2
bad_stats stats-plot "--plot belongs to the timing grid" --stats --plot "$TMP/s.svg"
bad_stats stats-lengths "--stats takes one --source-length" --stats --source-length 5,6
bad_stats stats-input "--input: unknown input 'uniform'" --stats --input uniform
bad_stats stats-samples "samples" --stats --samples 0
bad_stats dims-without-stats "--dims needs --stats" --dims 16
bad_stats stats-huge-dims "--dims 4611686018427387904 .*: the keys and their gradient could need" \
  --stats --dims 4611686018427387904 --samples 1

# A closed pipe ends the run quietly.
"$B" "${TINY[@]}" --attention dot,linear --source-length 4,8 --peak-size 0 2>"$TMP/err" |
  head -1 > "$TMP/head"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || [ "$status" = 141 ] && ok || fail "sigpipe: exit $status"
grep -q 'error' "$TMP/err" && fail "sigpipe: an error line: $(cat "$TMP/err")" || ok
expect_eq sigpipe-first "$(cut -c1-7 "$TMP/head")" "# cpu: "

# bench/'s programs (built beside the tools, not installed) take their options with the tools'
# parser: --help, range checks with one error line and exit 64, the phase rows.
BENCH=$BIN/../bench
# bench_error PROGRAM NAME PATTERN: stderr is one line "heed_bench_PROGRAM: error: ..." matching.
bench_error() {
  if [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "^heed_bench_$1: error: " "$TMP/err" &&
     grep -qE -- "$3" "$TMP/err"; then ok; else fail "$2: $(head -c 300 "$TMP/err")"; fi
}
if [ -x "$BENCH/heed_bench_decode_phases" ]; then
  for program in attention_step train_phases decode_phases; do
    expect_exit 0 "bench-$program-help" -- "$BENCH/heed_bench_$program" --help
    grep -q -- "^Usage: heed_bench_$program " "$TMP/out" && ok || fail "bench-$program-help: no usage line"
  done
  expect_exit 64 bench-zero-beam -- "$BENCH/heed_bench_decode_phases" --beam 0
  bench_error decode_phases bench-zero-beam "option '--beam' must be an integer in \[1, 1000\]"
  expect_exit 64 bench-no-mechanism -- "$BENCH/heed_bench_attention_step" --steps 1
  bench_error attention_step bench-no-mechanism "mechanism"
  expect_exit 64 bench-bad-attention -- "$BENCH/heed_bench_train_phases" --attention nosuch
  bench_error train_phases bench-bad-attention "unknown attention 'nosuch'"
  expect_exit 0 bench-decode -- "$BENCH/heed_bench_decode_phases" --attention mlp --threads 1 \
    --hidden 8 --embed 8 --vocab 20 --beam 2 --batch 2 --sentences 2 --length 3 --steps 2 \
    --repeats 1 --peak-size 16
  grep -q '^# model: additive, ' "$TMP/out" && ok || fail "bench-decode: no model line naming additive"
  expect_eq bench-decode-rows "$(grep -cE $'^(encoder|decoder_rnn|attention|output|other|step)\t' "$TMP/out")" 6
  # train_phases with Bahdanau's arrangement (heed's model nearest Marian's s2s): named in the
  # model line, its phases rated; a decoder it does not know refused.
  expect_exit 0 bench-train-bahdanau -- "$BENCH/heed_bench_train_phases" --decoder bahdanau \
    --attention additive --threads 1 --hidden 8 --embed 8 --vocab 20 --batch 2 --length 3 \
    --steps 1 --warmup 1 --repeats 1 --peak-size 16
  grep -q '^# model: additive, bi-LSTM 4+4, LSTM 8 (bahdanau decoder), ' "$TMP/out" && ok ||
    fail "bench-train-bahdanau: $(grep '^# model' "$TMP/out")"
  expect_eq bench-train-rows "$(grep -cE $'^(encoder|decoder_rnn|attention|output|optimizer|update)\t' "$TMP/out")" 6
  expect_exit 64 bench-bad-decoder -- "$BENCH/heed_bench_train_phases" --decoder sideways
  bench_error train_phases bench-bad-decoder "--decoder: unknown value 'sideways'"
else
  echo "bench programs not checked: no $BENCH/heed_bench_decode_phases"
fi
finish
