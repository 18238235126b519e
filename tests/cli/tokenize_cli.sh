#!/usr/bin/env bash
# Contract tests of heed-tokenize: exit codes, one-line errors, stdout purity, line counts,
# bad input, pipes, BPE round trip, config files.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_signals.sh"
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
# Nothing lost: the lines before the bad one are written to stdout.
expect_eq invalid-utf8-partial "$(cat "$TMP/out")" "bonjour"
# With -o FILE, FILE keeps its old content and the lines before the bad one are in FILE.partial.
mkdir "$TMP/o"
echo "old" > "$TMP/o/keep.txt"
expect_exit 65 invalid-utf8-file -- "$T" -i "$TMP/bad.txt" -o "$TMP/o/keep.txt"
expect_error_line tokenize invalid-utf8-file "bad.txt:2: invalid UTF-8 .*; the line before it is in '.*/o/keep.txt.partial'"
expect_eq atomic-output "$(cat "$TMP/o/keep.txt")" "old"
expect_eq partial-output "$(cat "$TMP/o/keep.txt.partial")" "bonjour"
expect_eq partial-no-temp-file "$(ls "$TMP/o" | tr '\n' ' ')" "keep.txt keep.txt.partial "
# A new target is not created; a later successful run removes the stale FILE.partial.
expect_exit 65 invalid-utf8-new-file -- "$T" -i "$TMP/bad.txt" -o "$TMP/o/new.txt"
expect_eq partial-new-file "$(ls "$TMP/o" | tr '\n' ' ')" "keep.txt keep.txt.partial new.txt.partial "
expect_exit 0 partial-removed -- "$T" -i "$TMP/fr.txt" -o "$TMP/o/keep.txt"
expect_eq partial-removed-files "$(ls "$TMP/o" | tr '\n' ' ')" "keep.txt new.txt.partial "
# A bad first line: nothing to keep, no FILE.partial.
printf '\xff\nok\n' > "$TMP/bad1.txt"
expect_exit 65 invalid-first-line -- "$T" -i "$TMP/bad1.txt" -o "$TMP/o/first.txt"
expect_error_line tokenize invalid-first-line "bad1.txt:1: invalid UTF-8 at byte 1 \(see --on-invalid\)$"
expect_eq invalid-first-line-files "$(ls "$TMP/o" | tr '\n' ' ')" "keep.txt new.txt.partial "
# replace: U+FFFD, the line count kept, one warning naming file:line.
expect_exit 0 replace -- "$T" --on-invalid replace -i "$TMP/bad.txt"
expect_eq replace-lines "$(wc -l < "$TMP/out")" 3
expect_eq replace-line "$(sed -n 2p "$TMP/out")" "un � deux"
expect_eq replace-warning "$(grep -c 'bad.txt:2: invalid UTF-8 at byte 4: replaced by U+FFFD' "$TMP/err") $(wc -l < "$TMP/err")" "1 1"
expect_exit 0 skip -- "$T" --on-invalid skip -i "$TMP/bad.txt"
expect_eq skip-lines "$(wc -l < "$TMP/out")" 3
expect_eq skip-empty "$(sed -n 2p "$TMP/out")" ""
expect_eq skip-warning "$(grep -c 'bad.txt:2: .*line left empty' "$TMP/err")" 1
expect_exit 64 bad-on-invalid -- "$T" --on-invalid ignore
expect_error_line tokenize bad-on-invalid "on-invalid: unknown value 'ignore'"

# A NUL byte is not text: refused like invalid UTF-8 (replace gives U+FFFD).
printf 'a b\nc\0d\n' > "$TMP/nul.txt"
expect_exit 65 nul -- "$T" -i "$TMP/nul.txt"
expect_error_line tokenize nul "nul.txt:2: NUL byte at byte 2"
expect_eq nul-partial "$(cat "$TMP/out")" "a b"
expect_exit 0 nul-replace -- "$T" --on-invalid replace -i "$TMP/nul.txt"
expect_eq nul-replace-line "$(sed -n 2p "$TMP/out")" "c ￭�￭ d"

