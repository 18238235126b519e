#!/usr/bin/env bash
# Contract tests of heed-align ibm2: output shape (one line of in-range Pharaoh links per pair,
# empty sides too), both inputs (two files, 'src ||| tgt' lines) agree, the same output for any
# thread count (with either tension gradient), --reverse links still source-target, the lexical
# table (--lexical-table), Ctrl-C and the checkpoint the next call continues from, bad input
# and options (exit codes, one error line naming file and line).
source "$(dirname "$0")/lib.sh"
A=$BIN/heed-align
for k in 1 2 3 4 5 6 7 8; do
  printf 'the house %s is small .\nthe small house .\na book .\nthe book is small .\n' "$k"
done > "$TMP/src"
for k in 1 2 3 4 5 6 7 8; do
  printf 'la maison %s est petite .\nla petite maison .\nun livre .\nle livre est petit .\n' "$k"
done > "$TMP/tgt"
paste -d '\t' "$TMP/src" "$TMP/tgt" | sed 's/\t/ ||| /' > "$TMP/both"
recommended=(--favor-diagonal --optimize-tension --variational-bayes)

# Shape: a line per pair, links i-j inside the sentences, source index first.
expect_exit 0 files -- "$A" ibm2 "${recommended[@]}" "$TMP/src" "$TMP/tgt"
cp "$TMP/out" "$TMP/files.out"
expect_eq files-lines "$(wc -l < "$TMP/out")" 32
paste -d '\t' "$TMP/src" "$TMP/tgt" "$TMP/out" | awk -F'\t' '
  { n = split($1, s, " "); m = split($2, t, " "); k = split($3, l, " ")
    for (x = 1; x <= k; ++x) {
      if (l[x] !~ /^[0-9]+-[0-9]+$/) exit 1
      split(l[x], p, "-"); if (p[1] >= n || p[2] >= m) exit 1 } }' && ok ||
  fail "files: a link is malformed or out of range: $(head -3 "$TMP/out")"
expect_eq files-stdout-only "$(wc -c < "$TMP/err")" 0
# "the" → "la" in the first pair: a sure thing after training on this corpus.
grep -q '^0-0 ' "$TMP/files.out" && ok || fail "files: 'the' not aligned to 'la': $(head -1 "$TMP/files.out")"

# The same from 'src ||| tgt' lines on stdin, with -i, and written atomically with -o.
expect_exit 0 stdin -- sh -c "'$A' ibm2 ${recommended[*]} < '$TMP/both'"
expect_same stdin "$TMP/out" "$TMP/files.out"
expect_exit 0 input -- "$A" ibm2 "${recommended[@]}" -i "$TMP/both" -o "$TMP/links"
expect_same input "$TMP/links" "$TMP/files.out"
# Results do not depend on the number of threads.
expect_exit 0 threads -- "$A" ibm2 "${recommended[@]}" --threads 3 "$TMP/src" "$TMP/tgt"
expect_same threads "$TMP/out" "$TMP/files.out"
# --print-config replays: its defaults of options that need another one are not refused.
expect_exit 0 print-config -- "$A" ibm2 "${recommended[@]}" --print-config "$TMP/src" "$TMP/tgt"
cp "$TMP/out" "$TMP/ibm2.cfg"
expect_exit 0 config-replay -- "$A" ibm2 --config "$TMP/ibm2.cfg"
expect_same config-replay "$TMP/out" "$TMP/files.out"
# fast_align's tension gradient: the same shape, and again the same for any thread count.
expect_exit 0 fast-align-gradient -- "$A" ibm2 "${recommended[@]}" --tension-gradient fast-align \
  "$TMP/src" "$TMP/tgt"
cp "$TMP/out" "$TMP/fast-align.out"
expect_eq fast-align-gradient-lines "$(wc -l < "$TMP/out")" 32
grep -q '^0-0 ' "$TMP/out" && ok || fail "fast-align gradient: 'the' not aligned to 'la'"
expect_exit 0 fast-align-gradient-threads -- "$A" ibm2 "${recommended[@]}" \
  --tension-gradient fast-align --threads 3 "$TMP/src" "$TMP/tgt"
