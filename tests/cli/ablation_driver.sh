#!/usr/bin/env bash
# The ablation's driver (experiments/ablation/run.sh) end to end on a tiny corpus of its own (the
# embedded English–French sample, two test sets) with a configurations file of its own: a
# configuration whose options heed-train does not know is skipped with heed-train's message and
# the others run; the plan's order (the core seed-major, the learning-rate check after the first
# round, later seeds at the chosen rate, a rate carried to another hidden size or to a scorer
# without a check of its own (location from dot) checked there, then
# the other stages); a row per run, scores per test
# set and pooled, learning curves, translations, the comparisons of each family and the page with
# its status line; the probes of every run (saturation statistics, what the scorer's parameters
# learned, long inputs) and the share stage; a second call runs nothing; SIGTERM stops two
# workers' trainings at a checkpoint and starts no run; usage errors (64) and missing files (66).
#   tests/cli/ablation_driver.sh BIN_DIR SOURCE_DIR
# Needs Debian's /usr/bin/python3 with python3-jinja2 and python3-matplotlib (the report stage);
# skipped (77) without them.
source "$(dirname "$0")/lib.sh"
SRC_DIR=${DATA:?usage: ablation_driver.sh BIN_DIR SOURCE_DIR}
RUN=$SRC_DIR/experiments/ablation/run.sh
/usr/bin/python3 "$SRC_DIR/experiments/ablation/report.py" --check >/dev/null 2>&1 ||
  { echo "SKIPPED: /usr/bin/python3 with python3-jinja2 and python3-matplotlib needed"; exit 77; }
export MPLCONFIGDIR=$TMP/matplotlib
sample=$SRC_DIR/share/heed/sample
C=$TMP/corpus
mkdir -p "$C"
for l in en fr; do
  head -300 "$sample/train.$l" > "$C/train.$l"
  head -20 "$sample/valid.$l" > "$C/valid.$l"
  head -12 "$sample/test.$l" > "$C/a.$l"
  sed -n 13,20p "$sample/test.$l" > "$C/b.$l"
done
printf '# id\tfamily\tstage\tseeds\thidden\toptions
dot\tmain\tcore\t2\t-\t--attention dot
general\tmain\tcore\t5\t-\t--attention general
dot-sideways\tsideways\tarrangement\t1\t-\t--attention dot --decoder sideways
dot-bahdanau\tbahdanau\tarrangement\t1\t24\t--attention dot --decoder bahdanau
dot-h24\tluong-h24\tarrangement\t1\t24\t--attention dot
loc\tmain\tmain\t1\t-\t--attention location --max-positions 400
general-id\tmain\tmechanistic\t1\t-\t--attention general --identity-init 1
' > "$TMP/configs.tsv"
export BIN WORK=$TMP/work RESULTS=$TMP/results REPORT=$TMP/results/page.md
export MODEL="--embed 8 --dropout 0.1" VOCAB=300 HIDDEN=16 UPDATES=6 WARMUP=2 VALID_EVERY=3
export THREADS=1 PRECISION=f32 LR_FACTORS=2 TRANSFER_FACTORS=2 BOOTSTRAP=20 SEEDS="1 2"
corpus=(--train "$C/train" --valid "$C/valid" --test "a=$C/a" --test "b=$C/b" --src en --tgt fr
        --merges 100 --configs "$TMP/configs.tsv")
R=$RESULTS

expect_exit 0 plan -- bash "$RUN" "${corpus[@]}" --plan
expect_eq plan-cost "$(grep -c '^12 runs × 6 updates' "$TMP/out")" 1
# Without a learning-rate check (as --quick) every run is at LR: none waits for a choice.
expect_exit 0 plan-no-check -- env LR_FACTORS= RESULTS="$TMP/results-nocheck" bash "$RUN" "${corpus[@]}" --plan
expect_eq plan-no-check-rates "$(tail -n +2 "$TMP/results-nocheck/plan.tsv" | cut -f6 | sort -u)" 0.001
expect_exit 0 study -- bash "$RUN" "${corpus[@]}"
grep -q "^ablation: skipping dot-sideways: heed-train: error: --decoder: unknown value 'sideways'" "$TMP/err" &&
  ok || fail "no message for the skipped configuration: $(head -c 300 "$TMP/err")"
