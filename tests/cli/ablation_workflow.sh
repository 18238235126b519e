#!/usr/bin/env bash
# The ablation's Snakemake workflow (experiments/ablation/Snakefile, under
# experiments/profiles/local). The committed study: its plan is the committed plan.tsv, -n plans
# exactly its 30 unfinished runs and nothing of what is done, and its page rule renders
# docs/studies/ablation.md byte for byte from (a copy of) results/. The learning-rate rules on a
# tiny plan of its own (the embedded English–French sample, hidden 16, 6 updates): the plan's order,
# a configuration heed-train refuses skipped with its message, the check of the first seed, the
# chosen rate carried to the second seed, to a configuration without a check of its own, to another
# hidden size (checked there) and to a scorer without a core configuration. The quick try-out
# (--config quick=1) end to end on the sample: Ctrl-C in its first training, the same command
# resumes from the checkpoint and finishes (rows, scores, probes, comparisons, the page), then has
# nothing to do. Settings it cannot use are refused with one line naming them.
# Skipped (77) without snakemake or Debian's python3-jinja2 and python3-matplotlib.
#   tests/cli/ablation_workflow.sh BIN_DIR SOURCE_DIR
source "$(dirname "$0")/lib.sh"
SRC_DIR=${DATA:?usage: ablation_workflow.sh BIN_DIR SOURCE_DIR}
need_snakemake
/usr/bin/python3 "$SRC_DIR/experiments/ablation/report.py" --check > /dev/null 2>&1 ||
  { echo "skipped: /usr/bin/python3 with python3-jinja2 and python3-matplotlib needed"; exit 77; }
export MPLCONFIGDIR=$TMP/matplotlib
study=$SRC_DIR/experiments/ablation
ablation=(snakemake -s "$study/Snakefile" -d "$TMP/wd" --profile "$SRC_DIR/experiments/profiles/local")

# A corpus named as Multi30k's files (the sample: 300 training pairs, 20 validation, two test
# sets of 12 and 8), and as the study's four test sets for its dry run.
C=$TMP/corpus
multi30k_sample "$C"
sample=$SRC_DIR/share/heed/sample
sed -n 13,20p "$sample/test.en" > "$C/test_b.de"
sed -n 13,20p "$sample/test.fr" > "$C/test_b.en"
for t in test_2017_flickr test_2017_mscoco test_2018_flickr; do
  for l in de en; do cp "$C/test_b.$l" "$C/$t.$l"; done
done
tests='tests=["test2016=test_2016_flickr", "b=test_b"]'

# The committed study: its plan as committed, and -n plans its 30 unfinished runs only.
cp -r "$study/results" "$TMP/committed"
expect_exit 0 committed-plan -- "${ablation[@]}" plan --config bin="$BIN" data="$C" \
  results="$TMP/committed"
expect_same committed-plan.tsv "$study/results/plan.tsv" "$TMP/committed/plan.tsv"
grep -q '^166 runs planned, 136 done, 30 to run, 0 waiting' "$TMP/out" && ok ||
  fail "committed plan: $(tail -1 "$TMP/out")"
expect_exit 0 committed -- "${ablation[@]}" -n --config bin="$BIN" data="$C" work="$TMP/nowhere"
expect_eq committed-trainings "$(grep -c '^checkpoint ablation_train:' "$TMP/out")" 30
expect_eq committed-done "$(grep -c "$TMP/nowhere/runs/dot/" "$TMP/out")" 0
grep -q "$TMP/nowhere/runs/additive-a1024-0.004/s3/lr0.004/train.done" "$TMP/out" && ok ||
  fail "committed: no run of additive-a1024-0.004's third seed: $(grep -m3 train.done "$TMP/out")"
# Its page, rendered from a copy laid out as the checkout (the plots' links are relative).
mkdir -p "$TMP/page/experiments/ablation" "$TMP/page/docs/studies"
cp -r "$study/results" "$TMP/page/experiments/ablation/results"
expect_exit 0 page -- "${ablation[@]}" page --config bin="$BIN" \
  results="$TMP/page/experiments/ablation/results" page="$TMP/page/docs/studies/ablation.md"