expect_same fast-align-gradient-threads "$TMP/out" "$TMP/fast-align.out"
# --reverse: links still source-target, so the same shape checks hold.
expect_exit 0 reverse -- "$A" ibm2 "${recommended[@]}" --reverse "$TMP/src" "$TMP/tgt"
paste -d '\t' "$TMP/src" "$TMP/tgt" "$TMP/out" | awk -F'\t' '
  { n = split($1, s, " "); m = split($2, t, " "); k = split($3, l, " ")
    for (x = 1; x <= k; ++x) { split(l[x], p, "-"); if (p[1] >= n || p[2] >= m) exit 1 } }' &&
  ok || fail "reverse: a link out of range: $(head -3 "$TMP/out")"
# --lexical-table: 'from<TAB>to<TAB>p' lines, sorted by from then best first, p in
# [floor, 1], each word's translations summing to at most 1; the links are unchanged.
expect_exit 0 lexical-table -- "$A" ibm2 "${recommended[@]}" "$TMP/src" "$TMP/tgt" \
  --lexical-table "$TMP/lex.tsv"
expect_same lexical-table-links "$TMP/out" "$TMP/files.out"
LC_ALL=C awk -F'\t' 'NF != 3 || $3 < 1e-4 || $3 > 1 { exit 1 }
  $1 == prev && $3 > last { exit 1 } $1 < prev { exit 1 }
  { sum[$1] += $3; prev = $1; last = $3 }
  END { for (w in sum) if (sum[w] > 1 + 1e-4) exit 1 }' "$TMP/lex.tsv" && ok ||
  fail "lexical-table: bad layout or order: $(head -5 "$TMP/lex.tsv")"
expect_eq lexical-table-house "$(awk -F'\t' '$1 == "house" { print $2; exit }' "$TMP/lex.tsv")" maison
expect_exit 0 lexical-floor -- "$A" ibm2 "${recommended[@]}" "$TMP/src" "$TMP/tgt" \
  --lexical-table "$TMP/lex-floor.tsv" --lexical-floor 0.5
awk -F'\t' '$3 < 0.5 { exit 1 }' "$TMP/lex-floor.tsv" && ok || fail "lexical-floor: an entry below 0.5"
[ "$(wc -l < "$TMP/lex-floor.tsv")" -lt "$(wc -l < "$TMP/lex.tsv")" ] && ok ||
  fail "lexical-floor: nothing left out"
# The hand-worked Model 1 case of ibm2_test.cpp: two updates give t(x | a) = 24/29,
# t(y | a) = 5/29, t(y | b) = 5/8, t(x | b) = 3/8.
printf 'a b ||| x y\na ||| x\n' > "$TMP/hand"
expect_exit 0 lexical-table-hand -- "$A" ibm2 --no-null-word --iterations 3 -i "$TMP/hand" \
  --lexical-table "$TMP/lex-hand.tsv"
expect_eq lexical-table-hand "$(tr '\t\n' ' ;' < "$TMP/lex-hand.tsv")" \
  "a x 0.827586;a y 0.172414;b y 0.625;b x 0.375;"
# --reverse: the table of t(source | target), keyed by the target words.
expect_exit 0 lexical-table-reverse -- "$A" ibm2 "${recommended[@]}" --reverse "$TMP/src" "$TMP/tgt" \
  --lexical-table "$TMP/lex-reverse.tsv"
expect_eq lexical-table-reverse-maison \
  "$(awk -F'\t' '$1 == "maison" { print $2; exit }' "$TMP/lex-reverse.tsv")" house
expect_exit 64 floor-without-table -- "$A" ibm2 --lexical-floor 0.1 "$TMP/src" "$TMP/tgt"
expect_error_line align floor-without-table "--lexical-floor needs --lexical-table"
expect_exit 74 lexical-table-unwritable -- "$A" ibm2 "$TMP/src" "$TMP/tgt" \
  --lexical-table "$TMP/no/such/dir/lex.tsv"
