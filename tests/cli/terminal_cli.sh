#!/usr/bin/env bash
# On a terminal and only there (issue 64): the long filters draw a progress line on stderr
# (heed-translate: lines, the file's share, rate and ETA; heed-align extract: pairs and rate;
# heed-align ibm2: EM updates of how many; heed-score: segments, from 10,000 of them), and the
# log's level markers are coloured, unless NO_COLOR is set (no-color.org). In a pipe neither:
# stderr holds the log lines alone. The terminal is a pseudo-terminal made by util-linux
# script(1) (skipped, 77, where it is absent).
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "SKIPPED: script(1) (util-linux) not found"; exit 77; }

# on_tty NAME COMMAND...: runs COMMAND with stdin, stdout and stderr on a pseudo-terminal (TERM
# set, as a terminal has it); what the terminal showed goes to $TMP/NAME.tty.
on_tty() {
  local name=$1; shift
  local quoted
  printf -v quoted '%q ' "$@"
  TERM=xterm script -qfec "$quoted" /dev/null > "$TMP/$name.tty" 2>&1 < /dev/null
}
ESC=$'\033'

sample_pairs 300 20
"$BIN/heed-train" --train-src "$TMP/src" --train-tgt "$TMP/tgt" --hidden 8 --embed 8 \
  --max-steps 2 --threads 1 -q -o "$TMP/m" 2>/dev/null && ok || fail "train: a model for the tests"
M=$TMP/m/model.heed

# heed-translate: the progress line on a terminal (its output to a file), none in a pipe.
on_tty translate "$BIN/heed-translate" -m "$M" -i "$TMP/vsrc" -o "$TMP/tty.out"
grep -qE '\[#*\.*\] +[0-9]+% .*20 lines, [0-9]+ lines/s' "$TMP/translate.tty" && ok ||
  fail "translate on a terminal: no progress line: $(tr '\r' '\n' < "$TMP/translate.tty" | tail -3)"
expect_eq translate-tty-lines "$(wc -l < "$TMP/tty.out")" 20
expect_exit 0 translate-pipe -- "$BIN/heed-translate" -m "$M" -i "$TMP/vsrc"
expect_eq translate-pipe-stderr "$(wc -c < "$TMP/err")" 0
expect_same translate-pipe-same "$TMP/out" "$TMP/tty.out"
# From a pipe the input's size is not known: lines and rate, no bar.
on_tty translate-stdin sh -c "cat '$TMP/vsrc' | '$BIN/heed-translate' -m '$M' -o '$TMP/tty2.out'"
grep -q '20 lines, [0-9]* lines/s' "$TMP/translate-stdin.tty" && ok ||
  fail "translate from a pipe on a terminal: no count: $(tr '\r' '\n' < "$TMP/translate-stdin.tty" | tail -3)"
grep -q '\[#' "$TMP/translate-stdin.tty" && fail "translate from a pipe: a bar of an unknown size" || ok

# heed-align extract: pairs and their rate.
on_tty extract "$BIN/heed-align" -m "$M" "$TMP/vsrc" "$TMP/vtgt" -o "$TMP/links"
grep -q '20 pairs, [0-9]* pairs/s' "$TMP/extract.tty" && ok ||
  fail "align extract on a terminal: no progress: $(tr '\r' '\n' < "$TMP/extract.tty" | tail -3)"
expect_exit 0 extract-pipe -- "$BIN/heed-align" -m "$M" "$TMP/vsrc" "$TMP/vtgt"
expect_eq extract-pipe-stderr "$(wc -c < "$TMP/err")" 0

# heed-align ibm2: EM updates done of the 4 its 5 iterations make.
on_tty ibm2 "$BIN/heed-align" ibm2 "$TMP/src" "$TMP/tgt" -o "$TMP/ibm2.links"
grep -qE '\] +100% 4 of 4 EM updates' "$TMP/ibm2.tty" && ok ||
  fail "ibm2 on a terminal: no progress: $(tr '\r' '\n' < "$TMP/ibm2.tty" | tail -3)"
expect_exit 0 ibm2-pipe -- "$BIN/heed-align" ibm2 "$TMP/src" "$TMP/tgt" -o "$TMP/ibm2.links"
expect_eq ibm2-pipe-stderr "$(wc -c < "$TMP/err")" 0

# heed-score on a large input (10,000 segments and more): the segments scored, of how many.
for i in $(seq 10000); do echo "the cat $i sat on the mat"; done > "$TMP/ref"
sed 's/mat/hat/' "$TMP/ref" > "$TMP/hyp"
on_tty score "$BIN/heed-score" -r "$TMP/ref" --hyp "$TMP/hyp" --threads 1 -o "$TMP/score.tty.out"
grep -qE '\] +100% 10000 segments, [0-9]+ segments/s' "$TMP/score.tty" && ok ||
  fail "score on a terminal: no progress: $(tr '\r' '\n' < "$TMP/score.tty" | tail -3)"
expect_exit 0 score-pipe -- "$BIN/heed-score" -r "$TMP/ref" --hyp "$TMP/hyp" --threads 1
expect_eq score-pipe-stderr "$(wc -c < "$TMP/err")" 0
expect_same score-pipe-same "$TMP/out" "$TMP/score.tty.out"
head -100 "$TMP/ref" > "$TMP/ref100"
on_tty score-small "$BIN/heed-score" -r "$TMP/ref100" --hyp "$TMP/ref100" -o "$TMP/small.out"
grep -q 'segments' "$TMP/score-small.tty" && fail "score: a progress line for 100 segments" || ok

# Colour: the level marker of a warning (learn-bpe stopping early) is coloured on a terminal,
# not with NO_COLOR set, not in a pipe; the text is the same each time.
bpe=("$BIN/heed-tokenize" learn-bpe -i "$TMP/src" --merges 100000 -o "$TMP/codes")
on_tty colour "${bpe[@]}"
COLOURED_WARNING="\\[(${ESC}\\[[0-9;]*m)+warning${ESC}\\[m\\]"
grep -qE "$COLOURED_WARNING \\[learn-bpe\\] stopped" "$TMP/colour.tty" && ok ||
  fail "colour: the warning's level is not coloured: $(od -c "$TMP/colour.tty" | head -5)"
on_tty no-colour env NO_COLOR=1 "${bpe[@]}"
grep -q '\[warning\] \[learn-bpe\] stopped' "$TMP/no-colour.tty" && ok ||
  fail "NO_COLOR: no plain warning: $(cat "$TMP/no-colour.tty")"
grep -q "$ESC" "$TMP/no-colour.tty" && fail "NO_COLOR: an escape sequence on the terminal" || ok
on_tty empty-no-colour env NO_COLOR= "${bpe[@]}"
grep -qE "$COLOURED_WARNING" "$TMP/empty-no-colour.tty" && ok ||
  fail "NO_COLOR empty (which no-color.org says is unset): not coloured"
expect_exit 0 colour-pipe -- "${bpe[@]}"
grep -q '\[warning\] \[learn-bpe\] stopped' "$TMP/err" && ok || fail "pipe: no warning: $(cat "$TMP/err")"
grep -q "$ESC" "$TMP/err" && fail "pipe: an escape sequence in the log" || ok
finish
