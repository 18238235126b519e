#!/usr/bin/env bash
# The pooling study of docs/attention.md ("Is feed-forward attention just a dense layer?"):
# heed-pooling over its default grid (both tasks, every model, fixed lengths), then the
# variable-length rows, into results/pooling.tsv. heed-pooling keeps the rows a table already
# has and skips their runs, so the study resumes where it stopped.
#
#   BIN=/tmp/heed-study-bin bash experiments/pooling/run.sh
#
# The table in results/ was made with a budget of 10,000 steps *or* 100 seconds, whichever came
# first (BUDGET_SECONDS=100): on a loaded machine that mixes the load into "solved", which is why
# the faithful reproduction (issue 31) budgets updates only. Environment: BIN (default
# build/bin), THREADS (2), BUDGET_STEPS (10000), BUDGET_SECONDS (0 = none) and RESULTS.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/build/bin}
THREADS=${THREADS:-2}
RESULTS=${RESULTS:-$here/results/pooling.tsv}
budget=(--budget-steps "${BUDGET_STEPS:-10000}")
[ "${BUDGET_SECONDS:-0}" = 0 ] || budget+=(--budget-seconds "$BUDGET_SECONDS")
# libgomp's spin-waiting makes a step several times slower on a shared machine.
export OMP_WAIT_POLICY=passive
"$BIN/heed-pooling" "${budget[@]}" --threads "$THREADS" -v -o "$RESULTS"
"$BIN/heed-pooling" --variable-length --lengths 100,1000 "${budget[@]}" --threads "$THREADS" -v \
  -o "$RESULTS"
