#!/usr/bin/env bash
# The README's main job (share/heed/demo.sh) shortened to 10 updates and run twice: the same
# translations, alignments and scores on stdout, the same model and test output, and a last word
# that says the budget was in updates and whether the documented figures apply. The figures the
# demo promises are the ones docs/benchmarks.md states. Usage: demo_repeat.sh BIN_DIR
source "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
for run in 1 2; do
  expect_exit 0 "demo, run $run" -- env BIN="$BIN" DEMO_UPDATES=10 \
    bash "$root/share/heed/demo.sh" "$TMP/run$run"
  mv "$TMP/out" "$TMP/stdout$run"
  mv "$TMP/err" "$TMP/stderr$run"
done
expect_same "the demo's stdout" "$TMP/stdout1" "$TMP/stdout2"
for file in five.fr five.align test.hyp.fr model/model.heed; do
  expect_same "the demo's $file" "$TMP/run1/$file" "$TMP/run2/$file"
done
if grep -q '^chrF2|' "$TMP/stdout1" && [ "$(grep -c ' ||| ' "$TMP/stdout1")" = 5 ]; then
  ok
else
  fail "the demo's stdout lacks the five translations or the scores: $(head -c 300 "$TMP/stdout1")"
fi
if grep -q '10 updates: seed 1, 2 threads, f32' "$TMP/stderr1" &&
   grep -q 'training stops after 10 updates, not after a time' "$TMP/stderr1" &&
   grep -q 'are for DEMO_UPDATES=.*this run has other settings' "$TMP/stderr1"; then
  ok
else
  fail "the demo's closing lines: $(grep '^==>' "$TMP/stderr1" | tail -4)"
fi
# The figures an unchanged demo promises (one pair per CPU measured) are docs/benchmarks.md's.
expected=$(sed -n 's/^EXPECTED="\(.*\)"$/\1/p' "$root/share/heed/demo.sh")
pairs=$(grep -oE 'BLEU [0-9.]+, chrF2 [0-9.]+' <<<"$expected" || true)
missing=""
while IFS= read -r pair; do
  [ -n "$pair" ] && ! grep -qF "$pair" "$root/docs/benchmarks.md" && missing+="'$pair' "
done <<<"$pairs"
if [ -n "$pairs" ] && [ -z "$missing" ]; then
  ok
else
  fail "docs/benchmarks.md does not state the demo's expected figures ${missing:-'$expected'}"
fi
finish
