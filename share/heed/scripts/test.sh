#!/usr/bin/env bash
# Installs what is missing, builds heed and runs the whole test suite (unit, CLI, lint).
# Tests that need ../shared/data beside the clone are skipped, visibly, where it is absent.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# python3-torch and python3-numpy: the independent PyTorch reference (tests/reference/);
# clang-format: the formatting lint; gdb: cli.fault_injection stops heed-train inside a checkpoint
# write to kill it there.
heed_install "${HEED_BUILD_PACKAGES[@]}" python3 python3-torch python3-numpy clang-format gdb
heed_build -DHEED_WERROR=ON
heed_log "running the tests"
cd "$HEED_BUILD"
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} ctest --output-on-failure -j "$(nproc)"
