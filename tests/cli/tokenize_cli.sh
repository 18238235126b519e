#!/usr/bin/env bash
# Contract tests of heed-tokenize: exit codes, one-line errors, stdout purity, line counts,
# bad input, pipes, BPE round trip, config files.
source "$(dirname "$0")/lib.sh"
T=$BIN/heed-tokenize
SAMPLE=$(dirname "$0")/../../share/heed/sample
head -500 "$SAMPLE/train.fr" > "$TMP/fr.txt"
head -500 "$SAMPLE/train.en" > "$TMP/en.txt"
# What detokenize(tokenize(x)) gives back: the sample's only non-NFC-neutral change is that
# no-break and thin spaces (French typography) become plain spaces.
sed -e 's/\xc2\xa0/ /g' -e 's/\xe2\x80\xaf/ /g' -e 's/\xe2\x80\x89/ /g' "$TMP/fr.txt" > "$TMP/fr.norm"

# --help / --version go to stdout, exit 0.
expect_exit 0 help -- "$T" --help
grep -q "^Usage: heed-tokenize" "$TMP/out" && ok || fail "help: no usage line"
expect_exit 0 version -- "$T" --version
grep -qE "^heed-tokenize [0-9]+\.[0-9]+" "$TMP/out" && ok || fail "version: $(cat "$TMP/out")"

# Usage errors: 64, one line.
expect_exit 64 unknown-option -- "$T" --no-such-option
expect_error_line tokenize unknown-option "no-such-option"
expect_exit 64 bad-choice -- "$T" --mode sloppy
expect_error_line tokenize bad-choice "--mode: unknown value 'sloppy'"
expect_exit 64 dropout-without-bpe -- "$T" --bpe-dropout 0.1
expect_error_line tokenize dropout-without-bpe "bpe-dropout"

# Missing input: 66. Unwritable output: 74 before any work.
expect_exit 66 missing-input -- "$T" -i "$TMP/nope.txt"
expect_error_line tokenize missing-input "nope.txt"
expect_exit 74 unwritable-output -- "$T" -i "$TMP/fr.txt" -o "$TMP/no/such/dir/out"
expect_error_line tokenize unwritable-output "no/such/dir"

# A full disk: 74 and one line naming stdout.
if [ -w /dev/full ]; then
  expect_exit 74 full-disk -- sh -c "'$T' -i '$TMP/fr.txt' > /dev/full"
  expect_error_line tokenize full-disk "No space left on device"
fi

# Invalid UTF-8: 65 naming file and line; replace and skip keep the line count.
printf 'bonjour\nun \xff deux\ntrois\n' > "$TMP/bad.txt"
expect_exit 65 invalid-utf8 -- "$T" -i "$TMP/bad.txt"
expect_error_line tokenize invalid-utf8 "bad.txt:2: invalid UTF-8 at byte 4"
expect_exit 65 invalid-utf8-stdin -- sh -c "'$T' < '$TMP/bad.txt'"
expect_error_line tokenize invalid-utf8-stdin "<stdin>:2: invalid UTF-8"
# Nothing lost: lines before the bad one are written, and -o FILE is not left half-written.
expect_eq invalid-utf8-partial "$(head -1 "$TMP/out")" "bonjour"
echo "old" > "$TMP/keep.txt"
expect_exit 65 invalid-utf8-file -- "$T" -i "$TMP/bad.txt" -o "$TMP/keep.txt"
expect_eq atomic-output "$(cat "$TMP/keep.txt")" "old"
expect_exit 0 replace -- "$T" --on-invalid replace -i "$TMP/bad.txt"
expect_eq replace-lines "$(wc -l < "$TMP/out")" 3
grep -q $'\xef\xbf\xbd' "$TMP/out" && ok || fail "replace: no U+FFFD in output"
expect_exit 0 skip -- "$T" --on-invalid skip -i "$TMP/bad.txt"
expect_eq skip-lines "$(wc -l < "$TMP/out")" 3
expect_eq skip-empty "$(sed -n 2p "$TMP/out")" ""

# NUL bytes, CRLF, empty lines, a 1 MB line: line count preserved.
printf 'a\0b\r\n\r\n\nc d\r\n' > "$TMP/odd.txt"
expect_exit 0 odd-lines -- "$T" -i "$TMP/odd.txt"
expect_eq odd-line-count "$(wc -l < "$TMP/out")" 4
expect_eq odd-nul-removed "$(sed -n 1p "$TMP/out")" "ab"
expect_eq odd-empty "$(sed -n 2p "$TMP/out")$(sed -n 3p "$TMP/out")" ""
head -c 1000000 /dev/zero | tr '\0' 'x' | sed 's/xxxxxxxxx/word one, /g' > "$TMP/long.txt"
echo >> "$TMP/long.txt"; echo "after" >> "$TMP/long.txt"
expect_exit 0 long-line -- "$T" -i "$TMP/long.txt"
expect_eq long-line-count "$(wc -l < "$TMP/out")" 2
"$T" -i "$TMP/long.txt" | "$T" detokenize > "$TMP/long.detok"
expect_same long-line-roundtrip "$TMP/long.txt" "$TMP/long.detok"