# CRLF and empty lines: the line count is kept, no CR in the output.
printf 'a b\r\n\r\n\nc d\r\n' > "$TMP/crlf.txt"
expect_exit 0 crlf -- "$T" -i "$TMP/crlf.txt"
expect_eq crlf-lines "$(wc -l < "$TMP/out")" 4
expect_eq crlf-content "$(tr '\n' '|' < "$TMP/out")" "a b|||c d|"

# A leading byte order mark is dropped by every mode (and by the codes reader).
printf '\xef\xbb\xbfHello world\nworld\n' > "$TMP/bom.txt"
expect_exit 0 bom -- "$T" -i "$TMP/bom.txt"
expect_eq bom-tokenize "$(head -1 "$TMP/out")" "Hello world"
expect_exit 0 bom-vocab -- "$T" vocab -i "$TMP/bom.txt"
expect_eq bom-vocab-tokens "$(cut -f1 "$TMP/out" | sort | tr '\n' ' ')" "Hello world "
expect_exit 0 bom-learn-bpe -- "$T" learn-bpe -i "$TMP/bom.txt" --merges 10
grep -q $'\xef\xbb\xbf' "$TMP/out" && fail "bom-learn-bpe: BOM in the codes" || ok
printf '\xef\xbb\xbf#version: 0.2\nw o\n' > "$TMP/bom.codes"
expect_exit 0 bom-codes -- sh -c "echo wow | '$T' --bpe '$TMP/bom.codes'"
expect_eq bom-codes-applied "$(cat "$TMP/out")" "wo￭ w"

# learn-bpe and vocab follow --on-invalid too, and the codes reader refuses what is not text.
expect_exit 65 vocab-invalid -- "$T" vocab -i "$TMP/fr.txt" -i "$TMP/bad.txt"
expect_error_line tokenize vocab-invalid "bad.txt:2: invalid UTF-8 at byte 4"
expect_exit 65 learn-bpe-invalid -- "$T" learn-bpe -i "$TMP/bad.txt" -o "$TMP/o/codes"
expect_error_line tokenize learn-bpe-invalid "bad.txt:2: invalid UTF-8 at byte 4"
expect_exit 65 vocab-nul -- "$T" vocab -i "$TMP/nul.txt"
expect_error_line tokenize vocab-nul "nul.txt:2: NUL byte at byte 2"
expect_exit 0 vocab-replace -- "$T" vocab --on-invalid replace -i "$TMP/bad.txt"
expect_eq vocab-replace-token "$(grep -c $'^�\t1$' "$TMP/out")" 1
expect_exit 0 vocab-skip -- "$T" vocab --on-invalid skip -i "$TMP/bad.txt"
expect_eq vocab-skip-tokens "$(cut -f1 "$TMP/out" | sort | tr '\n' ' ')" "bonjour trois "
printf '#version: 0.2\nw o\n\xe9 t\n' > "$TMP/latin1.codes"
expect_exit 65 codes-invalid -- "$T" --bpe "$TMP/latin1.codes" -i "$TMP/fr.txt"
expect_error_line tokenize codes-invalid "latin1.codes:3: invalid UTF-8 at byte 1"
# A file that is not BPE codes (prose, a truncated merge line) is refused naming its line.
printf '#version: 0.2\nw o\nThis is a sentence.\n' > "$TMP/prose.codes"
expect_exit 65 codes-foreign -- "$T" --bpe "$TMP/prose.codes" -i "$TMP/fr.txt"
expect_error_line tokenize codes-foreign "prose.codes:3: expected a merge"
printf '#version: 0.2\nw o\ne' > "$TMP/truncated.codes"
expect_exit 65 codes-truncated -- "$T" --bpe "$TMP/truncated.codes" -i "$TMP/fr.txt"
expect_error_line tokenize codes-truncated "truncated.codes:3: expected a merge"

