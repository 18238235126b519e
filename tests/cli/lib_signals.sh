# Stopping a filter by a signal while it writes -o FILE (source after lib.sh).

# expect_stopped_cleanly NAME SIGNAL TARGET MIN_BYTES -- COMMAND...: starts COMMAND, which
# writes TARGET with -o and must still be running (reading a FIFO that stays open, say) once its
# temporary file TARGET.tmp-* holds MIN_BYTES; sends SIGNAL; then the status must be 128 + the
# signal's number, no temporary file may be left and TARGET must be as it was.
expect_stopped_cleanly() {
  local name=$1 signal=$2 target=$3 min_bytes=$4
  shift 5
  local before
  before=$(cat "$target" 2>/dev/null || echo "<absent>")
  # Job control, so that the background job does not start with SIGINT ignored.
  set -m
  "$@" >/dev/null 2>"$TMP/stopped.err" &
  local pid=$!
  set +m
  local waited temp
  for waited in $(seq 400); do
    temp=$(compgen -G "$target.tmp-*")
    [ -n "$temp" ] && [ "$(stat -c %s "$temp")" -ge "$min_bytes" ] && break
    sleep 0.05
  done
  kill "-$signal" "$pid"
  wait "$pid"
  expect_eq "$name-status" $? $((128 + $(kill -l "$signal")))
  expect_eq "$name-no-temp-file" "$(compgen -G "$target.tmp-*")" ""
  expect_eq "$name-target-unchanged" "$(cat "$target" 2>/dev/null || echo "<absent>")" "$before"
}

# expect_prompt_stop NAME SIGNAL PID [DIR]: sends SIGNAL to PID (started with the signal's
# default action: env --default-signal), which has nothing to save yet and must end by it at
# once — status 128 + the signal's number — leaving no DIR behind. A process that is still
# there 30 s later ignored the signal: it fails the test and is killed, so that the test never
# hangs on it.
expect_prompt_stop() {
  local name=$1 signal=$2 pid=$3 dir=${4:-}
  kill "-$signal" "$pid"
  local waited
  for waited in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$name: still running 30 s after SIG$signal"
    kill -9 "$pid"
  fi
  wait "$pid"
  expect_eq "$name-status" $? $((128 + $(kill -l "$signal")))
  if [ -n "$dir" ]; then
    [ -e "$dir" ] && fail "$name: left $dir ($(ls -A "$dir" | tr '\n' ' '))" || ok
  fi
}
