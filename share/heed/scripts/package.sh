#!/usr/bin/env bash
# Installs what is missing, builds heed and packs it for Debian: cpack's DEB generator writes
# build/heed_<version>_<arch>.deb (Depends from dpkg-shlibdeps; cmake/packaging.cmake says what
# is in it) and this prints its path. Install it with `apt install ./build/heed_*.deb`.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# dpkg-dev: dpkg-shlibdeps, which computes Depends; file: how cpack finds the ELF files.
heed_install "${HEED_BUILD_PACKAGES[@]}" dpkg-dev file
heed_build
heed_log "packing heed into $HEED_BUILD"
(cd "$HEED_BUILD" && cpack -G DEB) >&2
version=$("$HEED_BIN/heed-tokenize" --version | cut -d' ' -f2)
echo "$HEED_BUILD/heed_${version}_$(dpkg --print-architecture).deb"
