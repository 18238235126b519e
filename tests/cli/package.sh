#!/usr/bin/env bash
# The Debian package (cmake/packaging.cmake), packed by cpack from the suite's build directory
# into a temporary one: its name, what it holds (the tools, man pages citing the installed docs,
# share/doc/heed with the licence, copyright and changelog, bash completion, the sample with its
# licence and the demo, the library's headers and CMake config, nothing else), its Depends
# (dpkg-shlibdeps: every library a tool links, no -dev package), lintian without errors; then,
# from a copy extracted with dpkg-deb -x, every tool's --version, the demo's first step
# (tokenizing the sample), the completion of every tool and subcommand against its --help, and
# a project outside heed built with find_package(heed) against the copy's /usr, run.
# Skipped (77) without cpack's Debian helpers; lintian alone missing: the rest runs, then 77.
# Usage: package.sh BUILD_DIR SOURCE_DIR
BUILD=${1:?usage: package.sh BUILD_DIR SOURCE_DIR}
SRC=${2:?usage: package.sh BUILD_DIR SOURCE_DIR}
source "$(dirname "$0")/lib.sh" "$BUILD/bin"
for command in dpkg-deb dpkg-shlibdeps file readelf; do
  if ! command -v "$command" >/dev/null; then
    echo "SKIPPED: $command not installed (Debian: dpkg-dev, file, binutils)"
    exit 77
  fi
done

version=$("$BIN/heed-tokenize" --version | cut -d' ' -f2)
deb=$TMP/pack/heed_${version}_$(dpkg --print-architecture).deb
expect_exit 0 "cpack -G DEB" -- cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$TMP/pack"
if [ ! -f "$deb" ]; then
  fail "no $deb; cpack wrote: $(ls "$TMP/pack" | tr '\n' ' ')"
  finish
  exit
fi
ok

# --- The control fields.
field() { dpkg-deb -f "$deb" "$1"; }
expect_eq "Package" "$(field Package)" heed
expect_eq "Version" "$(field Version)" "$version"
depends=$(field Depends)
echo "Depends: $depends"
if [ -n "$depends" ]; then ok; else fail "Depends is empty"; fi
if grep -qE -- '-dev\b' <<<"$depends"; then fail "Depends names a -dev package: $depends"; else ok; fi
# Every library a tool links directly is in Depends through the package that holds it (by its
# name or a name it provides: libspdlog1.10 provides libspdlog1.10-fmt9).
dpkg-deb -x "$deb" "$TMP/root"
root=$TMP/root
depended=$(tr ',|' '\n\n' <<<"$depends" | sed -E 's/^ +//; s/[ (].*//' | sort -u)
for tool in "${HEED_TOOLS[@]}"; do
  binary=$root/usr/bin/heed-$tool
  for soname in $(readelf -d "$binary" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
    path=$(ldd "$binary" | awk -v so="$soname" '$1 == so && $2 == "=>" { print $3 }')
    owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null ||
            dpkg -S "${path#/usr}" 2>/dev/null)
    package=${owner%%:*}
    names=$(dpkg-query -W -f='${Package}, ${Provides}' "$package" 2>/dev/null |
            tr ',' '\n' | sed -E 's/^ +//; s/[ (].*//' | grep .)
    if [ -n "$package" ] && grep -qxFf <(echo "$names") <<<"$depended"; then
      ok
    else
      fail "heed-$tool links $soname ($path, package '${package:-?}'), which Depends lacks"
    fi
  done
done

# --- What the package holds: exactly these files, all under /usr.
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort)
{
  for tool in "${HEED_TOOLS[@]}"; do
    echo "/usr/bin/heed-$tool"
    echo "/usr/share/man/man1/heed-$tool.1.gz"
    echo "/usr/share/bash-completion/completions/heed-$tool"
  done
  printf '/usr/share/doc/heed/%s\n' README.md LICENSE copyright changelog.gz
  (cd "$SRC" && find docs -name '*.md') | sed 's|^|/usr/share/doc/heed/|'  # docs/studies/ too
  (cd "$SRC/share/heed" && find sample -type f) | sed 's|^|/usr/share/heed/|'
  echo /usr/share/heed/demo.sh
  (cd "$SRC/lib" && find heed -name '*.h') | sed 's|^|/usr/include/|'
  echo /usr/include/heed/common/version.h
  echo /usr/lib/libheed_core.a
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" | tr A-Z a-z)
  printf '/usr/lib/cmake/heed/%s\n' heedConfig.cmake heedConfigVersion.cmake heedTargets.cmake \
    "heedTargets-${build_type:-noconfig}.cmake"
} | sort >"$TMP/want"
expect_eq "package contents (missing, then extra)" \
  "$(comm -23 "$TMP/want" - <<<"$files" | tr '\n' ' ')$(comm -13 "$TMP/want" - <<<"$files" | tr '\n' ' ')" ""
[ -x "$root/usr/share/heed/demo.sh" ] && ok || fail "demo.sh is not executable"
expect_same "LICENSE" "$root/usr/share/doc/heed/LICENSE" "$SRC/LICENSE"
expect_same "the sample's LICENSE" "$root/usr/share/heed/sample/LICENSE" "$SRC/share/heed/sample/LICENSE"
expect_eq "changelog's latest version" \
  "$(zcat "$root/usr/share/doc/heed/changelog.gz" | head -1 | sed -E 's/^heed \(([^)]*)\).*/\1/')" "$version"
if grep -q '^License: Expat' "$root/usr/share/doc/heed/copyright" &&
   grep -q '^License: CC-BY-2.0-FR' "$root/usr/share/doc/heed/copyright"; then
  ok
