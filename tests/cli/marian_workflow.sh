#!/usr/bin/env bash
# The quality study heed beside Marian (experiments/marian/Snakefile) planned, not run (Marian
# is not built in CI, and a dry run needs none of its binaries): on the embedded sample, two
# seeds plan a training per heed system, budget and seed through the recipe's rule and one per
# budget and seed of Marian's (and the choice of the model it scores), one run of the probe (Marian at its default rate), its
# vocabularies and the four test sets' BPE, and a comparison per budget and search of test2016 and of the four
# pooled (pooled=[]: test2016 alone; a set Multi30k lacks is refused), a kept run's pool its kept translations in order; quick=1 loads quick.yaml (40 updates, warm-up 10, a minute, the first 40 test
# sentences) under the command line's settings; one seed plans no comparison; a system that
# bench/peers/marian/systems.yaml lacks, or one both compared and a probe, is refused; a second Marian system trains in its own
# folder with its own options; the raw corpus's times do not redo its preparation; partial=1 plans the rows of the runs done
# and nothing else; a run kept in the results (row, machine, translations) is not redone where its scratch is gone, the
# comparisons read its translations and the rows name the CPU and binaries it ran on; a heed run of the updates budget is its
# seed's minutes run when that one trained the whole budget; systems.py gives the speed bench the same architectures. Skipped (77) without snakemake.
#   tests/cli/marian_workflow.sh BIN_DIR SOURCE_DIR
source "$(dirname "$0")/lib.sh"
ROOT=${DATA:?usage: marian_workflow.sh BIN_DIR SOURCE_DIR}
need_snakemake
C=$TMP/corpus
multi30k_sample "$C"
workflow=(snakemake -s "$ROOT/experiments/marian/Snakefile" -d "$TMP/wd"
          --profile "$ROOT/experiments/profiles/local")
study=("${workflow[@]}" -n -p)
config=(bin="$BIN" data="$C" work="$TMP/work" marian="$TMP/no-marian" results="$TMP/results")
count() { grep -cE "^(local)?(rule|checkpoint) $1:" "$TMP/out"; }  # RULE: its planned jobs

# The plan: 2 heed systems × 2 budgets × 2 seeds, Marian at heed's rate the same, the probe once
# (seed 1, updates), a comparison per budget and search. heed's runs of the updates budget are
# planned once their seed's minutes run has trained (it may be the same run: minutes_twin), so
# a dry run lists the minutes budget's 4.
expect_exit 0 plan -- "${study[@]}" --config "${config[@]}" 'seeds=[1, 2]'
expect_eq heed-trainings "$(count multi30k_train)" 4
expect_eq marian-trainings "$(count marian_train)" 5
# each Marian run's scored model chosen (its kept best, or its last if its budget stopped it
# after updates it never validated), then translated with it
expect_eq marian-models "$(count marian_model)" 5
grep -q 'model=$(cut -f1 .*/marian/updates/s1/model.scored)' "$TMP/out" && ok ||
  fail "plan: Marian does not translate with its scored model"
for f in marian/minutes/s1/train.done marian/updates/s2/train.done; do
  grep -q "$TMP/work/$f" "$TMP/out" && fail "plan: the probe runs $f" || ok
done
grep -q "$TMP/work/marian-lr0.001/minutes/s2/train.done" "$TMP/out" && ok ||
  fail "plan: no marian-lr0.001/minutes/s2"
expect_eq vocabularies "$(count marian_vocab)" 2
# the four test sets: Marian's BPE of each (test2016's with the recipe's name), the references
# of the three pooled with test2016, and each run translating all four
expect_eq test-bpe "$(count marian_test_bpe)" 4
expect_eq test-refs "$(count test_ref)" 3
for f in test.bpe.de test2017.bpe.de mscoco2017.bpe.de test2018.bpe.de mscoco2017.ref.lc.en; do
  grep -q "output: $TMP/work/$f" "$TMP/out" && ok || fail "plan: no $f"
done
# Marian's 4 runs translate the four sets greedily and with the beam, the probe test2016 only
expect_eq marian-translations "$(count marian_translate)" 34
expect_eq comparisons "$(count compare)" 4
for f in runs/heed-marian-like-minutes/s2/train.done marian/updates/s1/train.done; do
  grep -q "$TMP/work/$f" "$TMP/out" && ok || fail "plan: no $f"