expect_error_line align lexical-table-unwritable "no/such/dir"
# A pair with an empty side: an empty line, the line count kept.
printf 'a b ||| x y\n ||| x\na ||| \n' > "$TMP/empty"
expect_exit 0 empty-side -- "$A" ibm2 -i "$TMP/empty"
expect_eq empty-side-lines "$(sed -n '2p;3p' "$TMP/out" | tr '\n' '|')" "||"
expect_eq empty-side-count "$(wc -l < "$TMP/out")" 3

# Bad input: one error line, exit 65, nothing written.
head -3 "$TMP/tgt" > "$TMP/short"
expect_exit 65 mismatch -- "$A" ibm2 "$TMP/src" "$TMP/short"
expect_error_line align mismatch "short has 3 lines but .*src has more"
expect_eq mismatch-nothing-written "$(wc -c < "$TMP/out")" 0
printf 'a b ||| x\nno separator here\n' > "$TMP/nosep"
expect_exit 65 no-separator -- "$A" ibm2 -i "$TMP/nosep"
expect_error_line align no-separator "nosep:2: expected 'source \|\|\| target'"
printf 'a b\nc\xff d\n' > "$TMP/badsrc"
printf 'x y\nz w\n' > "$TMP/goodtgt"
expect_exit 65 invalid-utf8 -- "$A" ibm2 "$TMP/badsrc" "$TMP/goodtgt"
expect_error_line align invalid-utf8 "badsrc:2: invalid UTF-8 at byte 2"
expect_exit 0 invalid-utf8-replace -- "$A" ibm2 --on-invalid replace "$TMP/badsrc" "$TMP/goodtgt"
expect_eq invalid-utf8-replace-lines "$(wc -l < "$TMP/out")" 2
mkdir "$TMP/o"
echo old > "$TMP/o/links"
expect_exit 65 invalid-utf8-file -- "$A" ibm2 "$TMP/badsrc" "$TMP/goodtgt" -o "$TMP/o/links"
expect_eq invalid-utf8-file-untouched "$(cat "$TMP/o/links")" old
expect_exit 66 missing -- "$A" ibm2 "$TMP/none" "$TMP/tgt"
expect_error_line align missing "none"
expect_exit 74 unwritable -- "$A" ibm2 "$TMP/src" "$TMP/tgt" -o "$TMP/no/such/dir/links"
expect_error_line align unwritable "no/such/dir"

# Bad options: 64 and one line naming the option.
expect_exit 64 one-file -- "$A" ibm2 "$TMP/src"
expect_error_line align one-file "SRC and TGT"
expect_exit 64 files-and-input -- "$A" ibm2 "$TMP/src" "$TMP/tgt" -i "$TMP/both"
expect_error_line align files-and-input "--input"
expect_exit 64 p0-range -- "$A" ibm2 -d --p0 1 "$TMP/src" "$TMP/tgt"
expect_error_line align p0-range "p0"
expect_exit 64 tension-without-diagonal -- "$A" ibm2 --optimize-tension "$TMP/src" "$TMP/tgt"
expect_error_line align tension-without-diagonal "--optimize-tension needs --favor-diagonal"
# A fitted tension starts inside the range it is kept in: from 10^4 up fast_align's formulas
# were not finite, and the run failed after its first EM update with a message naming no option.
expect_exit 64 tension-start-range -- "$A" ibm2 -d --diagonal-tension 1e6 --optimize-tension \
  --tension-gradient fast-align "$TMP/src" "$TMP/tgt" -o "$TMP/tension-links"
expect_error_line align tension-start-range "--diagonal-tension 1e\+06: with --optimize-tension it must be in \[0.1, 14\]"
[ -e "$TMP/tension-links.checkpoint" ] && fail "tension-start-range: a checkpoint was left" || ok
expect_exit 64 gradient-without-optimize -- "$A" ibm2 -d --tension-gradient fast-align \
  "$TMP/src" "$TMP/tgt"
expect_error_line align gradient-without-optimize "--tension-gradient needs --optimize-tension"
expect_exit 64 gradient-value -- "$A" ibm2 "${recommended[@]}" --tension-gradient steep \
  "$TMP/src" "$TMP/tgt"