expect_eq skipped "$(cut -f1 "$R/skipped.tsv" | tail -n +2)" dot-sideways
expect_eq plan-order "$(tail -n +2 "$R/plan.tsv" | cut -f2,4,5,6,7 | tr '\t\n' ' |')" \
  "dot core 1 0.001 16|general core 1 0.001 16|dot lr-check 1 0.002 16|general lr-check 1 0.002 16|dot core 2 chosen 16|general core 2 chosen 16|dot-bahdanau arrangement 1 chosen:dot-h24 24|dot-h24 arrangement 1 chosen:dot*1 24|dot-h24 lr-check 1 chosen:dot*2 24|loc main 1 chosen:dot*1 16|loc lr-check 1 chosen:dot*2 16|general-id mechanistic 1 chosen:general 16|"
expect_eq runs "$(awk -F'\t' 'NR > 1 && $6 == "ok"' "$R/runs.tsv" | wc -l)" 12
expect_eq runs-steps "$(awk -F'\t' 'NR > 1 { print $7 }' "$R/runs.tsv" | sort -u)" 6
# The second seed runs at the rate the check chose.
for id in dot general; do
  chosen=$(awk -F'\t' -v id="$id" '$1 == id && $6 == "yes" { print $4 }' "$R/lr-choice.tsv")
  expect_eq "lr-choice-$id" "$(awk -F'\t' -v id="$id" '$1 == id && $3 == 2 { print $4 }' "$R/runs.tsv")" "$chosen"
done
expect_eq lr-choice-rows "$(tail -n +2 "$R/lr-choice.tsv" | wc -l)" 8
# A configuration without a check of its own runs at its counterpart's chosen rate.
expect_eq lr-inherited "$(awk -F'\t' '$1 == "general-id" { print $4 }' "$R/runs.tsv")" \
  "$(awk -F'\t' '$1 == "general" && $6 == "yes" { print $4 }' "$R/lr-choice.tsv")"
# At another hidden size: dot's own model there (dot-h24) checks dot's chosen rate and twice it,
# and dot-bahdanau, also at 24, runs at the rate that check chose.
dot_rate=$(awk -F'\t' '$1 == "dot" && $6 == "yes" { print $4 }' "$R/lr-choice.tsv")
expect_eq carried-check "$(awk -F'\t' '$1 == "dot-h24" { print $2 "|" $3 "|" $4 }' "$R/lr-choice.tsv" | tr '\n' ' ')" \
  "$dot_rate|1|$dot_rate $dot_rate|2|$(awk -v r="$dot_rate" 'BEGIN { printf "%g", 2 * r }') "
expect_eq carried-runs "$(awk -F'\t' '$1 == "dot-h24" { print $4 }' "$R/runs.tsv" | sort -g | tr '\n' ' ')" \
  "$(awk -F'\t' '$1 == "dot-h24" { print $4 }' "$R/lr-choice.tsv" | sort -g | tr '\n' ' ')"
expect_eq carried-inherited "$(awk -F'\t' '$1 == "dot-bahdanau" { print $4 }' "$R/runs.tsv")" \
  "$(awk -F'\t' '$1 == "dot-h24" && $6 == "yes" { print $4 }' "$R/lr-choice.tsv")"
# A scorer with no core configuration of its own (location) checks the rate carried from its
# family's baseline (dot's) the same way, at its own width.
expect_eq carried-scorer "$(awk -F'\t' '$1 == "loc" { print $2 "|" $3 "|" $4 }' "$R/lr-choice.tsv" | tr '\n' ' ')" \
  "$dot_rate|1|$dot_rate $dot_rate|2|$(awk -v r="$dot_rate" 'BEGIN { printf "%g", 2 * r }') "
expect_eq carried-scorer-runs "$(awk -F'\t' '$1 == "loc" { print $4 }' "$R/runs.tsv" | sort -g | tr '\n' ' ')" \
  "$(awk -F'\t' '$1 == "loc" { print $4 }' "$R/lr-choice.tsv" | sort -g | tr '\n' ' ')"
grep -qE '^\| `dot-h24` \| 24 \| [0-9.e-]+ \(`dot`.s\) \| ' "$REPORT" && ok ||
  fail "no carried check on the page: $(grep -F 'dot-h24' "$REPORT" | head -3)"
expect_eq scores "$(tail -n +2 "$R/scores.tsv" | cut -f4 | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
  "12a 12b 12pooled "