else
  fail "copyright lacks the Expat (MIT) or the sample's CC-BY-2.0-FR paragraph"
fi
# Man pages cite the docs where the package puts them, and nothing by its source-tree path.
for page in "$root"/usr/share/man/man1/*.1.gz; do
  for doc in $(zcat "$page" | grep -oE '/usr/share/doc/heed/docs/([A-Za-z0-9_-]+/)?[A-Za-z0-9_-]+\.md'); do
    if [ -f "$root$doc" ]; then ok; else fail "$(basename "$page") cites $doc, not in the package"; fi
  done
  left=$(zcat "$page" | grep -E '(^|[^/A-Za-z0-9_.-]|\\f[BIRP])docs/([A-Za-z0-9_-]+/)?[A-Za-z0-9_-]+\.md' | head -1)
  expect_eq "$(basename "$page"): a docs/ citation not turned into its installed path" "$left" ""
done

# --- lintian: no errors (its warnings and notes are printed, for the log).
if command -v lintian >/dev/null; then
  lintian --allow-root "$deb" >"$TMP/lintian" 2>&1
  errors=$(grep -c '^E:' "$TMP/lintian")
  echo "lintian: $errors errors, $(grep -c '^W:' "$TMP/lintian") warnings"
  grep -E '^[EW]:' "$TMP/lintian" | sed 's/^/  /'
  expect_eq "lintian errors" "$errors" 0
  lintian=yes
else
  echo "lintian not installed: its check is skipped"
  lintian=no
fi

# --- From the extracted copy: the tools, the demo's first step.
for tool in "${HEED_TOOLS[@]}"; do
  expect_exit 0 "heed-$tool --version from the package" -- "$root/usr/bin/heed-$tool" --version
  if grep -q "^heed-$tool $version" "$TMP/out"; then ok; else fail "heed-$tool --version: $(cat "$TMP/out")"; fi
done
expect_exit 0 "demo (tokenize) from the package" -- env DEMO_STEP=tokenize bash \
  "$root/usr/share/heed/demo.sh" "$TMP/demo"
expect_eq "demo: lines of train.tok.en" "$(wc -l <"$TMP/demo/train.tok.en" 2>/dev/null)" \
  "$(wc -l <"$root/usr/share/heed/sample/train.en")"

# --- The completion: for every tool and subcommand, '--<TAB>' offers exactly --help's options;
# the first word offers the subcommands.
# complete_words FILE WORD...: loads FILE as bash-completion would, completes the last WORD.
complete_words() {
  bash -c 'source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    function=$(complete -p "$1" | sed -E "s/.* -F ([^ ]+) .*/\1/")
    "$function" && printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
for tool in "${HEED_TOOLS[@]}"; do
  completion=$root/usr/share/bash-completion/completions/heed-$tool
  "$root/usr/bin/heed-$tool" --help >"$TMP/help" 2>&1
  subcommands=$(help_subcommands "$TMP/help")
  for sub in "" $subcommands; do
    name="heed-$tool${sub:+ $sub}"
    "$root/usr/bin/heed-$tool" $sub --help 2>&1 | help_options >"$TMP/h"
    complete_words "$completion" "heed-$tool" $sub -- | grep -- '^--' | sort -u >"$TMP/c"
    if [ -s "$TMP/h" ] && cmp -s "$TMP/h" "$TMP/c"; then
      ok
    else
      fail "$name: completion and --help differ: $(diff "$TMP/h" "$TMP/c" | grep '^[<>]' | tr '\n' ' ')"
    fi
  done
  if [ -n "$subcommands" ]; then
    expect_eq "heed-$tool: subcommands completed" \
      "$(complete_words "$completion" "heed-$tool" "" | tr '\n' ' ')" "$(echo $subcommands) "
  fi
done
completion=$root/usr/share/bash-completion/completions
expect_eq "heed-align sym<TAB>" "$(complete_words "$completion/heed-align" heed-align sym)" symmetrize
expect_eq "heed-align symmetrize --met<TAB>" \
  "$(complete_words "$completion/heed-align" heed-align symmetrize --met)" --method
expect_eq "heed-tokenize -<TAB> offers short options" \
  "$(complete_words "$completion/heed-tokenize" heed-tokenize - | grep -cx -- '-i')" 1
expect_eq "heed-train FILE<TAB> leaves file names to bash" \
  "$(complete_words "$completion/heed-train" heed-train tr)" ""

# --- A project outside heed: find_package(heed) at the copy's /usr, heed::core linked and run.
consumer=$TMP/consumer
expect_exit 0 "consumer: configure with CMAKE_PREFIX_PATH=<package>/usr" -- \
  cmake -S "$SRC/tests/package/consumer" -B "$consumer" -DCMAKE_PREFIX_PATH="$root/usr" \
  -DCMAKE_BUILD_TYPE=Release
expect_eq "consumer: heed_DIR" "$(sed -n 's/^heed_DIR:PATH=//p' "$consumer/CMakeCache.txt")" \
  "$root/usr/lib/cmake/heed"
expect_exit 0 "consumer: build" -- cmake --build "$consumer"
expect_exit 0 "consumer: run" -- "$consumer/heed_consumer"
expect_eq "consumer: output" "$(cat "$TMP/out")" "heed $version
tokens: Hello ￭, world ￭!
round trip: yes
product: 19 22 43 50"

finish || exit 1
if [ "$lintian" = no ]; then
  echo "SKIPPED: lintian not installed (Debian: lintian); everything else passed"
  exit 77
fi
