#!/usr/bin/env bash
# Contract tests of heed-pooling: --help, bad option values, the TSV table, resuming a results
# file, dense marked not applicable for variable lengths, a closed pipe.
source "$(dirname "$0")/lib.sh"
P=$BIN/heed-pooling
HEADER=$'task\tT\tlengths\tmodel\tsolved\tsteps_to_solve\tsteps\tfinal_accuracy\tfinal_mse\tparams\tseconds\tbudget_steps\tbudget_seconds\tnote'
# Tiny runs: a few steps on short sequences with a small held-out set.
TINY=(--budget-steps 3 --eval-every 2 --eval-size 10 --batch-size 5 --threads 1)

expect_exit 0 help -- "$P" --help
grep -q -- '--variable-length' "$TMP/out" && ok || fail "help: no --variable-length"

# Bad values: exit 64, one error line naming the option.
expect_exit 64 bad-task -- "$P" --task division
expect_error_line pooling bad-task "task"
expect_exit 64 bad-model -- "$P" --models ff-pool,lstm
expect_error_line pooling bad-model "lstm"
expect_exit 64 bad-length -- "$P" --lengths 50,1
expect_error_line pooling bad-length "lengths: '1'"
expect_exit 64 bad-length-text -- "$P" --lengths 50,abc
expect_error_line pooling bad-length-text "lengths: 'abc'"
expect_exit 64 bad-steps -- "$P" --budget-steps -1
expect_error_line pooling bad-steps "budget-steps"
expect_exit 64 bad-seconds -- "$P" --budget-seconds nan
expect_error_line pooling bad-seconds "budget-seconds"
expect_exit 64 no-budget -- "$P" --budget-steps 0
expect_error_line pooling no-budget "budget"
expect_exit 64 bad-lr -- "$P" --learning-rate 0
expect_error_line pooling bad-lr "learning-rate"

# One row per task × T × model after the header, on stdout.
expect_exit 0 stdout -- "$P" "${TINY[@]}" --task addition --lengths 4,6
expect_eq stdout-header "$(head -1 "$TMP/out")" "$HEADER"
expect_eq stdout-rows "$(tail -n +2 "$TMP/out" | cut -f1-4 | tr '\t\n' ' |')" \
  "addition 4 fixed ff-pool|addition 4 fixed mean|addition 4 fixed dense|addition 6 fixed ff-pool|addition 6 fixed mean|addition 6 fixed dense|"
awk -F'\t' 'NR > 1 && (NF != 14 || ($5 != "yes" && $5 != "no") || $7 > 3) { exit 1 }' "$TMP/out" &&
  ok || fail "stdout: bad row: $(cat "$TMP/out")"
# Parameter counts: ff-pool and mean do not grow with T; dense does (3W + (T·W + 1)·W + W + 1 = 40501 at T = 4, W = 100).
expect_eq params "$(tail -n +2 "$TMP/out" | cut -f2,4,10 | tr '\t\n' ' |')" \
  "4 ff-pool 10602|4 mean 10501|4 dense 40501|6 ff-pool 10602|6 mean 10501|6 dense 60501|"
# The same seed gives the same table (but for the seconds column).
expect_exit 0 again -- "$P" "${TINY[@]}" --task addition --lengths 4,6
cut -f1-10 "$TMP/out" > "$TMP/again"
"$P" "${TINY[@]}" --task addition --lengths 4,6 2>/dev/null | cut -f1-10 > "$TMP/first"
expect_same deterministic "$TMP/first" "$TMP/again"

# Variable lengths: dense is not applicable, said so in the row rather than padded.
expect_exit 0 variable -- "$P" "${TINY[@]}" --task multiplication --lengths 6 --variable-length
expect_eq variable-dense "$(grep $'\tdense\t' "$TMP/out" | cut -f3,5 | tr '\t' ' ')" "variable n/a"
grep $'\tdense\t' "$TMP/out" | grep -q 'one fixed length' && ok || fail "variable: no reason given"
expect_eq variable-ran "$(grep -c $'\tvariable\t\\(ff-pool\\|mean\\)\t\\(yes\\|no\\)\t' "$TMP/out")" 2

# --max-params skips the big dense model, saying so.
expect_exit 0 max-params -- "$P" "${TINY[@]}" --task addition --lengths 6 --models dense --max-params 50000
expect_eq max-params-row "$(tail -1 "$TMP/out" | cut -f4,5)" $'dense\tskipped'

# Resuming: -o FILE keeps its rows and runs only the missing ones.
mkdir "$TMP/r"
expect_exit 0 results -- "$P" "${TINY[@]}" --task addition --lengths 4 -o "$TMP/r/p.tsv"
expect_eq results-stdout "$(wc -c < "$TMP/out")" 0
expect_eq results-rows "$(wc -l < "$TMP/r/p.tsv")" 4
cp "$TMP/r/p.tsv" "$TMP/first.tsv"
expect_exit 0 resume -- "$P" "${TINY[@]}" --task addition --lengths 4,6 -o "$TMP/r/p.tsv" -v
expect_eq resume-rows "$(wc -l < "$TMP/r/p.tsv")" 7
expect_eq resume-kept "$(head -4 "$TMP/r/p.tsv")" "$(cat "$TMP/first.tsv")"
expect_eq resume-ran-only-new "$(grep -c 'T=4' "$TMP/err")" 0
expect_exit 0 resume-nothing-left -- "$P" "${TINY[@]}" --task addition --lengths 4,6 -o "$TMP/r/p.tsv"
expect_eq resume-nothing-left-rows "$(wc -l < "$TMP/r/p.tsv")" 7
expect_eq no-temp-files "$(ls "$TMP/r")" "p.tsv"
# A file that is not a results table is refused (65), not overwritten.
echo "something else" > "$TMP/r/other.tsv"
expect_exit 65 not-a-table -- "$P" "${TINY[@]}" --lengths 4 -o "$TMP/r/other.tsv"
expect_error_line pooling not-a-table "other.tsv:1: not a heed-pooling results table"
expect_eq not-a-table-untouched "$(cat "$TMP/r/other.tsv")" "something else"
# -o is read as earlier results only when it is a regular file that starts with the header: a
# large file of anything else is refused at once (it was read whole: 24 GB from /dev/full).
head -c 20000000 /dev/zero | tr '\0' 'x' > "$TMP/r/big.bin"
if ! under_sanitizer; then
  (ulimit -v 1000000; exec "$P" "${TINY[@]}" --lengths 4 -o "$TMP/r/big.bin") >"$TMP/out" 2>"$TMP/err"
  expect_eq big-not-a-table-exit $? 65
  expect_error_line pooling big-not-a-table "big.bin:1: not a heed-pooling results table"
fi
expect_exit 74 dev-full -- "$P" "${TINY[@]}" --lengths 4 -o /dev/full
expect_error_line pooling dev-full "/dev/full"
expect_exit 74 unwritable -- "$P" "${TINY[@]}" --lengths 4 -o "$TMP/none/p.tsv"
expect_error_line pooling unwritable "none"

# A closed pipe ends the run quietly.
"$P" "${TINY[@]}" --lengths 4,6 2>"$TMP/err" | head -1 > "$TMP/head"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || [ "$status" = 141 ] && ok || fail "sigpipe: exit $status"
expect_eq sigpipe-stderr "$(cat "$TMP/err")" ""
expect_eq sigpipe-header "$(cat "$TMP/head")" "$HEADER"
finish