expect_eq hyps "$(ls "$R/hyps" | wc -l)" 60  # 12 runs × (2 test sets + the long inputs, whole and made to go on + beam)
expect_eq curves "$(cat "$R"/curves/*.tsv | grep -c '^[36]	')" 24
# The pooled set (20 sentences) by source length: groups that split it, in order of length.
groups=$(($(wc -l < "$R/length-groups.tsv") - 1))
[ "$groups" -ge 1 ] && [ "$groups" -le 5 ] && ok || fail "length groups: $groups"
expect_eq length-groups "$(awk -F'\t' 'NR > 1 { n += $4; if ($1 != NR - 1 || $2 > $3 || $2 <= last) bad = 1; last = $3 }
  END { print n, bad + 0 }' "$R/length-groups.tsv")" "20 0"
expect_eq compare "$(ls "$R/compare" | tr '\n' ' ')" \
  "main.a.tsv main.b.tsv main.beam-greedy.tsv main.beam.tsv $(for k in $(seq "$groups"); do printf 'main.length-%s.tsv ' "$k"; done)main.long-forced.tsv main.long.tsv main.pooled.tsv "
expect_eq length-compare "$(awk -F'\t' '!/^#/ && NR > 1 && $2 == "BLEU" { print $1 }' "$R/compare/main.length-1.tsv" | tr '\n' ' ')" \
  "dot general loc general-id "
grep -qE '^\| configuration \| [0-9]+(–[0-9]+)? words \([0-9]+\) \|' "$REPORT" && ok ||
  fail "no BLEU by source length on the page"
expect_eq compare-rows "$(awk -F'\t' '$1 == "general" { print $2 "-" $3 }' "$R/compare/main.pooled.tsv" | tr '\n' ' ')" \
  "BLEU-2 chrF2-2 "
grep -q '^\*\*Status: 12 of 12 runs done\*\*' "$REPORT" && ok || fail "no status line in the page"
grep -qE '^- `general` against `dot`: (differs|level|undecided): ' "$REPORT" && ok ||
  fail "no verdict for general in the page"
grep -q '^| `dot-sideways` | heed-train: error: --decoder' "$REPORT" && ok || fail "skipped not on the page"
# The probes of every finished run: the saturation statistics of its attention, its long inputs
# translated whole and one by one, the comparisons on them.
expect_eq saturation-rows "$(tail -n +2 "$R/saturation.tsv" | wc -l)" 12
awk -F'\t' 'NR > 1 && !($4 > 0 && $7 >= 0 && $7 <= 1 && $8 > 0 && $8 <= 1) { bad = 1 } END { exit bad }' \
  "$R/saturation.tsv" && ok || fail "saturation statistics out of range: $(head -3 "$R/saturation.tsv")"
# What the scorers' parameters learned: general's W_a (the nearest αI, the share not αI, in [0, 1])
# from each model file; dot has none (dashes).
expect_eq parameters-rows "$(tail -n +2 "$R/parameters.tsv" | wc -l)" 12
expect_eq parameters-dot "$(awk -F'\t' '$1 == "dot" { print $4 $5 $6 $7 }' "$R/parameters.tsv" | sort -u)" "----"
awk -F'\t' '$1 ~ /^general/ { n++; if (!($7 >= 0 && $7 <= 1 && $6 != "-" && $4 == "-")) bad = 1 }
             END { exit bad || !n }' "$R/parameters.tsv" && ok ||
  fail "general's W_a not measured: $(grep '^general' "$R/parameters.tsv" | head -2)"
expect_eq long-set "$(awk -F'\t' 'NR > 1 && ($3 < 30 || $3 > 80)' "$R/long-set.tsv" | wc -l)" 0
long_inputs=$(($(wc -l < "$R/long-set.tsv") - 1))
[ "$long_inputs" -ge 1 ] && ok || fail "no long inputs"
expect_eq long-rows "$(tail -n +2 "$R/long.tsv" | wc -l)" 12
# Where their BLEU goes: heed-score's length ratio and brevity penalty, whole and one by one.
expect_eq long-length-header "$(head -n 1 "$R/long-length.tsv")" \
  "$(printf 'id\tseed\tlr\tratio_long\tbp_long\tratio_joined\tbp_joined')"
# (The tiny models may say nothing at all: ratio and penalty 0.)
expect_eq long-length-rows "$(awk -F'\t' 'NR > 1 && $4 >= 0 && $5 >= 0 && $5 <= 1 && $6 >= 0 && $7 >= 0 && $7 <= 1' \
  "$R/long-length.tsv" | wc -l)" 12
