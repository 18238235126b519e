#!/usr/bin/env bash
# Frozen models (docs/testing.md): every tests/data/frozen/vN/model.heed, written by the heed of
# model-format version N, still loads and translates exactly as it did then; the newest model
# claiming the next version (future.heed) is refused with one line naming the version.
#
# Tokens and hard alignments must match exactly. Scores and soft weights get a tolerance: they
# are f32 sums over oneDNN kernels whose blocking and summation order depend on the CPU (AVX2,
# AVX-512 on Intel or AMD, ...), which moves logits by ~1e-6 relative. A score sums at most a few
# dozen log-probabilities of order 1 and is printed with 4 decimals; a soft weight lies in [0, 1]
# and is printed with 3, so such drift can flip the last printed digit. 0.002 allows for that
# with margin, while a real change to the model or the search moves them by 0.01 or more (the
# closest n-best scores of one sentence here are 0.013 apart).
source "$(dirname "$0")/lib.sh"
X=$BIN/heed-translate
TOLERANCE=0.002

# expect_close NAME EXPECTED GOT: same lines; fields split on spaces and commas must be equal,
# except decimal numbers, which may differ by TOLERANCE.
expect_close() {
  local problem
  problem=$(awk -v tol=$TOLERANCE -v got="$3" '
    function decimal(s) { return s ~ /^-?[0-9]+\.[0-9]+$/ }
    {
      if ((getline other < got) <= 0) { print "line " NR ": missing"; bad = 1; exit }
      n = split($0, want, /[ ,]/); m = split(other, have, /[ ,]/)
      if (n != m) { print "line " NR ": " m " fields, expected " n; bad = 1; exit }
      for (i = 1; i <= n; i++) {
        if (decimal(want[i]) && decimal(have[i])) {
          d = want[i] - have[i]
          if (d > tol || -d > tol) { print "line " NR ": " have[i] ", expected " want[i]; bad = 1; exit }
        } else if (want[i] != have[i]) { print "line " NR ": \"" have[i] "\", expected \"" want[i] "\""; bad = 1; exit }
      }
    }
    END { if (!bad && (getline other < got) > 0) print "more lines than expected" }' "$2")
  if [ -z "$problem" ]; then ok; else fail "$1: $problem"; fi
}

found=0
for dir in "$DATA"/frozen/v*/; do
  v=$(basename "$dir")
  found=$((found + 1))
  X1=("$X" -m "$dir/model.heed" -i "$dir/input.en" --threads 1)
  expect_exit 0 "$v-greedy" -- "${X1[@]}" -b 1
  expect_same "$v-greedy-tokens" "$dir/greedy.txt" "$TMP/out"
  expect_exit 0 "$v-nbest" -- "${X1[@]}" -b 5 --n-best 5
  expect_close "$v-nbest-scores" "$dir/nbest.txt" "$TMP/out"
  expect_exit 0 "$v-hard" -- "${X1[@]}" -b 5 --alignment hard
  expect_same "$v-hard-alignment" "$dir/hard.txt" "$TMP/out"
  expect_exit 0 "$v-soft" -- "${X1[@]}" -b 5 --alignment soft
  expect_close "$v-soft-alignment" "$dir/soft.txt" "$TMP/out"
  # The next format version: refused by name, exit 65, one line — unless that version exists by
  # now (a newer frozen directory), when the file is simply an older model with a newer label.
  next=$((${v#v} + 1))
  if [ ! -d "$DATA/frozen/v$next" ]; then
    expect_exit 65 "$v-future" -- "$X" -m "$dir/future.heed" -i "$dir/input.en"
    expect_error_line translate "$v-future" "future.heed.*format version $next, newer than"
  fi
done
[ "$found" -gt 0 ] && ok || fail "no frozen models under $DATA/frozen"
finish
