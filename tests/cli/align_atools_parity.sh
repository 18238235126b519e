#!/usr/bin/env bash
# heed-align symmetrize gives fast_align's atools output, line for line, for every method on
# thousands of random alignment pairs (random lengths, near-diagonal links with noise, empty
# lines). fast_align is not packaged: point ATOOLS at a built atools (clab/fast_align) to run it,
# e.g. ATOOLS=/path/to/fast_align/build/atools ctest -R atools; skipped (77) without it.
source "$(dirname "$0")/lib.sh"
ATOOLS=${ATOOLS:-}
if [ -z "$ATOOLS" ] || [ ! -x "$ATOOLS" ]; then
  echo "SKIPPED: set ATOOLS to a built fast_align atools to compare with it"
  exit 77
fi
H=$BIN/heed-align
PAIRS=${PAIRS:-5000}

# One random sentence pair per line: FWD links on $TMP/fwd, REV links on $TMP/rev (both
# source-target). Each direction links most words near the diagonal, some anywhere, some none.
awk -v pairs="$PAIRS" -v seed=20261124 -v fwd="$TMP/fwd" -v rev="$TMP/rev" '
  function links(out, I, J, density,   line, i, j, k, n) {
    line = ""
    for (j = 0; j < J; j++) {
      n = rand() < density ? 1 + int(rand() * 2) : 0
      for (k = 0; k < n; k++) {
        i = rand() < 0.8 ? int(j * I / J + (rand() - 0.5) * 3) : int(rand() * I)
        if (i < 0) i = 0
        if (i >= I) i = I - 1
        line = line (line == "" ? "" : " ") i "-" j
      }
    }
    print line > out
  }
  BEGIN {
    srand(seed)
    for (p = 0; p < pairs; p++) {
      I = 1 + int(rand() * 25); J = 1 + int(rand() * 25)
      links(fwd, I, J, 0.3 + 0.7 * rand())
      links(rev, I, J, 0.3 + 0.7 * rand())
    }
  }'
expect_eq pairs "$(wc -l < "$TMP/fwd") $(wc -l < "$TMP/rev")" "$PAIRS $PAIRS"
for method in intersect union grow-diag grow-diag-final grow-diag-final-and; do
  "$ATOOLS" -i "$TMP/fwd" -j "$TMP/rev" -c "$method" > "$TMP/atools" 2>"$TMP/err" ||
    fail "$method: atools exit $?: $(head -c 300 "$TMP/err")"
  expect_exit 0 "$method" -- "$H" symmetrize "$TMP/fwd" "$TMP/rev" --method "$method"
  expect_same "$method: heed-align symmetrize vs atools" "$TMP/out" "$TMP/atools"
  differing=$(paste -d '\n' "$TMP/out" "$TMP/atools" | awk 'NR % 2 { a = $0; next } a != $0' | wc -l)
  echo "$method: $PAIRS pairs, $differing lines differ"
done
finish
