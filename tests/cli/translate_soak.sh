#!/usr/bin/env bash
# Soak: heed-translate as a co-process (input left open, a line in, a line out) over 60,000 varied
# lines, beam 5 and greedy. Every sentence brings new shapes (rows of live hypotheses × source
# length); the plan caches are bounded (onednn/plan_cache.h), so the peak resident memory grows
# over the first 30,000 lines and then levels off: over the next 30,000 it may grow by at most
# half of what it grew over the first (after 100 lines), and it stays under the estimate
# heed-translate logs (decode/memory.h). The peak is that of the largest batches met, and which
# lines share a batch depends on how much input the reader finds waiting (timing), so it still
# moves a little: measured here over 30,000 more lines 0-21 MiB (beam 1) against 90-108 over the
# first 30,000; a fixed "10 % + 8 MiB" failed once in five. An unbounded cache grows alike in
# both halves: before the caches were bounded the same input grew to 1.4 GB at 30,000 lines and
# kept growing (issue 29).
source "$(dirname "$0")/lib.sh"
if under_sanitizer; then
  echo "SKIPPED: resident memory under AddressSanitizer says nothing of heed's"
  exit 77
fi
train_sample_model 60
M=$TMP/m/model.heed
# Lines of 1 to 120 words drawn from the training text, the same every run; every 50th line has
# 120, so that the warm-up has met the largest batches already (a peak that grows with the
# number of lines read is then memory that is not given back, not a longer line).
awk 'BEGIN { srand(11) } { for (i = 1; i <= NF; i++) w[n++] = $i }
     END { for (l = 0; l < 60000; l++) { k = l % 50 ? 1 + int(rand() * 120) : 120; s = w[int(rand() * n)]
             for (j = 1; j < k; j++) s = s " " w[int(rand() * n)]; print s } }' "$TMP/raw.en" > "$TMP/varied"

kib() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status"; }
# wait_lines FILE N PID: until FILE has N lines (or the process ended, or 10 minutes passed).
wait_lines() {
  local waited=0
  while [ "$(wc -l < "$1")" -lt "$2" ]; do
    kill -0 "$3" 2>/dev/null || return 1
    [ "$waited" -lt 6000 ] || return 1
    sleep 0.1
    waited=$((waited + 1))
  done
}

for beam in 5 1; do
  rm -f "$TMP/in" "$TMP/out" "$TMP/err"
  mkfifo "$TMP/in"
  "$BIN/heed-translate" -m "$M" --beam-size "$beam" --threads 1 -v < "$TMP/in" > "$TMP/out" 2> "$TMP/err" &
  pid=$!
  exec 3> "$TMP/in"
  head -100 "$TMP/varied" >&3
  if ! wait_lines "$TMP/out" 100 $pid; then fail "beam $beam: no 100 output lines: $(tail -2 "$TMP/err")"; exec 3>&-; continue; fi
  start=$(kib VmHWM $pid)
  sed -n 101,30000p "$TMP/varied" >&3
  if ! wait_lines "$TMP/out" 30000 $pid; then fail "beam $beam: no 30,000 output lines: $(tail -2 "$TMP/err")"; exec 3>&-; continue; fi
  warm=$(kib VmHWM $pid)
  tail -n +30001 "$TMP/varied" >&3
  if ! wait_lines "$TMP/out" 60000 $pid; then fail "beam $beam: no 60,000 output lines: $(tail -2 "$TMP/err")"; exec 3>&-; continue; fi
  peak=$(kib VmHWM $pid)
  exec 3>&-
  wait $pid
  expect_eq "beam-$beam-exit" $? 0
  estimate=$(sed -n 's/.*memory: at most \([0-9]*\) MiB.*/\1/p' "$TMP/err")
  echo "beam $beam: peak RSS $((start / 1024)) MiB after 100 lines, $((warm / 1024)) MiB after 30,000, $((peak / 1024)) MiB after 60,000; estimate $estimate MiB" >&2
  [ $((peak - warm)) -le $(((warm - start) / 2)) ] && ok ||
    fail "beam $beam: peak RSS grew from $start KiB after 100 lines to $warm KiB after 30,000 and $peak KiB after 60,000: not levelling off"
  [ -n "$estimate" ] && [ "$peak" -le $((estimate * 1024)) ] && ok ||
    fail "beam $beam: peak RSS $peak KiB above the logged estimate of ${estimate:-?} MiB"
done
finish