# Made to go on: a row per run, its translations in input order, one per long input, none of
# them shorter than the least length its group allowed (the tiny models run on to it).
expect_eq long-forced-rows "$(awk -F'\t' 'NR > 1 && $6 >= 0 && $7 >= 0 && $7 <= 1' "$R/long-forced.tsv" | wc -l)" 12
expect_eq long-forced-lines "$(gzip -dc "$R/hyps/dot-s1-lr0.001.long-forced.txt.gz" | wc -l)" "$long_inputs"
expect_eq long-forced-header "$(head -n 1 "$R/long-forced.tsv")" "$(printf 'id\tseed\tlr\tbleu\tchrf\tratio\tbp')"
grep -q '^Made to go on\.' "$REPORT" && ok || fail "no forced long inputs on the page"
# The test sets again with beam search: a row per run at the beam asked, its translations the
# pooled set's, the greedy runs' comparisons repeated on them, and the table on the page.
expect_eq beam-header "$(head -n 1 "$R/beam.tsv")" "$(printf 'id\tseed\tlr\tbeam\tbleu\tchrf\tratio\tbp')"
expect_eq beam-rows "$(awk -F'\t' 'NR > 1 && $4 == 5 && $5 >= 0 && $8 >= 0 && $8 <= 1' "$R/beam.tsv" | wc -l)" 12
expect_eq beam-lines "$(gzip -dc "$R/hyps/dot-s1-lr0.001.beam.txt.gz" | wc -l)" 20
expect_eq beam-compare "$(awk -F'\t' '!/^#/ && NR > 1 && $2 == "BLEU" { print $1 }' "$R/compare/main.beam.tsv" | tr '\n' ' ')" \
  "dot general loc general-id "
# Every run beam searched: greedy on the same runs is the pooled comparison itself.
cmp -s "$R/compare/main.beam-greedy.tsv" "$R/compare/main.pooled.tsv" && ok ||
  fail "beam-greedy differs from pooled with every run beam searched"
grep -qE '^\| `general` \| 2 \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ ± [0-9.]+ \| ' "$REPORT" && ok ||
  fail "no row of general's beam search on the page"
# On the page, dot's runs that said something both ways (BLEU without the penalty is defined).
said=$(awk -F'\t' -v lr="$(awk -F'\t' '$1 == "dot" && $6 == "yes" { print $4 }' "$R/lr-choice.tsv")" \
  '$1 == "dot" && $3 == lr && $5 > 0 && $7 > 0' "$R/long-length.tsv" | wc -l)
if [ "$said" -gt 0 ]; then
  grep -qE "^\| \`dot\` \| $said \| [0-9.]+( ± [0-9.]+)? / [0-9.]+( ± [0-9.]+)? \| " "$REPORT" && ok ||
    fail "no row of where the long inputs' BLEU goes for dot on the page"
fi
expect_eq silver-rows "$(tail -n +2 "$R/silver.tsv" | cut -f4 | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
  "12argmax 12shift "
awk -F'\t' 'NR > 1 && !($5 >= 0 && $5 <= 100 && $11 == 12) { bad = 1 } END { exit bad }' "$R/silver.tsv" && ok ||
  fail "silver AER rows: $(head -3 "$R/silver.tsv")"
expect_eq silver-baseline "$(cut -f1 "$R/silver-baselines.tsv" | tr '\n' ' ')" "baseline diagonal "
expect_eq silver-header "$(head -n 1 "$R/silver.tsv" | cut -f4-6)" "$(printf 'reading\taer\tprecision')"
# Alignment along training: the second seed of each configuration in CURVE (dot general
# additive multi-head: here dot and general) kept the model of both validations (updates 3 and
# 6), each read against the silver links.
expect_eq silver-curves "$(tail -n +2 "$R/silver-curves.tsv" | cut -f1-4 | sort | tr '\t\n' ' |')" \
  "$(for id in dot general; do lr=$(awk -F'\t' -v id="$id" '$1 == id && $3 == 2 { print $4 }' "$R/runs.tsv")
     printf '%s 2 %s 3|%s 2 %s 6|' "$id" "$lr" "$id" "$lr"; done)"
