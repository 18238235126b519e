#!/usr/bin/env bash
# Attention cost per decoder step as the source grows, for any registered mechanisms
# (docs/benchmarks.md "Attention cost per step"): bench/attention_step.cpp, built by CMake as
# BUILD_DIR/bench/heed_bench_attention_step, with N = 64 sentences, Q = K = A = 512 and
# S in {50, 100, 200, 400, 800}. It prepares the keys once per batch, then times forward()
# of one step (Tq = 1) alone, at target positions 0 … min(STEPS, S) − 1 of each batch, until
# STEPS × REPEATS steps are timed, and prints the median
# microseconds per step: one TSV row per mechanism, one column per S.
#
#   bash bench/attention_step.sh [BUILD_DIR] [MECHANISM...]      (default: dot general local-m
#                                                                 local-p)
# Environment: THREADS (1), STEPS (200), REPEATS (3), LENGTHS (50,100,200,400,800), QUERIES
# (16: different random queries taken in turn),
# OPTIONS ("": --opt NAME=VALUE arguments for the mechanisms that declare NAME, e.g.
# "--opt window=10").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
shift || true
mechanisms=("$@")
[ ${#mechanisms[@]} -gt 0 ] || mechanisms=(dot general local-m local-p)
program=$BUILD/bench/heed_bench_attention_step
[ -x "$program" ] || { echo "attention_step.sh: $program not built (cmake --build $BUILD)" >&2; exit 66; }

# As heed-translate runs (tools/common/run.h prefer_huge_pages): malloc on transparent huge
# pages. local-p's windows, a different one per sentence scattered over the keys (105 MB at
# S = 800), run markedly faster with them.
export GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.hugetlb=1}
heed_machine_report
echo "# GLIBC_TUNABLES=$GLIBC_TUNABLES"
# shellcheck disable=SC2086
"$program" --threads "${THREADS:-1}" --steps "${STEPS:-200}" --repeats "${REPEATS:-3}" \
  --lengths "${LENGTHS:-50,100,200,400,800}" --queries "${QUERIES:-16}" ${OPTIONS:-} \
  "${mechanisms[@]}"