expect_same page "$SRC_DIR/docs/studies/ablation.md" "$TMP/page/docs/studies/ablation.md"
diff -r "$study/results" "$TMP/page/experiments/ablation/results" > /dev/null && ok ||
  fail "page: the results changed: $(diff -r "$study/results" "$TMP/page/experiments/ablation/results" | head -3)"

echo "ablation_workflow: the committed study checked (${SECONDS}s)"

# The learning-rate rules on a tiny plan.
printf '# id\tfamily\tstage\tseeds\thidden\toptions
dot\tmain\tcore\t2\t-\t--attention dot
general\tmain\tcore\t5\t-\t--attention general
dot-sideways\tsideways\tarrangement\t1\t-\t--attention dot --decoder sideways
dot-bahdanau\tbahdanau\tarrangement\t1\t24\t--attention dot --decoder bahdanau
dot-h24\tluong-h24\tarrangement\t1\t24\t--attention dot
loc\tmain\tmain\t1\t-\t--attention location --max-positions 400
general-id\tmain\tmechanistic\t1\t-\t--attention general --identity-init 1
' > "$TMP/configs.tsv"
R=$TMP/rules/results
rules=(--config bin="$BIN" data="$C" "$tests" work="$TMP/rules" results="$R"
       page="$R/page.md" configs="$TMP/configs.tsv" hidden=16 model="--embed 8 --dropout 0.1"
       vocab=300 updates=6 warmup=2 valid_every=3 threads=1 precision=f32 lr_factors=2
       transfer_factors=2 bootstrap=20 'seeds=[1, 2]' cost_lengths=10 cost_hidden=16
       cost_repeats=1 beam=2)
expect_exit 0 rules-plan -- "${ablation[@]}" plan "${rules[@]}"
grep -q "^skipped: dot-sideways: heed-train: error: --decoder: unknown value 'sideways'" "$TMP/out" &&
  ok || fail "no message for the skipped configuration: $(grep skipped "$TMP/out")"
expect_eq plan-order "$(tail -n +2 "$R/plan.tsv" | cut -f2,4,5,6,7 | tr '\t\n' ' |')" \
  "dot core 1 0.001 16|general core 1 0.001 16|dot lr-check 1 0.002 16|general lr-check 1 0.002 16|dot core 2 chosen 16|general core 2 chosen 16|dot-bahdanau arrangement 1 chosen:dot-h24 24|dot-h24 arrangement 1 chosen:dot*1 24|dot-h24 lr-check 1 chosen:dot*2 24|loc main 1 chosen:dot*1 16|loc lr-check 1 chosen:dot*2 16|general-id mechanistic 1 chosen:general 16|"
grep -q '^12 runs planned, 0 done, 4 to run, 8 waiting for a learning-rate check$' "$TMP/out" && ok ||
  fail "rules plan: $(tail -1 "$TMP/out")"
expect_exit 0 rules -- "${ablation[@]}" "${rules[@]}"
expect_eq rules-runs "$(awk -F'\t' 'NR > 1 && $6 == "ok"' "$R/runs.tsv" | wc -l)" 12
expect_eq rules-steps "$(awk -F'\t' 'NR > 1 { print $7 }' "$R/runs.tsv" | sort -u)" 6
expect_eq lr-choice-rows "$(tail -n +2 "$R/lr-choice.tsv" | wc -l)" 8
chosen() { awk -F'\t' -v id="$1" '$1 == id && $6 == "yes" { print $4 }' "$R/lr-choice.tsv"; }
rate_of() { awk -F'\t' -v id="$1" -v s="${2:-1}" '$1 == id && $3 == s { print $4 }' "$R/runs.tsv" | sort -g | tr '\n' ' '; }
for id in dot general; do
  expect_eq "second-seed-$id" "$(rate_of "$id" 2)" "$(chosen "$id") "
