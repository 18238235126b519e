#!/usr/bin/env bash
# Builds Marian (marian-nmt/marian-dev) CPU-only, for bench/marian_side_by_side.sh: a peer, never
# part of heed, never run by CI or by the README's commands.
#
#   MARIAN_SRC=DIR INTGEMM_SRC=DIR bash bench/peers/marian/build.sh BUILD_DIR [COPY_DIR]
#
# MARIAN_SRC and INTGEMM_SRC are source trees or git directories (what `fetch` brings:
# /work/.mirror/marian-nmt+marian-dev/repo). Both are only read: the sources are copied into
# COPY_DIR (BUILD_DIR.src by default; outside heed's work tree), and the workarounds of
# ../shared/peers/README.md are applied to that copy:
#   - blobs missing from a snapshot are listed; src/3rd_party/SQLiteCpp/sqlite3/sqlite3.c (the
#     store drops files over ~4 MiB) becomes an empty file and Debian's libsqlite3 is linked;
#     any other missing file stops the build (exit 65);
#   - the copy is made a git repository of its own (src/CMakeLists.txt reads .git/logs/HEAD);
#   - -Werror is dropped from intgemm's add_compile_options and Marian's ALL_WARNINGS (GCC 12
#     warns inside its own AVX-512 headers).
# The binaries marian, marian-decoder, marian-vocab, marian-conv (the int8 model conversion,
# --gemm-type intgemm8) and marian-scorer (the quality study's validation of a model Marian saved
# without validating it: stopped by its budget) land in BUILD_DIR; BUILD_DIR/build-info.txt
# records both commits (and the intgemm commit Marian pins, when it differs), the compiler, the
# cmake options and the CPU (Marian builds with -march=native: its binaries are this CPU's).
# Re-running skips a finished build (the five binaries and build-info.txt present); FORCE=1
# rebuilds. Environment: JOBS (1), NICE (19).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
# shellcheck source=../../../share/heed/scripts/common.sh
source "$root/share/heed/scripts/common.sh"

