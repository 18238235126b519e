#!/usr/bin/env bash
# `cmake --install` gives a working installation: into a temporary prefix, then from there every
# tool's --help, its man page (citing the installed docs) and bash completion, the sample, and
# the demo's first step (tokenizing the sample);
# and nothing installed that cannot run from the prefix (no build-from-source scripts, no
# experiments, no benchmarks). Usage: install.sh BUILD_DIR
BUILD=${1:?usage: install.sh BUILD_DIR}
source "$(dirname "$0")/lib.sh" "$BUILD/bin"
PREFIX=$TMP/prefix
expect_exit 0 "cmake --install" -- cmake --install "$BUILD" --prefix "$PREFIX"
for tool in "${HEED_TOOLS[@]}"; do
  expect_exit 0 "heed-$tool --help from the prefix" -- "$PREFIX/bin/heed-$tool" --help
  if grep -q "^Usage: heed-$tool" "$TMP/out"; then ok; else fail "heed-$tool --help: no usage line"; fi
  if [ -s "$PREFIX/share/man/man1/heed-$tool.1.gz" ]; then ok; else fail "no man page for heed-$tool"; fi
  if [ -s "$PREFIX/share/bash-completion/completions/heed-$tool" ]; then ok; else fail "no completion for heed-$tool"; fi
  # The docs a page cites are where it says, under this prefix.
  for doc in $(zcat "$PREFIX/share/man/man1/heed-$tool.1.gz" |
                grep -oE "$PREFIX/share/doc/heed/docs/([A-Za-z0-9_-]+/)?[A-Za-z0-9_-]+\.md"); do
    if [ -s "$doc" ]; then ok; else fail "heed-$tool.1 cites $doc, which is not installed"; fi
  done
done
# The docs (issue 64): every page of docs/ (and of docs/studies/, the studies' pages) installed
# in share/doc/heed/docs with the README and the licence; the man pages cite docs only by that
# installed path (a bare docs/NAME.md or docs/studies/NAME.md would name a file the installation
# does not have there), and some page does cite them.
source_docs=$(cd "$(dirname "$0")/../../docs" && find . -name '*.md' | sort | tr '\n' ' ')
installed_docs=$(cd "$PREFIX/share/doc/heed/docs" && find . -name '*.md' | sort | tr '\n' ' ')
expect_eq "installed docs" "$installed_docs" "$source_docs"
for file in README.md LICENSE; do
  if [ -s "$PREFIX/share/doc/heed/$file" ]; then ok; else fail "share/doc/heed/$file not installed"; fi
done
cited=0
for page in "$PREFIX"/share/man/man1/heed-*.1.gz; do
  bare=$(zcat "$page" | sed "s|$PREFIX/share/doc/heed/docs/||g" | grep -oE '(^|[^/A-Za-z0-9_.-])docs/([A-Za-z0-9_-]+/)?[A-Za-z0-9_-]+\.md' | head -1)
  expect_eq "$(basename "$page"): docs cited by the installed path" "$bare" ""
  cited=$((cited + $(zcat "$page" | grep -c "$PREFIX/share/doc/heed/docs/")))
done
[ "$cited" -gt 0 ] && ok || fail "no man page cites the installed docs"
# Exactly the tools: a binary installed without a test here is a binary nobody checked.
installed=$(cd "$PREFIX/bin" && ls | sort | tr '\n' ' ')
want=$(printf 'heed-%s\n' "${HEED_TOOLS[@]}" | sort | tr '\n' ' ')
if [ "$installed" = "$want" ]; then ok; else fail "installed binaries: $installed; expected $want"; fi
# share/heed: the sample and the demo only.
shared=$(cd "$PREFIX/share/heed" && find . -maxdepth 1 -mindepth 1 | sort | tr '\n' ' ')
if [ "$shared" = "./demo.sh ./sample " ]; then ok; else fail "share/heed holds: $shared"; fi
# The demo's first step runs from the prefix, with the prefix's binaries, in a fresh directory.
expect_exit 0 "demo (tokenize) from the prefix" -- env DEMO_STEP=tokenize bash \
  "$PREFIX/share/heed/demo.sh" "$TMP/demo"
if [ "$(wc -l < "$TMP/demo/train.tok.en")" = "$(wc -l < "$PREFIX/share/heed/sample/train.en")" ]; then
  ok
else
  fail "demo: train.tok.en does not have a line per sample line"
fi
# Without binaries beside it, the demo says so (69) instead of failing halfway.
mkdir -p "$TMP/lonely/share/heed" && cp "$PREFIX/share/heed/demo.sh" "$TMP/lonely/share/heed/"
expect_exit 69 "demo without binaries" -- bash "$TMP/lonely/share/heed/demo.sh" "$TMP/demo2"
finish