done
expect_eq inherited "$(rate_of general-id)" "$(chosen general) "
dot_rate=$(chosen dot)
twice=$(awk -v r="$dot_rate" 'BEGIN { printf "%g", 2 * r }')
for id in dot-h24 loc; do
  expect_eq "carried-check-$id" "$(awk -F'\t' -v id="$id" '$1 == id { print $2 "|" $3 "|" $4 }' "$R/lr-choice.tsv" | tr '\n' ' ')" \
    "$dot_rate|1|$dot_rate $dot_rate|2|$twice "
  expect_eq "carried-runs-$id" "$(rate_of "$id")" "$(printf '%s\n' "$dot_rate" "$twice" | sort -g | tr '\n' ' ')"
done
expect_eq carried-inherited "$(rate_of dot-bahdanau)" "$(chosen dot-h24) "
grep -q '^\*\*Status: 12 of 12 runs done\*\*' "$R/page.md" && ok || fail "rules: no status line in the page"
grep -q '^| `dot-sideways` | heed-train: error: --decoder' "$R/page.md" && ok || fail "skipped not on the page"
grep -qE '^\| `dot-h24` \| 24 \| [0-9.e-]+ \(`dot`.s\) \| ' "$R/page.md" && ok ||
  fail "no carried check on the page: $(grep -F 'dot-h24' "$R/page.md" | head -3)"

echo "ablation_workflow: the learning-rate rules checked (${SECONDS}s)"

# The quick try-out: Ctrl-C (SIGINT to Snakemake's process group, as a terminal sends it) between
# a training's first checkpoint and its second (100 updates apart); heed-train saves its
# checkpoint, the job fails. 0.3 s after the first checkpoint, not at it: once, a Ctrl-C the
# moment it appeared ended the training with exit 134 (SIGABRT), recorded as a failed run — not
# reproduced since (6 tries at that moment on 2026-12-05, 8 before through this workflow, 20
# direct), an open defect. Not 2 s either: idle on a Zen 5 the 100 updates take about 1.4 s, and a
# Ctrl-C 2 s late found the training finished (CI, stop 70); 0.3 s stops it near update 120.
Q=$TMP/quick
quick=("${ablation[@]}" --config quick=1 bin="$BIN" data="$C" "$tests" work="$Q")
interrupt_once "$Q/runs/*/s*/lr*/checkpoint.heed" 300 0.3 -- "${quick[@]}"
code=$?
[ "$code" != 0 ] && ok || fail "quick, interrupted: exit 0 (the interrupt came too late?)"
grep -q 'heed-train stopped (exit 130); run again to resume' "$TMP/first.err" && ok ||
  fail "quick, interrupted: no stopped training: $(tail -5 "$TMP/first.err")"
stopped=$(compgen -G "$Q/runs/*/s*/lr*/checkpoint.heed" | head -1)
run=${stopped%/checkpoint.heed}
[ -n "$stopped" ] && [ ! -e "$run/train.done" ] && ok ||
  fail "quick, interrupted: no checkpoint without train.done: $(ls "$Q/runs"/*/* 2>&1 | head -5)"
before=$(tail -n +2 "$run/metrics.tsv" 2> /dev/null | cut -f1 | tr '\n' ' ')

# The same command resumes the stopped training and finishes the study.
expect_exit 0 quick -- "${quick[@]}"
grep -q 'resuming from its checkpoint' "$TMP/err" && ok || fail "quick: no resume: $(grep -m5 ablation "$TMP/err")"
after=$(tail -n +2 "$run/metrics.tsv" | cut -f1 | tr '\n' ' ')
expect_eq metrics-kept "${after:0:${#before}}" "$before"
R=$Q/results
expect_eq quick-runs "$(tail -n +2 "$R/runs.tsv" | cut -f1,3,4,6 | sort | tr '\t\n' ' |')" \
  "additive 1 0.001 ok|additive 2 0.001 ok|dot 1 0.001 ok|dot 2 0.001 ok|general 1 0.001 ok|general 2 0.001 ok|"