done
grep -q -- "--time-limit 1800 " "$TMP/out" && ok || fail "plan: no 30-minute limit for heed"
grep -q -- "--decoder bahdanau --attention additive" "$TMP/out" && ok || fail "plan: no marian-like heed"
for f in compare-updates-beam1.tsv compare-minutes-beam5.tsv compare-minutes-beam5-pooled.tsv; do
  grep -q "$TMP/results/$f" "$TMP/out" && ok || fail "plan: no $f"
done
# The pooled comparisons: the references of the four sets one after the other, each run's kept
# translations of them in the same order
expect_eq pooled-comparisons "$(count compare_pooled)" 4
pool=$TMP/work/test2016+test2017+mscoco2017+test2018
grep -q "input: $TMP/work/test.ref.lc.en, $TMP/work/test2017.ref.lc.en, $TMP/work/mscoco2017.ref.lc.en, $TMP/work/test2018.ref.lc.en$" "$TMP/out" &&
  ok || fail "plan: the pooled references"
kept1=$TMP/results/runs/minutes/marian-lr0.001/s1
grep -q "input: $kept1/test2016.beam, $kept1/test2017.beam, $kept1/mscoco2017.beam, $kept1/test2018.beam$" "$TMP/out" &&
  ok || fail "plan: the pooled translations of marian-lr0.001/minutes/s1"
grep -q "marian-lr0.001=$pool/updates/marian-lr0.001/s1.greedy,$pool/updates/marian-lr0.001/s2.greedy " "$TMP/out" &&
  ok || fail "plan: the pooled comparison does not read the pools"
# pooled=[]: test2016 alone; a set Multi30k does not have is refused
expect_exit 0 no-pool -- "${study[@]}" --config "${config[@]}" 'seeds=[1, 2]' 'pooled=[]'
expect_eq no-pool "$(count compare_pooled) $(count marian_translate) $(count test_ref)" "0 10 0"
expect_exit 1 unknown-set -- "${study[@]}" --config "${config[@]}" 'pooled=[test2019]'
grep -q "marian: pooled: no test set 'test2019' to pool with test2016" "$TMP/err" "$TMP/out" &&
  ok || fail "unknown set: $(tail -3 "$TMP/err")"

# quick=1: quick.yaml's settings, the command line's work and results still.
expect_exit 0 quick -- "${study[@]}" --config "${config[@]}" quick=1
expect_eq quick-heed-trainings "$(count multi30k_train)" 4
grep -q -- "--max-steps 40 .*--warmup-steps 10 .*--time-limit 60 " "$TMP/out" && ok ||
  fail "quick: heed-train's budget: $(grep -m1 -o -- '--max-steps.*' "$TMP/out" | head -c 300)"
grep -q -- "--after-batches 40 " "$TMP/out" && ok || fail "quick: Marian's budget"
for f in test2016-first40.bpe.de mscoco2017-first40.ref.lc.en; do
  grep -q "$TMP/work/$f" "$TMP/out" && ok || fail "quick: no test subset $f"
done

# One seed: no comparison over seeds; heed's systems alone: no Marian at all.
expect_exit 0 one-seed -- "${study[@]}" --config "${config[@]}" 'seeds=[1]'
expect_eq one-seed-comparisons "$(count compare)" 0
expect_exit 0 heed-only -- "${study[@]}" --config "${config[@]}" 'systems=[heed-recipe, heed-marian-like]' \
  'probes=[]' 'seeds=[1, 2]'
expect_eq heed-only-marian "$(grep -cE '^(local)?rule marian_' "$TMP/out")" 0
expect_eq heed-only-comparisons "$(count compare)" 4

# partial=1: the rows made so far and nothing else (a study under way): none yet, then one.
expect_exit 0 partial-none -- "${study[@]}" rows --config "${config[@]}" 'seeds=[1, 2]' partial=1
expect_eq partial-none-trainings "$(grep -cE '^(local)?(rule|checkpoint) (multi30k_train|marian_train):' "$TMP/out")" 0
grep -q "# runs done: 0 of 13" "$TMP/out" && ok || fail "partial: no '0 of 13' in the rows job"
grep -q "# probes (one run each, not compared): marian" "$TMP/out" && ok ||
  fail "partial: the rows' header does not name the probe"