expect_eq silver-curves-kept "$(find "$WORK/runs/dot-s1-lr0.001" -maxdepth 1 -name 'model.step-*' | wc -l)" 0
grep -q '^| 3 | [0-9.]* | [0-9.]* |$' "$REPORT" && ok || fail "no alignment-along-training table on the page"
# The argmax links kept, and compared with intervals: per family against its baseline's, and
# every configuration against the diagonal's.
expect_eq links "$(ls "$R/links" | wc -l)" 12
expect_eq links-lines "$(gzip -dc "$R/links/dot-s1-lr0.001.argmax.txt.gz" | wc -l)" 12
expect_eq silver-compare "$(ls "$R/silver-compare" | tr '\n' ' ')" "diagonal.tsv main.tsv "  # families of one configuration: none
expect_eq silver-compare-main "$(awk -F'\t' '!/^#/ && NR > 1 { print $1 "-" $2 "-" $3 }' "$R/silver-compare/main.tsv" | tr '\n' ' ')" \
  "dot-AER-2 general-AER-2 loc-AER-1 general-id-AER-1 "
expect_eq silver-compare-diagonal "$(awk -F'\t' '!/^#/ && NR > 1 { print $1 }' "$R/silver-compare/diagonal.tsv" | tr '\n' ' ')" \
  "diagonal dot general dot-bahdanau dot-h24 loc general-id "
grep -qE '^\| `general` \| 2 \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ ± [0-9.]+ \| [-+][0-9.]+ \[[-+][0-9.]+, [-+][0-9.]+\] (differs|level|undecided)(, provisional)? \| [-+][0-9.]+ \[' "$REPORT" &&
  ok || fail "no silver comparison for general on the page: $(grep -F '| `general` | 2 |' "$REPORT" | tail -1)"
expect_eq long-hyps "$(gzip -dc "$R/hyps/dot-s1-lr0.001.long.txt.gz" | wc -l)" "$long_inputs"
[ -s "$R/compare/main.long.tsv" ] && [ -s "$R/long/dot.tsv" ] && ok ||
  fail "no comparison on the long inputs: $(ls "$R/compare" "$R/long" 2>&1 | tr '\n' ' ')"
grep -q '^| `dot` | 2 | ' "$REPORT" && ok || fail "no saturation or long-input row for dot on the page"
# The mechanistic check against its counterpart: general from the identity against general.
expect_eq counterpart "$(cut -f1 "$R/counterpart/general-id.tsv" | sort -u | grep -v '^#' | tr '\n' ' ')" \
  "general general-id system "
grep -qE '^\| `general-id` \| `general` \| (differs|level|undecided)' "$REPORT" && ok ||
  fail "no counterpart row on the page"
cp "$R/runs.tsv" "$TMP/runs.first"
cp "$R/saturation.tsv" "$TMP/saturation.first"
cp "$R/parameters.tsv" "$TMP/parameters.first"

# Called again: nothing is trained, no row is added.
expect_exit 0 again -- bash "$RUN" "${corpus[@]}"
grep -q ': training (' "$TMP/err" && fail "a second call trained: $(grep ': training (' "$TMP/err" | head -2)"
expect_same again-runs "$R/runs.tsv" "$TMP/runs.first"
expect_same again-probes "$R/saturation.tsv" "$TMP/saturation.first"
expect_same again-parameters "$R/parameters.tsv" "$TMP/parameters.first"

grep -q '^ablation: 12 of 12 runs done$' "$TMP/err" && ok || fail "no count at the end: $(tail -n 3 "$TMP/err")"

# A run probed before the links were kept: read again, its links kept when they score as its
# row, and not when they do not (the row stays; the log says why).
cp "$R/links/dot-s1-lr0.001.argmax.txt.gz" "$TMP/links.first"
rm "$R/links/dot-s1-lr0.001.argmax.txt.gz" "$R/links/general-s1-lr0.001.argmax.txt.gz"
cp "$R/silver.tsv" "$TMP/silver.first"
awk -F'\t' -v OFS='\t' '$1 == "general" && $2 == 1 && $3 == "0.001" && $4 == "argmax" { $5 = "99.99" } 1' \
  "$TMP/silver.first" > "$R/silver.tsv"
expect_exit 0 links-again -- bash "$RUN" "${corpus[@]}" --stages probes
expect_same links-again-same "$R/links/dot-s1-lr0.001.argmax.txt.gz" "$TMP/links.first"
[ ! -f "$R/links/general-s1-lr0.001.argmax.txt.gz" ] && grep -q "^ablation: general-s1-lr0.001: its argmax links read again score '.*', not its row's '99.99	.*': not kept$" "$TMP/err" &&
  ok || fail "links scoring otherwise than their row kept, or no message: $(grep -F general-s1 "$TMP/err" | head -2)"