expect_error_line align gradient-value "tension-gradient"
expect_exit 64 alpha-without-vb -- "$A" ibm2 --alpha 0.1 "$TMP/src" "$TMP/tgt"
expect_error_line align alpha-without-vb "--alpha needs --variational-bayes"
expect_exit 64 iterations -- "$A" ibm2 --iterations 0 "$TMP/src" "$TMP/tgt"
expect_error_line align iterations "iterations"
# Ctrl-C: with -o FILE, FILE.checkpoint holds the last whole EM update and the call exits 130;
# the same call continues from it to the uninterrupted run's links (other thread count too) and
# removes it. Another run's checkpoint (other options) is not used: that call starts afresh.
awk 'BEGIN { srand(7); for (k = 0; k < 10000; ++k) { n = 3 + int(rand() * 12); s = ""; t = ""
  for (i = 0; i < n; ++i) { w = int(rand() * 3000); s = s " s" w
    t = t " t" (rand() < 0.8 ? w : int(rand() * 3000)) }
  print substr(s, 2) > "'"$TMP/big.src"'"; print substr(t, 2) > "'"$TMP/big.tgt"'" } }'
long=("$A" ibm2 "${recommended[@]}" --iterations 30 "$TMP/big.src" "$TMP/big.tgt")
mkdir "$TMP/ck"
"${long[@]}" -o "$TMP/ck/straight" 2>/dev/null
"${long[@]}" -o "$TMP/ck/cut" --threads 1 2>/dev/null &
pid=$!
for _ in $(seq 400); do [ -s "$TMP/ck/cut.checkpoint" ] && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
expect_eq interrupted-exit $? 130
[ -s "$TMP/ck/cut.checkpoint" ] && [ ! -e "$TMP/ck/cut" ] && ok ||
  fail "interrupted: no checkpoint, or links written: $(ls "$TMP/ck")"
expect_exit 0 continued -- "${long[@]}" -o "$TMP/ck/cut" --threads 2 --verbose
grep -q 'cut.checkpoint: continuing after EM update [1-9]' "$TMP/err" && ok ||
  fail "continued: $(grep checkpoint "$TMP/err")"
expect_same continued-links "$TMP/ck/cut" "$TMP/ck/straight"
expect_eq continued-no-checkpoint "$(ls "$TMP/ck")" $'cut\nstraight'
"${long[@]}" -o "$TMP/ck/first" 2>/dev/null &
pid=$!
for _ in $(seq 400); do [ -s "$TMP/ck/first.checkpoint" ] && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
mv "$TMP/ck/first.checkpoint" "$TMP/ck/other.checkpoint"
expect_exit 0 other-run -- "$A" ibm2 -d --iterations 4 "$TMP/big.src" "$TMP/big.tgt" \
  -o "$TMP/ck/other"
grep -q 'a checkpoint of another run' "$TMP/err" && ok || fail "other-run: no warning"
expect_exit 0 other-run-straight -- "$A" ibm2 -d --iterations 4 "$TMP/big.src" "$TMP/big.tgt"
expect_same other-run-links "$TMP/ck/other" "$TMP/out"
cp "$TMP/ck/straight" "$TMP/ck/bad.checkpoint"  # not a checkpoint: refused, 65
expect_exit 65 bad-checkpoint -- "${long[@]}" -o "$TMP/ck/bad"
expect_error_line align bad-checkpoint "bad.checkpoint"
# To stdout there is nothing to keep: it says so and exits 130.
"${long[@]}" --verbose > /dev/null 2> "$TMP/ck.err" &
pid=$!
for _ in $(seq 400); do grep -q 'iteration=1 ' "$TMP/ck.err" && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
expect_eq stdout-interrupted-exit $? 130
grep -q 'no checkpoint kept' "$TMP/ck.err" && ok || fail "stdout-interrupted: $(cat "$TMP/ck.err")"

# A closed pipe ends the run quietly.
expect_exit 0 sigpipe -- sh -c "'$A' ibm2 '$TMP/src' '$TMP/tgt' | head -1"
expect_eq sigpipe-quiet "$(wc -c < "$TMP/err")" 0
finish