die() { local code=$1; shift; echo "marian/build.sh: $*" >&2; exit "$code"; }
[ $# -ge 1 ] && [ $# -le 2 ] || die 64 "usage: MARIAN_SRC=DIR INTGEMM_SRC=DIR build.sh BUILD_DIR [COPY_DIR]"
[ -n "${MARIAN_SRC:-}" ] || die 64 "MARIAN_SRC is not set (a marian-dev source tree or git directory)"
[ -n "${INTGEMM_SRC:-}" ] || die 64 "INTGEMM_SRC is not set (an intgemm source tree or git directory)"
[ -d "$MARIAN_SRC" ] || die 66 "MARIAN_SRC $MARIAN_SRC is not a directory"
[ -d "$INTGEMM_SRC" ] || die 66 "INTGEMM_SRC $INTGEMM_SRC is not a directory"
BUILD=$(realpath -m "$1")
COPY=$(realpath -m "${2:-$BUILD.src}")
JOBS=${JOBS:-1}
NICE=${NICE:-19}
case "$COPY/" in "$root"/*) die 64 "COPY_DIR $COPY is inside heed's tree: build Marian outside it" ;; esac
case "$BUILD/" in "$root"/*) die 64 "BUILD_DIR $BUILD is inside heed's tree: build Marian outside it" ;; esac

binaries=(marian marian-decoder marian-vocab marian-conv marian-scorer)
built=1
for b in "${binaries[@]}"; do [ -x "$BUILD/$b" ] || built=0; done
if [ "${FORCE:-0}" != 1 ] && [ "$built" = 1 ] && [ -s "$BUILD/build-info.txt" ]; then
  heed_log "marian already built in $BUILD (FORCE=1 rebuilds)"
  exit 0
fi

heed_install cmake make g++ git libopenblas-dev libsqlite3-dev zlib1g-dev time

# A git directory (bare, or a work tree's .git) or a plain source tree?
is_git_dir() { [ -f "$1/HEAD" ] && [ -d "$1/objects" ]; }
# source_commit DIR: the commit a source is at, or "unknown".
source_commit() {
  if is_git_dir "$1"; then git --git-dir="$1" rev-parse HEAD
  elif [ -d "$1/.git" ] || [ -f "$1/.git" ]; then git -C "$1" rev-parse HEAD 2>/dev/null || echo unknown
  else echo unknown; fi
}
# export_tree SRC DEST MISSING_LIST: DEST gets SRC's files (HEAD's tree of a git directory;
# blobs absent from the snapshot are skipped and their paths written to MISSING_LIST).
export_tree() {
  local src=$1 dest=$2 missing=$3
  mkdir -p "$dest"
  : > "$missing"
  if is_git_dir "$src"; then
    local gitd=(git --git-dir="$src")
    # "mode type object<TAB>path" for every blob; the missing ones by cat-file's batch check
    "${gitd[@]}" ls-tree -r HEAD | awk '$2 == "blob"' > "$dest.tree"
    awk '{ print $3 }' "$dest.tree" | "${gitd[@]}" cat-file --batch-check | awk '$2 == "missing" { print $1 }' > "$dest.absent"
    awk -F'\t' 'NR == FNR { absent[$1] = 1; next } { split($1, f, " ") } f[3] in absent { print $2 }' \
      "$dest.absent" "$dest.tree" > "$missing"
    local exclude=()
    while IFS= read -r path; do exclude+=(":(exclude,literal)$path"); done < "$missing"
    # git archive still names the excluded missing blobs on stderr (and exits 0): those lines
    # are dropped, any other is shown.
    "${gitd[@]}" archive --format=tar HEAD -- . "${exclude[@]}" 2> "$dest.err" | tar -x -C "$dest"
    grep -v -F -f "$missing" "$dest.err" >&2 || true
    rm -f "$dest.err"
    rm -f "$dest.tree" "$dest.absent"
  else
    cp -a "$src/." "$dest/"
    rm -rf "$dest/.git"
  fi
}

marian_commit=$(source_commit "$MARIAN_SRC")
intgemm_commit=$(source_commit "$INTGEMM_SRC")
intgemm_pinned=unknown
if is_git_dir "$MARIAN_SRC"; then
  intgemm_pinned=$(git --git-dir="$MARIAN_SRC" ls-tree HEAD src/3rd_party/intgemm | awk '$2 == "commit" { print $3 }')
elif [ -d "$MARIAN_SRC/.git" ]; then
  intgemm_pinned=$(git -C "$MARIAN_SRC" ls-tree HEAD src/3rd_party/intgemm | awk '$2 == "commit" { print $3 }')
fi

# The copy: made afresh unless it is already the one for these two commits (a resumed build).
stamp="$COPY/.heed-copy-of"
want="marian $marian_commit intgemm $intgemm_commit"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ "$marian_commit" = unknown ]; then
  heed_log "copying $MARIAN_SRC ($marian_commit) and $INTGEMM_SRC ($intgemm_commit) to $COPY"
  rm -rf "$COPY"
  export_tree "$MARIAN_SRC" "$COPY" "$COPY.missing-marian"
  rm -rf "$COPY/src/3rd_party/intgemm"
  export_tree "$INTGEMM_SRC" "$COPY/src/3rd_party/intgemm" "$COPY.missing-intgemm"
  [ ! -s "$COPY.missing-intgemm" ] || die 65 "intgemm snapshot lacks $(head -n 1 "$COPY.missing-intgemm") (and $(($(wc -l < "$COPY.missing-intgemm") - 1)) more)"
  sqlite=src/3rd_party/SQLiteCpp/sqlite3/sqlite3.c
  while IFS= read -r path; do
    [ "$path" = "$sqlite" ] || die 65 "marian snapshot lacks $path (only $sqlite has a workaround)"
  done < "$COPY.missing-marian"
  # The amalgamation replaced by Debian's libsqlite3 (linked below); an empty file keeps the
  # SQLiteCpp target's source list valid.
  [ -f "$COPY/$sqlite" ] || : > "$COPY/$sqlite"
  # -Werror off: GCC 12's maybe-uninitialized inside its AVX-512 headers.
  sed -i 's/-Wall -Wextra -pedantic -Werror/-Wall -Wextra -pedantic/' "$COPY/src/3rd_party/intgemm/CMakeLists.txt"
  sed -i 's/list(APPEND ALL_WARNINGS -Wall; -Werror;/list(APPEND ALL_WARNINGS -Wall;/' "$COPY/CMakeLists.txt"
  grep -q -- '-Werror' "$COPY/src/3rd_party/intgemm/CMakeLists.txt" && die 70 "intgemm's -Werror is still in $COPY/src/3rd_party/intgemm/CMakeLists.txt"
  grep -q 'ALL_WARNINGS -Wall; -Werror' "$COPY/CMakeLists.txt" && die 70 "Marian's -Werror is still in $COPY/CMakeLists.txt"
  # A git repository of its own, for the version stamp src/CMakeLists.txt reads.
  git -C "$COPY" init -q
  git -C "$COPY" add -A
  git -C "$COPY" -c user.name=heed -c user.email=heed@localhost commit -q -m "marian $marian_commit + intgemm $intgemm_commit, heed's workarounds"
  echo "$want" > "$stamp"
fi

cmake_options=(-DCMAKE_BUILD_TYPE=Release -DCOMPILE_CPU=ON -DCOMPILE_CUDA=OFF -DUSE_SENTENCEPIECE=OFF
               -DUSE_MKL=OFF -DUSE_TCMALLOC=OFF -DUSE_DOXYGEN=OFF -DUSE_NCCL=OFF -DCOMPILE_TESTS=OFF
               -DCOMPILE_SERVER=OFF -DCOMPILE_EXAMPLES=OFF -DUSE_FBGEMM=OFF -DPYMARIAN=OFF
               "-DCMAKE_CXX_STANDARD_LIBRARIES=-lsqlite3 -lpthread")
mkdir -p "$BUILD"
heed_log "configuring marian in $BUILD"
cmake -S "$COPY" -B "$BUILD" "${cmake_options[@]}" > "$BUILD/cmake.log" 2>&1 ||
  die 70 "cmake failed: $(grep -m1 -i 'error' "$BUILD/cmake.log" || tail -n 1 "$BUILD/cmake.log") (log: $BUILD/cmake.log)"
targets=(marian_train marian_decoder marian_vocab marian_conv marian_scorer)
heed_log "building ${targets[*]} (nice $NICE, -j$JOBS; log: $BUILD/build.log)"
start=$(date +%s)
nice -n "$NICE" cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" >> "$BUILD/build.log" 2>&1 ||
  die 70 "build failed: $(grep -m1 'error' "$BUILD/build.log" || tail -n 1 "$BUILD/build.log") (log: $BUILD/build.log)"
# A resumed or extended build adds its time to the earlier runs' (BUILD_DIR/build-seconds).
seconds=$(( $(date +%s) - start + $(cat "$BUILD/build-seconds" 2>/dev/null || echo 0) ))
echo "$seconds" > "$BUILD/build-seconds"
minutes=$(( (seconds + 59) / 60 ))
for b in "${binaries[@]}"; do [ -x "$BUILD/$b" ] || die 70 "$BUILD/$b was not built"; done

{
  echo "# Marian CPU-only build for heed's bench/marian_side_by_side.sh ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo "marian_commit: $marian_commit"
  echo "marian_version: $("$BUILD/marian" --version 2>&1 | head -n 1)"
  echo "marian_source: $MARIAN_SRC"
  echo "intgemm_commit: $intgemm_commit"
  echo "intgemm_pinned_by_marian: $intgemm_pinned"
  [ "$intgemm_pinned" = unknown ] || [ "$intgemm_pinned" = "$intgemm_commit" ] ||
    echo "intgemm_note: built with $intgemm_commit instead of the pinned $intgemm_pinned (the pinned commit is not in $INTGEMM_SRC)"
  echo "intgemm_source: $INTGEMM_SRC"
  echo "missing_from_snapshot: $(tr '\n' ' ' < "$COPY.missing-marian" 2>/dev/null) (empty stub; system libsqlite3 linked)"
  echo "workarounds: copy made a git repository; -Werror dropped (intgemm add_compile_options, Marian ALL_WARNINGS)"
  echo "cmake_options: ${cmake_options[*]}"
  echo "build_arch: $(grep -m1 -o 'BUILD_ARCH:[A-Z]*=.*' "$BUILD/CMakeCache.txt" || echo unknown)"
  echo "compiler: $(c++ --version | head -n 1)"
  echo "blas: $(sed -n 's/^-- CBLAS library found: //p' "$BUILD/cmake.log" | head -n 1)"
  echo "build_minutes: $minutes (all runs of this script on BUILD_DIR; the last: nice $NICE, -j$JOBS, on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cpu_isa: $(grep -m1 '^flags' /proc/cpuinfo | grep -oE 'avx512[a-z_0-9]*|amx[a-z_0-9]*|avx2|avx_vnni|fma|sse4_2' | sort -u | tr '\n' ' ')"
  echo "lscpu_flags: $(lscpu | sed -n 's/^Flags: *//p')"
} > "$BUILD/build-info.txt"
heed_log "marian built in $minutes min: $BUILD (build-info.txt)"
cat "$BUILD/build-info.txt"
