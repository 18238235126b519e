# Shared by demo.sh and test.sh (source tree only, never installed): install what is missing
# (Debian 12), then build heed. Sourced, not run. Works from any directory and when re-run.
set -euo pipefail
HEED_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HEED_BUILD=${HEED_BUILD:-$HEED_ROOT/build}
HEED_BIN=$HEED_BUILD/bin

# Bold on a terminal; plain text in a log file or a pipe.
heed_log() {
  if [ -t 2 ]; then printf '\033[1m==> %s\033[0m\n' "$*" >&2; else printf '==> %s\n' "$*" >&2; fi
}

# Installs the Debian packages in "$@" that are not installed yet.
heed_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  heed_log "installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# libopenmpi-dev, openmpi-bin: data-parallel heed-train under mpirun (docs/scale-out.md); heed
# builds and trains as one process without them (HEED_MPI=AUTO).
HEED_BUILD_PACKAGES=(cmake make g++ libdnnl-dev ocl-icd-opencl-dev libboost-program-options-dev
                     libicu-dev catch2 libspdlog-dev nlohmann-json3-dev libopenmpi-dev openmpi-bin)

heed_build() {
  heed_log "building heed in $HEED_BUILD"
  cmake -S "$HEED_ROOT" -B "$HEED_BUILD" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  # The build's progress is a log, like heed_log's: stderr, so that stdout carries the results.
  cmake --build "$HEED_BUILD" -j "$(nproc)" >&2
}
