#!/usr/bin/env bash
# Contract tests of heed-score: sacreBLEU's figures, line-count checks, bootstrap and sentence output.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_signals.sh"
S=$BIN/heed-score
printf 'The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n' > "$TMP/ref1"
printf 'The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n' > "$TMP/ref2"
printf "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n" > "$TMP/hyp"
printf 'The dog bit a man.\nIt was surprising.\nThe man bit the dog.\n' > "$TMP/hyp2"

# sacreBLEU's README example (BLEU = 48.53 82.4/50.0/45.5/37.5 ... hyp_len = 17 ref_len = 18).
expect_exit 0 bleu -- "$S" -r "$TMP/ref1" -r "$TMP/ref2" --hyp "$TMP/hyp" -m bleu
grep -qE '^BLEU\|nrefs:2\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:heed-[0-9.]+ = 48.53 82.4/50.0/45.5/37.5 \(BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18\)$' "$TMP/out" && ok || fail "bleu: $(cat "$TMP/out")"
# Standard input as the hypothesis, several systems prefixed by their names.
expect_exit 0 stdin -- sh -c "'$S' -r '$TMP/ref1' --hyp - -m chrf < '$TMP/hyp'"
grep -qE '^chrF2\|nrefs:1\|.* = [0-9]+\.[0-9]{2}$' "$TMP/out" && ok || fail "stdin: $(cat "$TMP/out")"
expect_exit 0 systems -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --hyp "$TMP/hyp2"
expect_eq systems-lines "$(wc -l < "$TMP/out")" 4
# Paired bootstrap: header, one row per system and metric, the baseline without p-value.
expect_exit 0 bootstrap -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --hyp "$TMP/hyp2" --bootstrap 200
expect_eq bootstrap-header "$(head -1 "$TMP/out")" $'system\tmetric\tscore\tmean\tci95\tp_value'
expect_eq bootstrap-rows "$(grep -vc '^#' "$TMP/out")" 5
awk -F'\t' 'NR > 1 && !/^#/ && NF != 6 { exit 1 }' "$TMP/out" && ok || fail "bootstrap: bad row"
# Sentence scores: one row per segment; a perfect segment scores 100.
expect_exit 0 sentence -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --sentence
expect_eq sentence-rows "$(wc -l < "$TMP/out")" 4
expect_eq sentence-perfect "$(sed -n 2p "$TMP/out")" $'1\t100.00\t100.00'
# Errors: line counts, missing files, bad options.
head -2 "$TMP/hyp" > "$TMP/short"
expect_exit 65 mismatch -- "$S" -r "$TMP/ref1" --hyp "$TMP/short"
expect_error_line score mismatch "has 2 lines but the reference .* has 3"
{ cat "$TMP/hyp"; echo "One more."; } > "$TMP/long"
expect_exit 65 mismatch-longer -- "$S" -r "$TMP/ref1" --hyp "$TMP/long" --sentence
expect_error_line score mismatch-longer "long' has 4 lines but the reference .* has 3"
expect_eq mismatch-nothing-written "$(wc -c < "$TMP/out")" 0
expect_exit 65 mismatch-refs -- "$S" -r "$TMP/ref1" -r "$TMP/short" --hyp "$TMP/hyp"
expect_error_line score mismatch-refs "has 3 lines but the reference .*short' has 2"
expect_exit 66 missing -- "$S" -r "$TMP/none" --hyp "$TMP/hyp"
expect_error_line score missing "none"
expect_exit 64 no-ref -- "$S" --hyp "$TMP/hyp"
expect_error_line score no-ref "ref"
expect_exit 64 bad-tok -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --tokenize moses
expect_error_line score bad-tok "tokenize"