# A 1 MB line (tokens of every kind) is tokenized, detokenized back, and the next line follows.
head -c 1000000 /dev/zero | tr '\0' 'x' | sed 's/xxxxxxxxx/word one, /g' > "$TMP/long.txt"
echo >> "$TMP/long.txt"; echo "after" >> "$TMP/long.txt"
expect_exit 0 long-line -- "$T" -i "$TMP/long.txt"
expect_eq long-line-count "$(wc -l < "$TMP/out")" 2
expect_eq long-line-after "$(tail -1 "$TMP/out")" "after"
"$T" -i "$TMP/long.txt" | "$T" detokenize > "$TMP/long.detok"
expect_same long-line-roundtrip "$TMP/long.txt" "$TMP/long.detok"

# SIGINT and SIGTERM: 130 and 143, the target untouched and no temporary file left.
mkfifo "$TMP/fifo"
exec 7<>"$TMP/fifo"
expect_stopped_cleanly sigint INT "$TMP/o/keep.txt" 0 -- "$T" -i "$TMP/fifo" -o "$TMP/o/keep.txt"
expect_stopped_cleanly sigterm TERM "$TMP/o/stopped.txt" 0 -- "$T" -i "$TMP/fifo" -o "$TMP/o/stopped.txt"
exec 7>&-

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

# Input that ends without a final newline (a writer that closed early): every line is written.
expect_exit 0 eof-early -- sh -c "printf 'un deux\\ntrois quatre' | '$T'"
expect_eq eof-early-lines "$(cat "$TMP/out")" "$(printf 'un deux\ntrois quatre')"

# Out of memory while reading a line is an error naming the file and line (exit 71), never the
# end of the input; the lines before it are kept (it used to give 3 lines, exit 0). Endless
# input (/dev/zero) ends the same way. heed-translate and heed-score too.
if ! under_sanitizer; then
  { printf 'one line\ntwo lines\nthree lines\n'; head -c 150000000 /dev/zero | tr '\0' a; printf '\nfive\n'; } > "$TMP/huge-line"
  (ulimit -v 300000; exec "$BIN/heed-tokenize" -i "$TMP/huge-line" -o "$TMP/huge.out") >"$TMP/out" 2>"$TMP/err"
  expect_eq oom-line-exit $? 71
  expect_error_line tokenize oom-line "huge-line:4: out of memory reading this line.*3 lines before it are in"
  expect_eq oom-line-kept "$(wc -l < "$TMP/huge.out.partial")" 3
  [ -e "$TMP/huge.out" ] && fail "oom-line: the truncated output was committed" || ok
fi
# An empty BPE codes file is refused (it would leave every word in characters), here and in
# heed-train --bpe.
: > "$TMP/empty.codes"
expect_exit 65 empty-codes -- sh -c "echo 'a b' | '$BIN/heed-tokenize' --bpe '$TMP/empty.codes'"
expect_error_line tokenize empty-codes "empty.codes: no merges"
echo "a b" > "$TMP/one-line"
# Input that is not a regular file may never end its line (/dev/zero, a pipe): a line longer than
# 64 MiB there is bad input (65 + line), not a read until memory runs out. heed-score and
# heed-translate read the same way.
expect_exit 65 dev-zero -- "$BIN/heed-tokenize" -i /dev/zero
expect_error_line tokenize dev-zero "/dev/zero:1: a line longer than 64 MiB in input that is not a regular file"
expect_exit 65 endless-pipe -- sh -c "{ echo 'a b'; head -c 70000000 /dev/zero | tr '\\0' a; } | '$BIN/heed-tokenize' -o '$TMP/pipe.out'"
expect_error_line tokenize endless-pipe "<stdin>:2: a line longer than 64 MiB.*the line before it is in"
expect_exit 65 score-dev-zero -- "$BIN/heed-score" -r /dev/zero --hyp "$TMP/one-line"
expect_error_line score score-dev-zero "/dev/zero:1: a line longer than 64 MiB"
finish
