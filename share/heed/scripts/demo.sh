#!/usr/bin/env bash
# Installs what is missing, builds heed and runs the main job on the embedded sample
# (share/heed/demo.sh, which says what it shows) in build/demo.
# DEMO_UPDATES (default 1500), DEMO_SEED (1) and DEMO_THREADS (2) set the training run.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
heed_install "${HEED_BUILD_PACKAGES[@]}"
heed_build
BIN=$HEED_BIN bash "$HEED_ROOT/share/heed/demo.sh" "$HEED_BUILD/demo"
