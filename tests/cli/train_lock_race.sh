#!/usr/bin/env bash
# Two heed-train on one new output directory (issue 62): exactly one trains, to a model
# byte-identical to an uncontested run's; the other exits 75 naming the winner's pid and touches
# nothing of the winner's (a refused run removed the lock and the directory, and the winner lost
# its run at its first checkpoint). First a case that makes the loss certain, then 50 starts at
# once: both wait for a line on one FIFO, which gets both lines together, and start each after
# its own random 0–2 ms, so either may win. Each trainer reads its corpus from a pipe that gives
# the data only once the other trainer has exited (or after 20 s), so the winner holds the lock
# until the loser has been refused: the two overlap however slow the machine (a pipe that gave
# the data after 0.4 s let a winner finish before a loser delayed by ASan on a loaded machine
# started, which then found a finished run: 64, not 75). Were both to pass the lock, each would
# wait its 20 s and train: 0 and 0, a failure, not a hang.
source "$(dirname "$0")/lib.sh"
T=$BIN/heed-train
sample_pairs 200 0
model=(--hidden 8 --embed 8 --vocab-size 200 --batch-size 16 --threads 1 --seed 5 -q
       --max-steps 2 --save-every 1)
expect_exit 0 reference -- "$T" --train-src "$TMP/src" --train-tgt "$TMP/tgt" "${model[@]}" -o "$TMP/ref"
mkfifo "$TMP/go"
exec {go}<>"$TMP/go"  # held open all along: a line written before its reader opens stays there

# after OTHER: returns once trainer OTHER (its pid in $TMP/pid.OTHER) has exited — gone, or a
# zombie its parent has not reaped yet — or after 20 s.
after() {
  local pid state
  for _ in $(seq 400); do [ -s "$TMP/pid.$1" ] && break; sleep 0.05; done
  pid=$(cat "$TMP/pid.$1" 2> /dev/null)
  for _ in $(seq 400); do
    state=$(awk '{ print $3 }' "/proc/$pid/stat" 2> /dev/null)
    [ -z "$state" ] || [ "$state" = Z ] && return 0
    sleep 0.05
  done
}

# start DIR NAME OTHER: a trainer on DIR in the background that waits for its line, then 0–2 ms,
# its corpus coming once trainer OTHER has exited; its pid in $started.
start() {
  local delay=0.00$((RANDOM % 3))
  (
    read -r <>"$TMP/go"
    sleep "$delay"
    exec "$T" --train-src <(after "$3"; cat "$TMP/src") --train-tgt <(after "$3"; cat "$TMP/tgt") \
      "${model[@]}" -o "$1"
  ) >/dev/null 2>"$TMP/err.$2" &
  started=$!
}

# First, the loss made certain: the loser starts first and finds no directory, then waits to
# open its metrics FIFO while the winner makes the directory and takes the lock (the winner's
# corpus comes 2 s later); when the FIFO's reader comes, the loser is refused (75) and must leave
# the winner's directory alone (it removed it, and the winner exited 74 at its first checkpoint).
mkfifo "$TMP/metrics"
dir=$TMP/race/first
"$T" --train-src "$TMP/src" --train-tgt "$TMP/tgt" "${model[@]}" --metrics-file "$TMP/metrics" \
  -o "$dir" >/dev/null 2>"$TMP/err.loser" &
loser=$!
sleep 1
"$T" --train-src <(sleep 2; cat "$TMP/src") --train-tgt <(sleep 2; cat "$TMP/tgt") "${model[@]}" \
  -o "$dir" >/dev/null 2>"$TMP/err.winner" &
winner=$!
for _ in $(seq 300); do grep -qx "$winner" "$dir/.lock" 2>/dev/null && break; sleep 0.1; done
cat "$TMP/metrics" >/dev/null &
wait $loser
expect_eq first-loser-exit $? 75
wait $winner
expect_eq first-winner-exit $? 0
wait
grep -q "another heed-train (pid $winner) is training into this directory" "$TMP/err.loser" &&
  ok || fail "first: the loser did not name the winner ($winner): $(head -c 300 "$TMP/err.loser")"
expect_same first-winner-model "$TMP/ref/model.heed" "$dir/model.heed"
expect_eq first-directory "$(ls -A "$dir" | tr '\n' ' ')" ".lock checkpoint.heed model.heed "
rm -rf "$dir"

# Then 50 starts at once.
rounds=50
for round in $(seq "$rounds"); do
  dir=$TMP/race/r$round
  rm -f "$TMP/pid.a" "$TMP/pid.b"
  start "$dir" a b
  a=$started
  start "$dir" b a
  b=$started
  echo "$a" > "$TMP/pid.a"
  echo "$b" > "$TMP/pid.b"
  printf 'go\ngo\n' >&$go  # one line each: both start
  wait $a
  status_a=$?
  wait $b
  status_b=$?
  case "$status_a:$status_b" in
    0:75) winner=$a loser=b ;;
    75:0) winner=$b loser=a ;;
    *)
      fail "round $round: exits $status_a and $status_b, expected 0 and 75: $(cat "$TMP/err.a" "$TMP/err.b" | head -c 400)"
      continue
      ;;
  esac
  grep -q "another heed-train (pid $winner) is training into this directory" "$TMP/err.$loser" &&
    ok || fail "round $round: the loser did not name the winner ($winner): $(head -c 300 "$TMP/err.$loser")"
  expect_same "round $round: the winner's model" "$TMP/ref/model.heed" "$dir/model.heed"
  expect_eq "round $round: the directory" "$(ls -A "$dir" | tr '\n' ' ')" ".lock checkpoint.heed model.heed "
  rm -rf "$dir"
done
finish