expect_eq quick-steps "$(awk -F'\t' 'NR > 1 { print $7 }' "$R/runs.tsv" | sort -u)" 200
expect_eq quick-scores "$(tail -n +2 "$R/scores.tsv" | cut -f4 | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
  "6b 6pooled 6test2016 "
for table in saturation parameters long long-length long-forced beam; do
  expect_eq "quick-$table" "$(tail -n +2 "$R/$table.tsv" | wc -l)" 6
done
expect_eq quick-silver "$(tail -n +2 "$R/silver.tsv" | cut -f4 | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
  "6argmax 6shift "
expect_eq quick-hyps "$(ls "$R/hyps" | wc -l)" 30  # 6 runs × (2 test sets, long, long-forced, beam)
groups=$(($(wc -l < "$R/length-groups.tsv") - 1))
expect_eq quick-compare "$(ls "$R/compare" | tr '\n' ' ')" \
  "main.b.tsv main.beam-gain.tsv main.beam-greedy.tsv main.beam.tsv $(for k in $(seq "$groups"); do printf 'main.length-%s.tsv ' "$k"; done)main.long-forced.tsv main.long.tsv main.pooled.tsv main.test2016.tsv "
expect_eq quick-compare-rows "$(awk -F'\t' '!/^#/ && NR > 1 && $2 == "BLEU" { print $1 "-" $3 }' "$R/compare/main.pooled.tsv" | tr '\n' ' ')" \
  "dot-2 general-2 additive-2 "
expect_eq quick-silver-compare "$(ls "$R/silver-compare" | tr '\n' ' ')" "diagonal.tsv main.tsv "
expect_eq quick-long-compare "$(ls "$R/long" | tr '\n' ' ')" "additive.tsv dot.tsv general.tsv "
grep -q '^\*\*Status: 6 of 6 runs done\*\*' "$R/ablation.md" && ok || fail "quick: no status line in the page"
expect_eq quick-settings "$(awk -F'\t' '$1 == "quick" || $1 == "hidden" || $1 == "updates" { print $2 }' "$R/settings.tsv" | tr '\n' ' ')" \
  "200 64 1 "

echo "ablation_workflow: the quick try-out checked (${SECONDS}s)"

# Finished: nothing to do.
expect_exit 0 quick-done -- "${quick[@]}" -n
grep -q 'Nothing to be done' "$TMP/out" && ok || fail "quick again: $(grep -A3 '^Job stats' "$TMP/out")"

# Settings it cannot use: one line naming them, nothing run.
bad() {  # NAME PATTERN KEY=VALUE...
  local name=$1 pattern=$2
  shift 2
  expect_exit 1 "$name" -- "${ablation[@]}" -n --config bin="$BIN" data="$C" work="$TMP/bad" "$@"
  # (A dry run logs to stdout.)
  grep -q -- "$pattern" "$TMP/out" "$TMP/err" && ok ||
    fail "$name: no '$pattern': $(grep -v '^Config file' "$TMP/out" "$TMP/err" | head -3)"
}
bad factor "learning-rate factor '1' is not a positive number other than 1" lr_factors="2 1"
bad seeds "seeds '\[\]': whole numbers, at least one" 'seeds=[]'
bad only "only: no configuration 'nosuch' in" 'only=["nosuch"]'
bad test "test set 'pooled=test_b': NAME=PREFIX" 'tests=["pooled=test_b"]'
bad configs "$TMP/absent.tsv not found" configs="$TMP/absent.tsv"
printf 'dot\tmain\tcore\tmany\t-\t--attention dot\n' > "$TMP/bad.tsv"
bad configs-line "$TMP/bad.tsv: dot: seeds 'many' is not a count" configs="$TMP/bad.tsv"
printf 'dot\tmain\tcore\t1\t-\t--lr 0.1 --attention dot\n' > "$TMP/bad.tsv"
bad core-rate "dot: a core configuration's rate is its check's: no --lr" configs="$TMP/bad.tsv"
bad bin "$TMP/nobin/heed-train: not found" bin="$TMP/nobin"
finish
