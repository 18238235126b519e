#!/usr/bin/env bash
# Configures and builds the libFuzzer targets (clang, ASan + UBSan) from a clean clone:
#   tests/fuzz/build.sh [BUILD_DIR]        (default: build-fuzz beside the sources)
# Installs what is missing first: heed's build dependencies, clang, libclang-rt-14-dev
# (libFuzzer and the sanitizer runtimes) and libomp-14-dev (OpenMP for clang); with sudo when
# not root. Then run the targets with tests/fuzz/run.sh BUILD_DIR SECONDS.
source "$(dirname "${BASH_SOURCE[0]}")/../../share/heed/scripts/common.sh"
HEED_BUILD=${1:-$HEED_ROOT/build-fuzz}

heed_install "${HEED_BUILD_PACKAGES[@]}" clang libclang-rt-14-dev libomp-14-dev
heed_log "building the fuzz targets in $HEED_BUILD"
CC=clang CXX=clang++ cmake -S "$HEED_ROOT" -B "$HEED_BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DHEED_FUZZ=ON -DHEED_BUILD_TESTS=OFF >/dev/null
cmake --build "$HEED_BUILD" -j "$(nproc)" --target heed_fuzz