cp "$TMP/silver.first" "$R/silver.tsv"
expect_exit 0 links-restored -- bash "$RUN" "${corpus[@]}" --stages probes
expect_eq links-restored-count "$(ls "$R/links" | wc -l)" 12

# A learning-rate check still running (its row not in runs.tsv yet) is unfinished, not failed:
# no perplexity, the base rate kept, and the page says so. Then the finished state again.
awk -F'\t' '!($1 == "dot" && $4 == "0.002")' "$TMP/runs.first" > "$R/runs.tsv"
# --plan: what is left, at the pace of the finished runs.
expect_exit 0 plan-left -- bash "$RUN" "${corpus[@]}" --plan
left=$(($(wc -l < "$R/plan.tsv") - $(wc -l < "$R/runs.tsv")))  # dot's check, and its 2nd seed if at 0.002
grep -qE "^$left runs? left ≈ [0-9.]+ hours of one worker at the pace of the last finished runs \(median of the last five: [0-9.]+ min at hidden 16\)$" "$TMP/out" &&
  ok || fail "plan-left: $(tail -n 2 "$TMP/out")"
expect_exit 0 check-unfinished -- bash "$RUN" "${corpus[@]}" --stages "stats report"
expect_eq check-unfinished-row "$(awk -F'\t' '$1 == "dot" && $3 == 2 { print $5 "|" $6 }' "$R/lr-choice.tsv")" "|no"
expect_eq check-unfinished-chosen "$(awk -F'\t' '$1 == "dot" && $6 == "yes" { print $4 }' "$R/lr-choice.tsv")" 0.001
# A check that starts from an unfinished one has no rows yet.
expect_eq check-unfinished-carried "$(awk -F'\t' '$1 == "dot-h24"' "$R/lr-choice.tsv" | wc -l)" 0
grep -qE '^\| `dot` \|.*\| — \| 0\.001 \(check unfinished\) \|$' "$REPORT" && ok ||
  fail "check-unfinished: $(grep -F '| `dot` |' "$REPORT" | head -3)"
cp "$TMP/runs.first" "$R/runs.tsv"
expect_exit 0 check-finished -- bash "$RUN" "${corpus[@]}" --stages "stats report"

# A configuration at a rate its options fix (--lr): no check of its own, that rate whatever the
# checks chose; and families joined: general is compared with dot in main, its own, and with
# dot-fast in fast, whose baseline dot-fast is ('+'), its own family main. No probes: only the
# comparisons.
printf 'dot\tmain\tcore\t1\t-\t--attention dot
general\tmain,fast\tcore\t1\t-\t--attention general
dot-fast\tmain,+fast\tone-rate\t1\t-\t--lr 0.003 --attention dot
' > "$TMP/configs-joined.tsv"
R4=$TMP/results-joined
joined=(env WORK="$TMP/work-joined" RESULTS="$R4" REPORT="$R4/page.md" bash "$RUN" "${corpus[@]}"
        --configs "$TMP/configs-joined.tsv")
expect_exit 0 joined -- "${joined[@]}" --stages "data runs stats report"
expect_eq joined-plan "$(tail -n +2 "$R4/plan.tsv" | cut -f2-6 | tr '\t\n' ' |')" \
  "dot main core 1 0.001|general main,fast core 1 0.001|dot main lr-check 1 0.002|general main,fast lr-check 1 0.002|dot-fast main,+fast one-rate 1 0.003|"
expect_eq joined-runs "$(awk -F'\t' '$1 == "dot-fast" { print $2 "|" $4 "|" $6 }' "$R4/runs.tsv")" "main|0.003|ok"
expect_eq joined-checks "$(cut -f1 "$R4/lr-choice.tsv" | tail -n +2 | sort -u | tr '\n' ' ')" "dot general "
expect_eq joined-main "$(awk -F'\t' '!/^#/ && NR > 1 && $2 == "BLEU" { print $1 }' "$R4/compare/main.pooled.tsv" | tr '\n' ' ')" \
  "dot general dot-fast "
expect_eq joined-fast "$(awk -F'\t' '!/^#/ && NR > 1 && $2 == "BLEU" { print $1 }' "$R4/compare/fast.pooled.tsv" | tr '\n' ' ')" \
  "dot-fast general "
grep -q '^#### `fast`: against `dot-fast`$' "$R4/page.md" && grep -qE '^\| `general` \| pooled \| [-+][0-9.]+ \[' "$R4/page.md" &&
  grep -qE '^- `general` against `dot-fast` \(0\.00[12] against 0\.003\): (differs|level|undecided)' "$R4/page.md" &&
  ok || fail "joined: no family fast on the page: $(grep -F 'fast' "$R4/page.md" | head -3)"