# Invalid UTF-8: 65 naming file and line. Corpus scores need every segment: nothing is written.
printf "The dog bit the man.\nIt wasn\xe2t surprising.\nThe man had just bitten him.\n" > "$TMP/bad"
expect_exit 65 invalid-utf8 -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad"
expect_error_line score invalid-utf8 "bad:2: invalid UTF-8 at byte 8"
expect_eq invalid-utf8-nothing-written "$(wc -c < "$TMP/out")" 0
expect_exit 65 invalid-utf8-ref -- "$S" -r "$TMP/bad" --hyp "$TMP/hyp"
expect_error_line score invalid-utf8-ref "bad:2: invalid UTF-8 at byte 8"
# --sentence writes the rows before the bad segment; with -o they are kept in FILE.partial.
expect_exit 65 invalid-utf8-sentence -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad" --sentence
expect_eq invalid-utf8-sentence-rows "$(tr '\t\n' ' |' < "$TMP/out")" "line BLEU chrF2|1 100.00 100.00|"
mkdir "$TMP/o"
echo "old" > "$TMP/o/s.tsv"
expect_exit 65 invalid-utf8-file -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad" --sentence -o "$TMP/o/s.tsv"
expect_error_line score invalid-utf8-file "bad:2: invalid UTF-8 .*; the line before it is in '.*/o/s.tsv.partial'"
expect_eq invalid-utf8-file-untouched "$(cat "$TMP/o/s.tsv")" "old"
expect_eq invalid-utf8-file-partial "$(tr '\t\n' ' |' < "$TMP/o/s.tsv.partial")" "line BLEU chrF2|1 100.00 100.00|"
expect_eq invalid-utf8-file-no-temp "$(ls "$TMP/o" | tr '\n' ' ')" "s.tsv s.tsv.partial "
# replace: U+FFFD, scored, one warning naming the line.
expect_exit 0 invalid-utf8-replace -- "$S" -r "$TMP/ref1" --hyp "$TMP/bad" --on-invalid replace --sentence
expect_eq invalid-utf8-replace-rows "$(wc -l < "$TMP/out")" 4
expect_eq invalid-utf8-replace-warning "$(grep -c 'bad:2: invalid UTF-8 at byte 8: replaced by U+FFFD' "$TMP/err")" 1
expect_exit 64 invalid-utf8-bad-choice -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --on-invalid skip
expect_error_line score invalid-utf8-bad-choice "on-invalid: unknown value 'skip'"
# A NUL byte is not text either.
printf 'The dog bit the man.\nIt was\0 not unexpected.\nThe man bit him first.\n' > "$TMP/nul"
expect_exit 65 nul -- "$S" -r "$TMP/nul" --hyp "$TMP/hyp"
expect_error_line score nul "nul:2: NUL byte at byte 7"
expect_exit 0 nul-replace -- "$S" -r "$TMP/nul" --hyp "$TMP/hyp" --on-invalid replace

# Empty lines are segments like any other; a perfect empty hypothesis needs no special case.
printf 'The dog bit the man.\n\nThe man bit him first.\n' > "$TMP/ref-empty"
printf 'The dog bit the man.\n\nThe man bit him.\n' > "$TMP/hyp-empty"
expect_exit 0 empty-lines -- "$S" -r "$TMP/ref-empty" --hyp "$TMP/hyp-empty" --sentence
expect_eq empty-lines-rows "$(wc -l < "$TMP/out")" 4

# CRLF line ends and a leading byte order mark change no score.
"$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --sentence > "$TMP/plain.out"
{ printf '\xef\xbb\xbf'; sed 's/$/\r/' "$TMP/hyp"; } > "$TMP/hyp-bom-crlf"
{ printf '\xef\xbb\xbf'; cat "$TMP/ref1"; } > "$TMP/ref-bom"
expect_exit 0 bom-crlf -- "$S" -r "$TMP/ref-bom" --hyp "$TMP/hyp-bom-crlf" --sentence
expect_same bom-crlf-same "$TMP/plain.out" "$TMP/out"

# A 1 MB segment is scored like a short one.
head -c 1000000 /dev/zero | tr '\0' 'x' | sed 's/xxxxxxxxx/word one, /g' > "$TMP/mb"
{ cat "$TMP/ref1"; cat "$TMP/mb"; echo; } > "$TMP/ref-mb"
{ cat "$TMP/hyp"; cat "$TMP/mb"; echo; } > "$TMP/hyp-mb"
expect_exit 0 long-1mb -- "$S" -r "$TMP/ref-mb" --hyp "$TMP/hyp-mb" --sentence
expect_eq long-1mb-row "$(sed -n 5p "$TMP/out")" $'4\t100.00\t100.00'

# SIGINT and SIGTERM while the bootstrap runs: 130 and 143, the target untouched, no temporary
# file left.
for i in $(seq 300); do cat "$TMP/hyp"; done > "$TMP/hyp-900"
for i in $(seq 300); do cat "$TMP/ref1"; done > "$TMP/ref-900"
expect_stopped_cleanly sigint INT "$TMP/o/s.tsv" 0 -- \
  "$S" -r "$TMP/ref-900" --hyp "$TMP/hyp-900" --hyp "$TMP/ref-900" --bootstrap 1000000 -o "$TMP/o/s.tsv"
expect_stopped_cleanly sigterm TERM "$TMP/o/new.tsv" 0 -- \
  "$S" -r "$TMP/ref-900" --hyp "$TMP/hyp-900" --hyp "$TMP/ref-900" --bootstrap 1000000 -o "$TMP/o/new.tsv"
# Standard input is read once: '-' for both the reference and the hypothesis is a usage error.
echo "a b" > "$TMP/one"
expect_exit 64 two-stdin -- sh -c "'$BIN/heed-score' -r - --hyp - < '$TMP/one'"
expect_error_line score two-stdin "only one of the --ref and --hyp files can be '-'"
# A path with a line end in it still makes one error line.
expect_exit 66 newline-path -- "$BIN/heed-score" -r "$(printf '%s/no\nfile' "$TMP")" --hyp "$TMP/one"
expect_error_line score newline-path 'no\\nfile'
finish
