#!/usr/bin/env bash
# Runs every fuzz target of BUILD_DIR (made by tests/fuzz/build.sh; this script builds nothing)
# for SECONDS each, JOBS targets at a time (default: the number of cores; each is one process of
# one thread), on a scratch copy of its seed corpus and regression inputs (the committed files
# are never written). Prints one line per target, in name order, with its executions and
# verdict; crashing inputs are kept in BUILD_DIR/fuzz-artifacts/<name>/.
# Exits 1 if any target found a crash (or is missing), 64 on bad usage.
#   [JOBS=N] tests/fuzz/run.sh BUILD_DIR SECONDS
set -uo pipefail
if [ $# -ne 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: tests/fuzz/run.sh BUILD_DIR SECONDS" >&2
  exit 64
fi
build=$(cd "$1" && pwd) || exit 64
seconds=$2
jobs=${JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "tests/fuzz/run.sh: JOBS '$jobs' is not a positive count" >&2; exit 64; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# fuzz_one NAME: one target's run and its verdict line; status 1 if it failed or is missing.
fuzz_one() {
  local name=$1 exe corpus artifacts log status execs found
  exe=$build/fuzz/heed_fuzz_$name
  if [ ! -x "$exe" ]; then
    printf '%-16s MISSING (%s not built)\n' "$name" "$exe"
    return 1
  fi
  corpus=$scratch/$name
  artifacts=$build/fuzz-artifacts/$name
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  for dir in "$here/corpus/$name" "$here/regressions/$name"; do
    [ -d "$dir" ] && find "$dir" -maxdepth 1 -type f -exec cp {} "$corpus/" \;
  done
  log=$artifacts/fuzz.log
  # -close_fd_mask=1: the targets' stdout (--help of the options target) is noise. One thread
  # each: JOBS targets share the cores.
  OMP_NUM_THREADS=1 "$exe" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 \
    -close_fd_mask=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
  status=$?
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -n 1)
  found=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  if [ "$status" -eq 0 ] && [ "$found" -eq 0 ]; then
    printf '%-16s %12s execs  clean\n' "$name" "${execs:-?}"
  else
    printf '%-16s %12s execs  FAILED (exit %d, %d input(s) in %s, log %s)\n' "$name" \
      "${execs:-?}" "$status" "$found" "$artifacts" "$log"
    grep -m 3 -E 'ERROR|SUMMARY|property violated|terminate' "$log" | sed 's/^/    /'
    return 1
  fi
}

names=()
for source in "$here"/*_fuzz.cpp; do names+=("$(basename "$source" _fuzz.cpp)"); done
running=0
for name in "${names[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  { fuzz_one "$name" >"$scratch/$name.verdict" 2>&1; echo $? >"$scratch/$name.status"; } &
  running=$((running + 1))
done
wait
failed=0
for name in "${names[@]}"; do
  cat "$scratch/$name.verdict"
  [ "$(cat "$scratch/$name.status" 2>/dev/null)" = 0 ] || failed=1
done
exit $failed
