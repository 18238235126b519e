#!/usr/bin/env bash
# Sanitizer job: builds heed with AddressSanitizer + UndefinedBehaviorSanitizer in a separate
# build directory and runs the whole unit suite (every Catch2 test) and the CLI contract tests
# under them. Any report fails the job: UBSan does not recover (-fno-sanitize-recover, see
# cmake/sanitizers.cmake) and ASan/LSan exit non-zero, which fails the test.
#
# Left out, on purpose: reference.parity (PyTorch does the work, heed only dumps one case; the
# normal job runs it), the lints (no heed code runs), package.deb (a package of instrumented
# binaries is no package anyone installs; the normal job checks the real one) and the studies'
# workflows and reports (recipes.*: Snakemake and Python driving heed-train, -translate, -score
# and -align with the options the CLI tests run here instrumented; under ASan they were the
# larger part of CI's 90 minutes). Everything else runs.
# Usage: .ci/sanitize.sh [BUILD_DIR]   (default build-sanitize)
set -euo pipefail
cd "$(dirname "$0")/.."
source share/heed/scripts/common.sh
# gdb: tests/cli/fault_injection.sh stops heed-train inside a checkpoint write.
heed_install "${HEED_BUILD_PACKAGES[@]}" gdb python3
BUILD=${1:-build-sanitize}
start=$(date +%s)
# RelWithDebInfo: -O2 keeps the suite fast enough, -g gives reports with file:line. No
# -Werror here: the normal job enforces warnings, and GCC 12 under -fsanitize=address warns
# falsely (-Wmaybe-uninitialized inside <regex>, which catch.hpp includes).
# HEED_MPI=OFF: Open MPI keeps memory to the end of the process by design, which LeakSanitizer
# would report from every mpirun test; the normal job runs those (cli.train_mpi_*), here they
# are skipped visibly and the single-process trainer is checked.
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEED_WERROR=OFF -DHEED_MPI=OFF \
  -DHEED_SANITIZE="address;undefined" >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
built=$(date +%s)

# detect_leaks: LSan runs at exit (the default on x86-64 Linux; said here for clarity). No
# suppressions: oneDNN, OpenMP, ICU and spdlog (uninstrumented system libraries) report nothing
# under this suite; add a suppression file only for a report that is truly theirs, with its reason.
# check_initialization_order + strict_init_order: static-initialisation order bugs.
# log_path: every report also lands in a file, so that a report from a command whose status
# and stderr a test ignores (a setup step, one side of a pipe) still fails the job below.
reports=$PWD/$BUILD/sanitizer-reports
rm -rf "$reports" && mkdir -p "$reports"
export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:log_path=$reports/asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan
cd "$BUILD"
status=0
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} ctest --output-on-failure -j "$(nproc)" \
  -E '^(reference\.parity|lint\..*|package\..*|recipes\..*)$' || status=$?
if [ -n "$(ls -A "$reports")" ]; then
  echo "sanitize: sanitizer reports:" >&2
  head -50 "$reports"/* >&2
  status=1
fi
[ "$status" = 0 ] || exit "$status"
echo "sanitize: build $((built - start)) s, tests $(($(date +%s) - built)) s"
