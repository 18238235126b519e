#!/bin/sh
# Runs every file of the given directories once through a libFuzzer binary (the HEED_FUZZ form
# of CTest's fuzz.replay.<name>): given files, libFuzzer executes each and fuzzes nothing.
# A missing directory is empty; no input at all is a failure.
#   replay.sh FUZZER DIR...
fuzzer=$1
shift
inputs=$(find "$@" -maxdepth 1 -type f 2>/dev/null)
[ -n "$inputs" ] || { echo "no inputs in $*" >&2; exit 1; }
# shellcheck disable=SC2086 # the names are ours or libFuzzer's hashes: no spaces
exec "$fuzzer" $inputs