printf 'dot\tmain,+x\tcore\t1\t-\t--attention dot\ngeneral\tmain,+x\tcore\t1\t-\t--attention general\n' > "$TMP/configs-bad.tsv"
expect_exit 65 family-two-baselines -- bash "$RUN" "${corpus[@]}" --configs "$TMP/configs-bad.tsv" --plan
grep -q "family 'x' has two baselines marked '+'" "$TMP/err" && ok || fail "family-two-baselines: $(cat "$TMP/err")"
printf 'dot\tmain\tcore\t1\t-\t--lr 0.01 --attention dot\n' > "$TMP/configs-bad.tsv"
expect_exit 65 core-fixed-rate -- bash "$RUN" "${corpus[@]}" --configs "$TMP/configs-bad.tsv" --plan
printf 'dot\tmain\tcore\t1\t-\t--attention dot\nfast\tmain\tone-rate\t1\t-\t--lr fast --attention dot\n' > "$TMP/configs-bad.tsv"
expect_exit 65 fixed-rate-not-a-number -- bash "$RUN" "${corpus[@]}" --configs "$TMP/configs-bad.tsv" --plan

# --commit commits RESULTS and the page in the repository that holds them, which need not be
# the driver's own checkout (a study runs from a copy outside the work tree its results go to).
G=$TMP/elsewhere
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
git init -q "$G" && git -C "$G" commit -q --allow-empty -m start
printf 'dot\tmain\tcore\t1\t-\t--attention dot\n' > "$TMP/configs-one.tsv"
expect_exit 0 commit-elsewhere -- env LR_FACTORS= WORK="$TMP/work-commit" RESULTS="$G/results" \
  REPORT="$G/page.md" bash "$RUN" "${corpus[@]}" --configs "$TMP/configs-one.tsv" \
  --stages "data runs report" --commit
expect_eq commit-elsewhere-message "$(git -C "$G" log -1 --format=%s)" \
  "Ablation at convergence: dot seed 1 (lr 0.001) done (1 of 1 runs); page regenerated"
expect_eq commit-elsewhere-clean "$(git -C "$G" status --porcelain | wc -l)" 0

# Two workers (JOBS=2) on a fresh study: every run once, at the same rates, with the same results
# as one worker's (each run is deterministic at one thread), the page's status complete.
expect_exit 0 two-jobs -- env JOBS=2 WORK="$TMP/work2" RESULTS="$TMP/results2" \
  REPORT="$TMP/results2/page.md" bash "$RUN" "${corpus[@]}" --stages "data runs probes stats report"
expect_eq two-jobs-units "$(tail -n +2 "$TMP/results2/runs.tsv" | cut -f1,3,4 | sort | uniq -d | wc -l)" 0
expect_eq two-jobs-runs "$(tail -n +2 "$TMP/results2/runs.tsv" | cut -f1,3,4,6 | sort)" \
  "$(tail -n +2 "$R/runs.tsv" | cut -f1,3,4,6 | sort)"
expect_eq two-jobs-scores "$(tail -n +2 "$TMP/results2/scores.tsv" | sort)" "$(tail -n +2 "$R/scores.tsv" | sort)"
expect_eq two-jobs-silver "$(tail -n +2 "$TMP/results2/silver.tsv" | sort)" "$(tail -n +2 "$R/silver.tsv" | sort)"
grep -q '^\*\*Status: 12 of 12 runs done\*\*' "$TMP/results2/page.md" && ok || fail "JOBS=2: no status line"
expect_exit 64 jobs-not-a-count -- env JOBS=0 bash "$RUN" "${corpus[@]}" --plan

# Stopped: SIGTERM to the driver (in the background, as a study runs) while its two workers
# train. Each training saves its checkpoint, no run is recorded and none starts after the stop;
# the driver exits 143 and says how to go on.
W3=$TMP/work-stop R3=$TMP/results-stop
env JOBS=2 UPDATES=1000000 VALID_EVERY=500000 WORK="$W3" RESULTS="$R3" REPORT="$R3/page.md" \
  bash "$RUN" "${corpus[@]}" --stages "data runs" > "$TMP/stop.out" 2> "$TMP/stop.err" &
