#!/usr/bin/env bash
# Installs what is missing, builds heed and runs the whole test suite (unit, CLI, lint).
# Tests that need ../shared/data beside the clone are skipped, visibly, where it is absent.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# clang-format: the formatting lint; gdb: cli.fault_injection stops heed-train inside a checkpoint
# write to kill it there; dpkg-dev, file, lintian: package.deb packs heed and checks the package.
# The tests that need Python packages for studies or the independent PyTorch reference
# (python3-torch, python3-jinja2, python3-matplotlib) or the studies' workflow engine (snakemake)
# skip, visibly, where they are missing: this command does not install them (CI does, .ci/run).
heed_install "${HEED_BUILD_PACKAGES[@]}" python3 clang-format gdb dpkg-dev file lintian
heed_build -DHEED_WERROR=ON
heed_log "running the tests"
cd "$HEED_BUILD"
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} ctest --output-on-failure -j "$(nproc)"
