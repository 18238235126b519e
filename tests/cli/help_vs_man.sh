#!/usr/bin/env bash
# --help and the man pages document the same long options: for every heed-* binary in BIN_DIR
# (and every subcommand a tool lists under "Subcommands:"), each option of --help is named in
# man/heed-<tool>.1, and each option the page defines (the tag line after .TP) is in --help.
# Options every tool shares may be documented once, in heed-tokenize(1), and named elsewhere.
source "$(dirname "$0")/lib.sh"
MAN=$(dirname "$0")/../../man

# Long options a man page defines: the tag line after each .TP, leaving out the sections
# ".SS NAME" of the subcommands named in $2 (heed-align's subcommands each declare options of
# their own, which the others' --help does not list).
man_defined() {
  awk -v skip=" ${2:-} " '
    /^\.S[SH]/ { skipping = $1 == ".SS" && index(skip, " " $2 " ") > 0 }
    skipping { next }
    tag { print; tag = 0 } /^\.TP/ { tag = 1 }' "$1" | sed 's/\\-/-/g' |
    grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u
}
# Long options a man page names anywhere.
man_named() { sed 's/\\-/-/g' "$1" | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u; }

tools=0
for binary in "$BIN"/heed-*; do
  [ -x "$binary" ] || continue
  tool=$(basename "$binary")
  page=$MAN/$tool.1
  tools=$((tools + 1))
  if [ ! -f "$page" ]; then fail "$tool: no man page $page"; continue; fi
  "$binary" --help > "$TMP/help" 2>&1 </dev/null || { fail "$tool --help: exit $?"; continue; }
  subcommands=$(help_subcommands "$TMP/help")
  default=$(sed -n 's/^Subcommands: .*(default \([^)]*\)).*/\1/p' "$TMP/help")
  for sub in "" $subcommands; do
    name="$tool${sub:+ $sub}"
    "$binary" $sub --help 2>&1 </dev/null | help_options > "$TMP/h"
    [ -s "$TMP/h" ] || { fail "$name --help lists no options"; continue; }
    man_named "$page" > "$TMP/named"
    others=$(for s in $subcommands; do [ "$s" = "${sub:-$default}" ] || echo "$s"; done)
    man_defined "$page" "$(echo $others)" > "$TMP/defined"
    # Shared options may be defined in heed-tokenize(1) only.
    man_defined "$MAN/heed-tokenize.1" > "$TMP/shared"
    undocumented=$(comm -23 "$TMP/h" "$TMP/named")
    expect_eq "$name: --help options missing from $tool.1" "$undocumented" ""
    unknown=$(comm -13 "$TMP/h" "$TMP/defined")
    expect_eq "$name: options $tool.1 defines but --help lacks" "$unknown" ""
    [ "$tool" = heed-tokenize ] && continue
    # Named but not defined in this page: must be shared options, defined in heed-tokenize(1).
    elsewhere=$(comm -23 "$TMP/h" "$TMP/defined" | comm -23 - "$TMP/shared")
    expect_eq "$name: options neither defined in $tool.1 nor shared" "$elsewhere" ""
  done
done
# Every page of a tool with -o says in its FILES section what the atomic replacement of FILE does
# to FILE's other hard links (issue 62).
for page in "$MAN"/heed-*.1; do
  sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page" | grep -qE -- '-o[ ,"]*--output' || continue
  awk '/^\.SH FILES/ { files = 1; next } /^\.SH/ { files = 0 } files' "$page" | tr '\n' ' ' |
    grep -q 'Other hard links' && ok || fail "hard-links: $(basename "$page") has no FILES entry on hard links"
done
[ "$tools" -ge 4 ] && ok || fail "only $tools heed-* binaries in $BIN"
finish