# Round trip on real text, identical output for 1 and 2 threads.
expect_exit 0 tokenize-fr -- "$T" -i "$TMP/fr.txt" -o "$TMP/fr.tok" --threads 1
"$T" -i "$TMP/fr.txt" --threads 2 > "$TMP/fr.tok2"
expect_same threads-identical "$TMP/fr.tok" "$TMP/fr.tok2"
"$T" detokenize -i "$TMP/fr.tok" > "$TMP/fr.detok"
expect_same detok-roundtrip "$TMP/fr.norm" "$TMP/fr.detok"

# stdout purity: logs never reach stdout.
"$T" --log-level trace -i "$TMP/fr.txt" > "$TMP/fr.trace" 2>/dev/null
expect_same stdout-purity "$TMP/fr.tok" "$TMP/fr.trace"

# learn-bpe, apply, detokenize; BPE-dropout is seeded.
"$T" -i "$TMP/en.txt" -o "$TMP/en.tok"
expect_exit 0 learn-bpe -- "$T" learn-bpe -i "$TMP/fr.tok" -i "$TMP/en.tok" --merges 300 -o "$TMP/codes"
expect_eq codes-header "$(head -1 "$TMP/codes")" "#version: 0.2"
expect_eq codes-count "$(($(wc -l < "$TMP/codes") - 1))" 300
"$T" --bpe "$TMP/codes" -i "$TMP/fr.txt" > "$TMP/fr.bpe"
"$T" detokenize -i "$TMP/fr.bpe" > "$TMP/fr.bpe.detok"
expect_same bpe-roundtrip "$TMP/fr.norm" "$TMP/fr.bpe.detok"
[ "$(wc -w < "$TMP/fr.bpe")" -gt "$(wc -w < "$TMP/fr.tok")" ] && ok || fail "bpe did not split anything"
"$T" --bpe "$TMP/codes" --bpe-dropout 0.3 --seed 7 -i "$TMP/fr.txt" --threads 2 > "$TMP/d1"
"$T" --bpe "$TMP/codes" --bpe-dropout 0.3 --seed 7 -i "$TMP/fr.txt" --threads 1 > "$TMP/d2"
expect_same dropout-seeded "$TMP/d1" "$TMP/d2"
"$T" detokenize -i "$TMP/d1" > "$TMP/d1.detok"
expect_same dropout-roundtrip "$TMP/fr.norm" "$TMP/d1.detok"
printf 'not a codes line with three fields\n' > "$TMP/badcodes"
expect_exit 65 bad-codes -- "$T" --bpe "$TMP/badcodes" -i "$TMP/fr.txt"
expect_error_line tokenize bad-codes "badcodes:1:"

# vocab: token<TAB>count, most frequent first.
expect_exit 0 vocab -- "$T" vocab -i "$TMP/fr.tok" --max-size 10
expect_eq vocab-size "$(wc -l < "$TMP/out")" 10
awk -F'\t' 'NF != 2 || $2 !~ /^[0-9]+$/ { exit 1 } NR > 1 && $2 > prev { exit 1 } { prev = $2 }' "$TMP/out" && ok || fail "vocab: not token<TAB>count sorted"

# One line on all cores (fewer lines than threads), with case marks.
expect_eq one-line "$(echo "Hello WORLD" | "$T" --threads 4 --case-feature)" "hello￨C world￨U"

# --config (the command line wins) and --print-config.
printf 'mode = aggressive\nlowercase = true\n' > "$TMP/tok.ini"
echo "Soft-landing at 2,000 m" | "$T" --config "$TMP/tok.ini" > "$TMP/cfg.out"
expect_eq config-file "$(cat "$TMP/cfg.out")" "soft ￭-￭ landing at 2 ￭,￭ 000 m"
echo "Soft-landing" | "$T" --config "$TMP/tok.ini" --mode conservative > "$TMP/cfg2.out"
expect_eq config-cli-wins "$(cat "$TMP/cfg2.out")" "soft-landing"
expect_exit 0 print-config -- "$T" --config "$TMP/tok.ini" --print-config
grep -qx "mode = aggressive" "$TMP/out" && ok || fail "print-config: $(cat "$TMP/out")"

# A closed pipe ends quietly: no error line, status 0 or SIGPIPE's 141.
for i in $(seq 200); do cat "$TMP/fr.txt"; done > "$TMP/big.txt"
"$T" -i "$TMP/big.txt" 2>"$TMP/pipe.err" | head -1 > /dev/null
status=${PIPESTATUS[0]}
{ [ "$status" = 0 ] || [ "$status" = 141 ]; } && ok || fail "head: exit $status"
expect_eq head-quiet "$(cat "$TMP/pipe.err")" ""

finish
