#!/usr/bin/env bash
# Sanitizer job: builds heed with AddressSanitizer + UndefinedBehaviorSanitizer in a separate
# build directory and runs the whole unit suite (every Catch2 test) and the CLI contract tests
# under them. Any report fails the job: UBSan does not recover (-fno-sanitize-recover, see
# cmake/sanitizers.cmake) and ASan/LSan exit non-zero, which fails the test.
#
# Left out, on purpose: reference.parity (PyTorch does the work, heed only dumps one case; the
# normal job runs it) and the layering lint (no heed code runs). Everything else runs.
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
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEED_WERROR=OFF \
  -DHEED_SANITIZE="address;undefined" >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
built=$(date +%s)

supp=$PWD/.ci/lsan.supp
# detect_leaks: LSan runs at exit (the default on x86-64 Linux; said here for clarity).
# check_initialization_order + strict_init_order: static-initialisation order bugs.
export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$BUILD"
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} ctest --output-on-failure -j "$(nproc)" \
  -E '^(reference\.parity|lint\.include_discipline)$'
echo "sanitize: build $((built - start)) s, tests $(($(date +%s) - built)) s"