kept=$TMP/results/runs/updates
mkdir -p "$kept/marian/s1"
printf 'updates\tmarian\t1\t40\t1.0\t99.0\t1.00\t1.10\n' > "$kept/marian/s1/test2016.row"
expect_exit 0 partial-one -- "${study[@]}" rows --config "${config[@]}" 'seeds=[1, 2]' partial=1
grep -q "# runs done: 1 of 13" "$TMP/out" && ok || fail "partial: no '1 of 13' in the rows job"
# A kept run (its row, machine and translations in RESULTS/runs, committed with the results) is
# not redone where its scratch is gone (another machine, a clean clone), and the comparisons
# read its kept translations; the probe needs only its row.
for run in marian/s1 marian-lr0.001/s1 heed-recipe/s1; do
  mkdir -p "$kept/$run"
  printf 'updates\t%s\t1\t40\t1.0\t9.0\t1.00\t1.10\n' "${run%/*}" > "$kept/$run/test2016.row"
  printf '# cpu: Test CPU (family 1 model 2, 2 cores visible)\n# binaries: %s\n' \
    "$([ "${run%%-*}" = heed ] && echo "heed-train 0.1.0 (abc)" || echo "marian v1")" > "$kept/$run/machine.txt"
  for set in test2016 test2017 mscoco2017 test2018; do
    echo "a dog ." | tee "$kept/$run/$set.greedy" > "$kept/$run/$set.beam"
  done
done
expect_exit 0 kept-runs -- "${study[@]}" --config "${config[@]}" 'seeds=[1, 2]'
expect_eq kept-runs-trainings "$(count multi30k_train) $(count marian_train)" "4 3"
grep -q "runs/heed-recipe-updates/s1/train.done" "$TMP/out" && fail "kept: heed-recipe s1 retrains" || ok
grep -q "heed-recipe=$kept/heed-recipe/s1/test2016.greedy,$kept/heed-recipe/s2/test2016.greedy " "$TMP/out" &&
  ok || fail "kept: the comparison does not read the kept translations"
# The rows of the kept runs, made for real (partial=1: nothing else, Marian's vocabularies neither).
expect_exit 0 kept-rows -- "${workflow[@]}" rows --config "${config[@]}" 'seeds=[1, 2]' partial=1
rows=$TMP/results/rows.tsv
grep -q "^# runs on Test CPU (family 1 model 2, 2 cores visible): updates/heed-recipe/1, updates/marian-lr0.001/1, updates/marian/1$" "$rows" &&
  ok || fail "kept: the rows do not name the CPU of the kept runs: $(grep 'runs on' "$rows")"
grep -q "^# runs with heed-train 0.1.0 (abc): updates/heed-recipe/1$" "$rows" && ok ||
  fail "kept: the rows do not name heed's binaries: $(grep 'runs with' "$rows")"
grep -q "^# runs with marian v1: updates/marian-lr0.001/1, updates/marian/1$" "$rows" && ok ||
  fail "kept: the rows do not name Marian's binaries: $(grep 'runs with' "$rows")"
expect_eq kept-rows-table "$(grep -c $'^updates\t' "$rows")" 3
grep -q "^# runs done: 3 of 13$" "$rows" && ok || fail "kept: no '3 of 13' in rows.tsv"
# A kept run's pool, made for real: its four kept translations, test2016's first.
echo "a bird ." > "$kept/heed-recipe/s1/test2016.greedy"
expect_exit 0 kept-pool -- "${workflow[@]}" "$pool/updates/heed-recipe/s1.greedy" --config "${config[@]}" 'seeds=[1, 2]'
expect_eq kept-pool "$(tr '\n' ' ' < "$pool/updates/heed-recipe/s1.greedy")" "a bird . a dog . a dog . a dog . "
rm "$rows"
rm -r "$TMP/results/runs"
# A heed run of the updates budget whose seed's minutes run trained the whole budget before its
# time limit is that run (minutes_twin): the kept minutes run's row and translations serve both
# budgets and nothing trains again; one whose minutes run stopped short trains.
twin=$TMP/results/runs/minutes
for run in heed-recipe:2550 heed-marian-like:1000; do
  dir=$twin/${run%:*}/s1
  mkdir -p "$dir"
  printf 'minutes\t%s\t1\t%s\t30.0\t9.0\t1.00\t1.10\n' "${run%:*}" "${run#*:}" > "$dir/test2016.row"
  printf '# cpu: Twin CPU (family 3 model 4, 2 cores visible)\n# binaries: heed-train 0.1.0 (def)\n' \
    > "$dir/machine.txt"
  for set in test2016 test2017 mscoco2017 test2018; do
    echo "a cat ." | tee "$dir/$set.greedy" > "$dir/$set.beam"
  done
done
expect_exit 0 twins -- "${study[@]}" --config "${config[@]}" 'seeds=[1]'
for f in heed-recipe-updates/s1 heed-recipe-minutes/s1 heed-marian-like-minutes/s1; do
  grep -q "runs/$f/train.done" "$TMP/out" && fail "twins: $f trains" || ok