driver=$!
for _ in $(seq 1500); do  # until both trainings have logged updates (at most ~5 minutes)
  n=0
  for m in "$W3"/runs/*/metrics.tsv; do [ -f "$m" ] && [ "$(wc -l < "$m")" -ge 2 ] && n=$((n + 1)); done
  [ "$n" -ge 2 ] && break
  sleep 0.2
done
kill -TERM "$driver"
code=0
wait "$driver" || code=$?
expect_eq stop-exit "$code" 143
expect_eq stop-checkpoints "$(ls "$W3"/runs/*/checkpoint.heed 2>/dev/null | wc -l)" 2
expect_eq stop-no-row "$(tail -n +2 "$R3/runs.tsv" 2>/dev/null | wc -l)" 0
expect_eq stop-no-new-run "$(grep -c ': training (' "$TMP/stop.err")" 2
expect_eq stop-message "$(tail -n 1 "$TMP/stop.err")" "ablation: stopped; call the driver again to resume"
# No heed-train in BIN: one line naming it, exit 69, no results written.
expect_exit 69 no-binaries -- env BIN="$TMP/none" RESULTS="$TMP/results-none" bash "$RUN" "${corpus[@]}" --plan
expect_eq no-binaries-line "$(wc -l < "$TMP/err")" 1
expect_eq no-binaries-results "$(ls "$TMP/results-none" 2>/dev/null | wc -l)" 0

# The share stage (alone, as on an idle machine): the phase benchmarks per mechanism of the
# baseline's family, three modes each, and the page's table.
BENCH=$(cd "$BIN/../bench" 2>/dev/null && pwd)
if [ -x "$BENCH/heed_bench_train_phases" ]; then
  expect_exit 0 share -- env BENCH="$BENCH" SHARE_REPEATS=1 SHARE_ROUNDS=2 bash "$RUN" "${corpus[@]}" --stages "share report"
  expect_eq share-files "$(ls "$R/share" | tr '\n' ' ')" \
    "dot.beam5.r1.tsv dot.beam5.r2.tsv dot.greedy.r1.tsv dot.greedy.r2.tsv dot.train.r1.tsv dot.train.r2.tsv general.beam5.r1.tsv general.beam5.r2.tsv general.greedy.r1.tsv general.greedy.r2.tsv general.train.r1.tsv general.train.r2.tsv location.beam5.r1.tsv location.beam5.r2.tsv location.greedy.r1.tsv location.greedy.r2.tsv location.train.r1.tsv location.train.r2.tsv "
  grep -q '; 2 interleaved rounds):$' "$REPORT" && ok || fail "the share's rounds not on the page"
  grep -qE '^\| `general` \| [0-9.,]+ \([0-9,]+–[0-9,]+\) \| [0-9.,]+ \([0-9]+ %\) \| [0-9.,]+ \(' "$REPORT" && ok ||
    fail "no share row for general on the page"
  expect_exit 66 share-without-bench -- env BENCH="$TMP/none" bash "$RUN" "${corpus[@]}" --stages share
else
  echo "share stage not checked: no $BIN/../bench/heed_bench_train_phases"
fi

# Usage errors and missing files, before anything runs.
expect_exit 64 test-without-name -- bash "$RUN" "${corpus[@]}" --test "$C/a" --plan
expect_exit 64 only-unknown -- bash "$RUN" "${corpus[@]}" --only "dot nosuch" --plan
expect_exit 64 bad-option -- bash "$RUN" --nosuch
expect_exit 64 bad-factor -- bash "$RUN" "${corpus[@]}" --transfer-factors "2 x" --plan
grep -q "factor 'x' is not a positive number" "$TMP/err" && ok ||
  fail "bad-factor: refused for another reason: $(head -c 200 "$TMP/err")"
# The documented option is taken (it was missing from the option list: 64, "unknown option").
expect_exit 0 transfer-factors -- bash "$RUN" "${corpus[@]}" --transfer-factors "0.5 2" --plan
expect_exit 64 factor-one -- bash "$RUN" "${corpus[@]}" --lr-factors "1" --plan
expect_exit 66 missing-test -- bash "$RUN" "${corpus[@]}" --test "c=$C/none" --plan
expect_exit 64 beam-not-a-count -- env BEAM=x bash "$RUN" "${corpus[@]}" --plan
expect_exit 64 beam-too-wide -- env BEAM=1001 bash "$RUN" "${corpus[@]}" --plan
expect_exit 64 test-named-beam -- bash "$RUN" "${corpus[@]}" --test "beam=$C/a" --plan
finish
