#!/usr/bin/env bash
# Contract tests of heed-score: sacreBLEU's figures, line-count checks, bootstrap and sentence output.
source "$(dirname "$0")/lib.sh"
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
expect_exit 66 missing -- "$S" -r "$TMP/none" --hyp "$TMP/hyp"
expect_error_line score missing "none"
expect_exit 64 no-ref -- "$S" --hyp "$TMP/hyp"
expect_error_line score no-ref "ref"
expect_exit 64 bad-tok -- "$S" -r "$TMP/ref1" --hyp "$TMP/hyp" --tokenize moses
expect_error_line score bad-tok "tokenize"
finish
