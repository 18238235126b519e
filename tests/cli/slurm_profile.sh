#!/usr/bin/env bash
# The SLURM profile (experiments/profiles/slurm) on the Multi30k recipe's workflow with tiny
# settings. Its dry run plans the jobs with their rules' resources. Run with stand-ins for sbatch,
# sacct and scancel on PATH (tests/cli/slurm/: no scheduler exists here), the profile's own
# command line submits every job that is not a local rule, asking for the rule's threads, memory
# and time limit with options sbatch knows; the profile's status.sh asks sacct for each job's
# state; the run ends with the recipe's table, and then has nothing to do. Skipped (77) without
# snakemake.
#   tests/cli/slurm_profile.sh BIN_DIR SOURCE_DIR
source "$(dirname "$0")/lib.sh"
ROOT=${DATA:?usage: slurm_profile.sh BIN_DIR SOURCE_DIR}
need_snakemake
C=$TMP/corpus
multi30k_sample "$C"
recipe=(snakemake -s "$ROOT/experiments/multi30k/Snakefile" -d "$TMP/wd"
        --profile "$ROOT/experiments/profiles/slurm"
        --config bin="$BIN" data="$C" work="$TMP/work" precision=f32 threads=1 updates=12 stages=2
        average=2 alpha=0.6 model_options="--hidden 16 --embed 8 --dropout 0.1"
        train_options="--lr 0.01 --lr-schedule cosine --warmup-steps 4")
export SLURM_STAND_IN=$TMP/slurm
mkdir -p "$SLURM_STAND_IN"
# Snakemake polls a cluster every 10 s, every second where CI=true.
stand_in=(env PATH="$ROOT/tests/cli/slurm:$PATH" CI=true)

# The dry run: the plan up to training (the rest is known once it has trained), with resources.
expect_exit 0 dry-run -- "${stand_in[@]}" "${recipe[@]}" -n
grep -A8 '^checkpoint multi30k_train:' "$TMP/out" | grep -q 'resources: .*mem_mb=4000.*runtime=30' &&
  ok || fail "dry run: training's resources: $(grep -A8 'multi30k_train:' "$TMP/out")"
[ ! -e "$SLURM_STAND_IN/submitted" ] && ok || fail "the dry run submitted: $(cat "$SLURM_STAND_IN/submitted")"

# The run through the stand-ins.
expect_exit 0 run -- "${stand_in[@]}" "${recipe[@]}"
expect_eq table "$(tail -n +2 "$TMP/out" | cut -f1,2,8 | tr '\t\n' ' |')" "1 6 0.6|2 12 0.6|avg2 12 0.6|"
submitted=$SLURM_STAND_IN/submitted
# submitted RULE: the sbatch command lines of RULE's jobs, up to the job script's name.
submitted() { grep -- "--job-name=heed-$1 " "$submitted" | sed 's| [^ ]*/snakejob\.[^ ]*\.sh$||'; }
expect_eq prepare "$(submitted multi30k_prepare)" \
  "--parsable --job-name=heed-multi30k_prepare --cpus-per-task=1 --mem=2000 --time=30 --output=.snakemake/slurm/multi30k_prepare-%j.out"
expect_eq train "$(submitted multi30k_train)" \
  "--parsable --job-name=heed-multi30k_train --cpus-per-task=1 --mem=4000 --time=30 --output=.snakemake/slurm/multi30k_train-%j.out"
expect_eq average "$(submitted multi30k_average)" \
  "--parsable --job-name=heed-multi30k_average --cpus-per-task=1 --mem=2000 --time=10 --output=.snakemake/slurm/multi30k_average-%j.out"
# Three models (two stages and the average), greedy and with the beam.
expect_eq translate "$(submitted multi30k_translate | sort | uniq -c | sed 's/^ *//')" \
  "6 --parsable --job-name=heed-multi30k_translate --cpus-per-task=1 --mem=2000 --time=30 --output=.snakemake/slurm/multi30k_translate-%j.out"
# Nothing else: scoring, the length penalty and the rows are local rules.
expect_eq jobs "$(wc -l < "$submitted")" 9
grep -c "^-j " "$SLURM_STAND_IN/sacct" > /dev/null && ok || fail "status.sh never asked sacct"
expect_eq job-logs "$(ls "$TMP/wd/.snakemake/slurm" | wc -l)" 9
[ ! -e "$SLURM_STAND_IN/cancelled" ] && ok || fail "jobs cancelled: $(cat "$SLURM_STAND_IN/cancelled")"
expect_exit 0 finished -- "${stand_in[@]}" "${recipe[@]}" -n
grep -q 'Nothing to be done' "$TMP/out" && ok || fail "after the run: $(tail -5 "$TMP/out")"
finish
