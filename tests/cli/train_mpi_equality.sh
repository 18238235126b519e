#!/usr/bin/env bash
# Data-parallel heed-train gives the result of one process: with the same seed and global
# batch, mpirun -np 2 ends with the weights of a single process within float summation-order
# noise; a batch smaller than the number of ranks (an empty shard) changes nothing at all; a
# run checkpointed by 2 ranks resumes on 1; a signal to one rank ends the job with one
# checkpoint (exit 130) from which --resume continues.
#
# Tolerance: 1e-4 on every weight after 20 Adam updates at lr 2e-3 (each weight moves by up to
# 20 × 2e-3 = 4e-2). With 2 ranks the gradient of each batch is the same sum, added in another
# order (each rank sums over its shard, then MPI adds the two parts), so the gradients differ in
# the last bits (relative 1e-7); Adam divides by sqrt(v), which turns that into update
# differences of the same relative size, and 20 updates through the network grow them to well
# under 1e-5 (measured here: 2.4e-6; docs/scale-out.md). A real error (a shard counted twice, the loss
# normalised per rank, a missed bucket) moves weights by 1e-3 and more: the run one update
# short, checked below, differs by far more than the tolerance.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mpi_lib.sh"
common=("${TINY[@]}" --dropout 0 --lr 2e-3 --lr-schedule constant)
tiny=("${common[@]}" --batch-size 16)
tolerance=1e-4

expect_exit 0 one-rank -- "$T" "${tiny[@]}" -o "$TMP/one" --max-steps 20
expect_exit 0 one-rank-19 -- "$T" "${tiny[@]}" -o "$TMP/one19" --max-steps 19
expect_exit 0 two-ranks -- mpi_run 2 "$T" "${tiny[@]}" -o "$TMP/two" --max-steps 20
expect_within two-vs-one "$TMP/one/model.heed" "$TMP/two/model.heed" $tolerance
# The comparison can tell: one update fewer is far outside the tolerance.
got=$(max_weight_difference "$TMP/one/model.heed" "$TMP/one19/model.heed")
awk -v d="${got% *}" -v t=$tolerance 'BEGIN { exit !(d > 10 * t) }' && ok ||
  fail "one update fewer differs by only ${got% *}: the tolerance cannot tell results apart"

# One sentence per batch: rank 1's shards are empty and its zero gradients add nothing, so the
# weights are bit-identical to one process's.
expect_exit 0 one-rank-b1 -- "$T" "${common[@]}" -o "$TMP/oneb1" --max-steps 8 --batch-size 1
expect_exit 0 two-ranks-b1 -- mpi_run 2 "$T" "${common[@]}" -o "$TMP/twob1" --max-steps 8 --batch-size 1
expect_same empty-shards "$TMP/oneb1/model.heed" "$TMP/twob1/model.heed"

# --resume on another number of processes: 10 updates on 2 ranks, 10 more on 1.
expect_exit 0 two-ranks-10 -- mpi_run 2 "$T" "${tiny[@]}" -o "$TMP/mixed" --max-steps 10
expect_exit 0 resumed-one-rank -- "$T" "${tiny[@]}" -o "$TMP/mixed" --max-steps 20 --resume
expect_within resume-2-then-1 "$TMP/one/model.heed" "$TMP/mixed/model.heed" $tolerance

# SIGINT to one rank: every rank stops after the same update, rank 0 saves one checkpoint, the
# job exits 130, and --resume (on 2 ranks) finishes the run.
dir=$TMP/sig
start_job 120 2 "$T" "${tiny[@]}" -o "$dir" --max-steps 100000 --save-every 0 --valid-every 0
sleep 2  # training, past the start-up
kill -INT "${RANKS[1]:-none}" 2>/dev/null || fail "signal: no rank to signal (${RANKS[*]})"
wait $JOB
expect_eq signal-exit $? 130
[ -f "$dir/checkpoint.heed" ] && ok || fail "signal: no checkpoint; stderr: $(tail -c 300 "$TMP/err")"
expect_exit 0 signal-resume -- mpi_run 2 "$T" "${tiny[@]}" -o "$dir" --max-steps 1 --resume
finish
