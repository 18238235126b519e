#!/usr/bin/env bash
# What the tools say they lose (issue 64): heed-train's <unk> rate of each side of the training
# data at the chosen vocabulary (info, and a warning above 1 %), heed-translate -v's rate of
# input tokens read as <unk>, heed-tokenize learn-bpe's warning when it stops before the merges
# asked (and why), and heed-align ibm2's first iteration's perplexity: the uniform model's,
# the target vocabulary's size, not 1.
source "$(dirname "$0")/lib.sh"
sample_pairs 300 0

# The rates, counted here from the data: every token of a side outside its 100 most frequent
# words (the four specials take the first ids, as in the model) is <unk>.
unk_percent() { # FILE VOCAB_SIZE
  tr -s ' ' '\n' < "$1" | grep -v '^$' | sort | uniq -c | sort -k1,1nr -k2 |
    awk -v keep="$(($2 - 4))" '{ total += $1; if (NR > keep) lost += $1 }
      END { printf "%.2f", 100 * lost / total }'
}
expect_exit 0 train-small-vocab -- "$BIN/heed-train" --train-src "$TMP/src" --train-tgt "$TMP/tgt" \
  --vocab-size 100 --hidden 8 --embed 8 --max-steps 1 --threads 1 -o "$TMP/m"
for side in source target; do
  file=$TMP/src
  [ "$side" = target ] && file=$TMP/tgt
  want=$(unk_percent "$file" 100)
  grep -q "\[info\] \[data\] $side <unk> rate: $want% " "$TMP/err" && ok ||
    fail "train: no info line '$side <unk> rate: $want%': $(grep unk "$TMP/err")"
  grep -q "\[warning\] \[data\] $want% of the $side training tokens are <unk>" "$TMP/err" && ok ||
    fail "train: no warning for $side at $want%: $(grep unk "$TMP/err")"
done
# With every word in the vocabulary nothing is lost: the rate is 0 and there is no warning.
expect_exit 0 train-full-vocab -- "$BIN/heed-train" --train-src "$TMP/src" --train-tgt "$TMP/tgt" \
  --hidden 8 --embed 8 --max-steps 1 --threads 1 -o "$TMP/full"
expect_eq train-full-rate "$(grep -c '<unk> rate: 0.00% (0 of' "$TMP/err")" 2
grep -q 'warning.*<unk>' "$TMP/err" && fail "train: a warning at 0%: $(grep unk "$TMP/err")" || ok

# heed-translate -v: of the 5 input tokens ("Tom", "zzqx", "qqzy", "is", "Tom"), the two
# invented words are <unk> (the empty line has none); at warn (no -v) nothing is said.
printf 'Tom zzqx qqzy is Tom\n\n' > "$TMP/in"
expect_exit 0 translate-verbose -- "$BIN/heed-translate" -m "$TMP/full/model.heed" -v \
  --pretokenized -i "$TMP/in"
grep -q '\[info\] \[translate\] source <unk> rate: 40.00% (2 of 5 input tokens' "$TMP/err" && ok ||
  fail "translate -v: no source <unk> rate of 2 of 5: $(tail -2 "$TMP/err")"
expect_exit 0 translate-quiet -- "$BIN/heed-translate" -m "$TMP/full/model.heed" \
  --pretokenized -i "$TMP/in"
expect_eq translate-quiet-stderr "$(wc -c < "$TMP/err")" 0

# learn-bpe: stopping early is said, with the reason.
expect_exit 0 bpe-min-frequency -- "$BIN/heed-tokenize" learn-bpe -i "$TMP/src" --merges 100000
grep -qE '\[warning\] \[learn-bpe\] stopped after [0-9]+ of 100000 merges: the most frequent pair left occurs 1 time, fewer than --min-frequency 2' "$TMP/err" &&
  ok || fail "learn-bpe: no warning on stopping at --min-frequency: $(cat "$TMP/err")"
printf 'ab ab\nc\n' > "$TMP/tiny"
expect_exit 0 bpe-no-pair -- "$BIN/heed-tokenize" learn-bpe -i "$TMP/tiny" --merges 10 \
  --min-frequency 1
# a + b</w> is the one pair; then every word is one symbol.
expect_eq bpe-no-pair-merges "$(grep -vc '^#' "$TMP/out")" 1
grep -q '\[warning\] \[learn-bpe\] stopped after 1 of 10 merges: no pair of symbols is left' "$TMP/err" &&
  ok || fail "learn-bpe: no warning when no pair is left: $(cat "$TMP/err")"
expect_exit 0 bpe-enough -- "$BIN/heed-tokenize" learn-bpe -i "$TMP/src" --merges 10
expect_eq bpe-enough-quiet "$(wc -c < "$TMP/err")" 0

# heed-align ibm2: the first iteration's likelihood is the uniform model's, so its perplexity is
# the size of the generated side's vocabulary (t(f | e) = 1 / |V_f|).
words=$(tr -s " " "\n" < "$TMP/tgt" | grep -v "^$" | sort -u | wc -l)
expect_exit 0 ibm2-perplexity -- "$BIN/heed-align" ibm2 --verbose "$TMP/src" "$TMP/tgt"
expect_eq ibm2-first-perplexity \
  "$(sed -n 's/.*iteration=1 .*perplexity=\([^ ]*\) .*/\1/p' "$TMP/err")" "$words"
second=$(sed -n 's/.*iteration=2 .*perplexity=\([^ ]*\) .*/\1/p' "$TMP/err")
awk -v a="$second" -v b="$words" 'BEGIN { exit !(a > 1 && a < b) }' && ok ||
  fail "ibm2: the second perplexity ($second) is not between 1 and the first ($words)"
finish