done
grep -q "runs/heed-marian-like-updates/s1/train.done" "$TMP/out" && ok ||
  fail "twins: heed-marian-like's updates run (its minutes run stopped short) does not train"
grep -q "input: $twin/heed-recipe/s1/test2016.row" "$TMP/out" && ok ||
  fail "twins: heed-recipe's updates row is not its minutes run's"
# made for real: the updates budget's row, the minutes run's machine
made=$TMP/results/runs/updates/heed-recipe/s1
expect_exit 0 twin-row -- "${workflow[@]}" "$made/test2016.row" --config "${config[@]}" 'seeds=[1]'
expect_eq twin-row "$(cat "$made/test2016.row")" "$(printf 'updates\theed-recipe\t1\t2550\t30.0\t9.0\t1.00\t1.10')"
grep -q "^# cpu: Twin CPU" "$made/machine.txt" && grep -q "^# the minutes run of this seed" "$made/machine.txt" &&
  ok || fail "twin row: its machine: $(cat "$made/machine.txt")"
rm -r "$TMP/results/runs"
# A rows.tsv already there (partial=1's, newer than every row) does not hide the runs to do.
mkdir -p "$TMP/results" && touch "$TMP/results/rows.tsv"
expect_exit 0 after-partial -- "${study[@]}" --config "${config[@]}" 'seeds=[1]'
expect_eq after-partial-trainings "$(count multi30k_train) $(count marian_train)" "2 3"
rm "$TMP/results/rows.tsv"
# A second Marian system (its own options after the architecture): its runs in WORK/SYSTEM/,
# its learning rate given to Marian, its row named by it, and the first's runs untouched.
expect_exit 0 marian-systems -- "${study[@]}" --config "${config[@]}" 'systems=[marian, marian-lr0.001]' \
  'probes=[]' 'seeds=[1]' 'modes=[updates]'
expect_eq marian-systems-trainings "$(count marian_train)" 2
for f in marian/updates/s1/train.done marian-lr0.001/updates/s1/train.done; do
  grep -q "$TMP/work/$f" "$TMP/out" && ok || fail "marian systems: no $f"
done
expect_eq marian-systems-rates "$(grep -c -- 'no-marian/marian --type s2s.* --learn-rate 0.001 --lr-warmup 500' "$TMP/out")" 1
grep -q "# other marian systems (their options): marian-lr0.001: --type s2s" "$TMP/out" && ok ||
  fail "marian systems: the rows' header does not name marian-lr0.001's options"
# The raw corpus is ancient: prepared data older than a new copy of the same corpus (a checkout,
# a redeployment) is not prepared again, so no run is redone.
mkdir -p "$TMP/aw"
for f in codes train.bpe.de train.bpe.en val.bpe.de val.bpe.en val.ref.lc.en test.ref.lc.en; do
  touch -d 2020-01-01 "$TMP/aw/$f"
done
touch "$C"/*
expect_exit 0 ancient-data -- "${study[@]}" "$TMP/aw/test.bpe.de" --config "${config[@]}" work="$TMP/aw"
expect_eq ancient-data-jobs "$(count multi30k_prepare) $(count marian_test_bpe)" "0 1"
# A system systems.yaml does not define.
expect_exit 1 unknown-system -- "${study[@]}" --config "${config[@]}" 'systems=[marian, nope]'
grep -q "marian: systems: no system 'nope'" "$TMP/err" "$TMP/out" && ok ||
  fail "unknown system: $(tail -3 "$TMP/err")"
expect_exit 1 probe-compared -- "${study[@]}" --config "${config[@]}" 'systems=[marian, heed-recipe]'
grep -q "marian: a system is either compared (systems) or a probe (probes)" "$TMP/err" "$TMP/out" &&
  ok || fail "probe compared: $(tail -3 "$TMP/err")"

# The bench's architectures: the same file, heed's on the recipe's model options.
systems=$ROOT/bench/peers/marian/systems.py
expect_eq bench-marian-like "$(/usr/bin/python3 "$systems" heed-marian-like --no-dropout | tr '\n' ' ')" \
  "--hidden 512 --embed 256 --decoder bahdanau --attention additive "
expect_eq bench-recipe "$(/usr/bin/python3 "$systems" heed-recipe | tr '\n' ' ')" \
  "--hidden 512 --embed 256 --dropout 0.3 "
expect_eq bench-marian "$(/usr/bin/python3 "$systems" marian | tr '\n' ' ' | cut -d' ' -f1-4)" \
  "--type s2s --enc-type bidirectional"
finish
