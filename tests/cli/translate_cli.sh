#!/usr/bin/env bash
# Contract tests of heed-translate on a tiny model trained here: raw text in and out, one output
# line per input line (empty lines included), n-best layout and order, alignment shapes, the
# co-process protocol (a line in, a line out, input still open), quiet SIGPIPE, bad input, and
# the lexical shortlist (--shortlist) with heed-align ibm2's table.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_signals.sh"
T=$BIN/heed-train
X=$BIN/heed-translate
train_sample_model 60
M=$TMP/m/model.heed

# A byte order mark at the start of the training corpora does not reach the model's vocabularies.
for l in en fr; do { printf '\xef\xbb\xbf'; cat "$TMP/bpe.$l"; } > "$TMP/bom.$l"; done
expect_exit 0 train-bom -- "$T" --train-src "$TMP/bom.en" --train-tgt "$TMP/bom.fr" --bpe "$TMP/codes" \
  --tokenizer-mode conservative --hidden 16 --embed 8 --max-steps 1 --threads 1 -q -o "$TMP/mbom"
expect_eq train-bom-vocab "$(grep -c $'\xef\xbb\xbf' "$TMP/mbom/model.heed")" 0

# The Unicode form the data was tokenized with is recorded, and heed-translate applies it to raw
# input: under NFKC, fullwidth "Ｔｏｍ" is "Tom", so both lines translate alike.
expect_exit 0 train-nfkc -- "$T" --train-src "$TMP/bpe.en" --train-tgt "$TMP/bpe.fr" --bpe "$TMP/codes" \
  --tokenizer-mode conservative --tokenizer-normalize nfkc --hidden 16 --embed 8 --max-steps 1 \
  --threads 1 -q -o "$TMP/mnfkc"
expect_eq nfkc-recorded "$(grep -c 'tokenizer_normalization.*nfkc' "$TMP/mnfkc/model.heed")" 1
printf 'Tom is here.\n\xef\xbc\xb4\xef\xbd\x8f\xef\xbd\x8d is here.\n' > "$TMP/nfkc.in"
expect_exit 0 translate-nfkc -- "$X" -m "$TMP/mnfkc/model.heed" -i "$TMP/nfkc.in"
expect_eq nfkc-applied "$(sed -n 2p "$TMP/out")" "$(sed -n 1p "$TMP/out")"

printf 'Tom is here.\n\nI like cats.\nWhere is it?\n' > "$TMP/in"
expect_exit 0 translate -- "$X" -m "$M" -i "$TMP/in" --beam-size 3
expect_eq lines "$(wc -l < "$TMP/out")" 4
expect_eq empty-line "$(sed -n 2p "$TMP/out")" ""
grep -q '￭' "$TMP/out" && fail "output not detokenized: $(cat "$TMP/out")" || ok
# The same through stdin/stdout, greedy and beam agree on the line count.
expect_exit 0 stdin -- sh -c "'$X' -m '$M' --beam-size 1 < '$TMP/in'"
expect_eq stdin-lines "$(wc -l < "$TMP/out")" 4

# n-best: Moses's and Marian's "id ||| hypothesis ||| F0= log-prob ||| score", ids in order, N
# per line, best (highest score) first.
expect_exit 0 nbest -- "$X" -m "$M" -i "$TMP/in" --beam-size 4 --n-best 3
expect_eq nbest-lines "$(wc -l < "$TMP/out")" 10
awk -F' [|][|][|] ' 'NF != 4 || $3 !~ /^F0= -?[0-9]+[.][0-9]+$/ || $4 !~ /^-?[0-9]+[.][0-9]+$/ { exit 1 }' \
  "$TMP/out" && ok || fail "nbest: bad layout: $(head -3 "$TMP/out")"
expect_eq nbest-ids "$(cut -d' ' -f1 "$TMP/out" | uniq | tr '\n' ' ')" "0 1 2 3 "
awk -F' [|][|][|] ' '$1 == prev && $4 > last + 1e-6 { exit 1 } { prev = $1; last = $4 }' "$TMP/out" \
  && ok || fail "nbest: not best first"
# Without length normalization the two scores are one.
expect_exit 0 nbest-raw -- "$X" -m "$M" -i "$TMP/in" --beam-size 4 --n-best 3 --normalize none
awk -F' [|][|][|] ' '$2 != "" && "F0= " $4 != $3 { exit 1 }' "$TMP/out" && ok ||
  fail "nbest --normalize none: F0 differs from the score: $(head -3 "$TMP/out")"

# Alignments: hard = Pharaoh links within the sentence lengths; soft = one row per output token.
expect_exit 0 hard -- "$X" -m "$M" -i "$TMP/in" --alignment hard --min-length 2
awk -F' [|][|][|] ' 'NF == 1 && $0 == "" { next }
  { n = split($1, out, " "); m = split($2, links, " ")
    for (i = 1; i <= m; i++) { split(links[i], p, "-"); if (p[2] >= n || p[1] < 0) exit 1 } }' "$TMP/out" \
  && ok || fail "hard: bad links: $(cat "$TMP/out")"
grep -qE '^Tom is here\.|[0-9]+-[0-9]+' "$TMP/out" && ok || fail "hard: no links"
cp "$TMP/out" "$TMP/hard.out"
# pharaoh is hard's name as a format; talp is the same links one-based (the same writers as
# heed-align extract --format, lib/heed/align/alignment_writer.h).
expect_exit 0 pharaoh -- "$X" -m "$M" -i "$TMP/in" --alignment pharaoh --min-length 2
expect_same pharaoh-is-hard "$TMP/hard.out" "$TMP/out"
expect_exit 0 talp -- "$X" -m "$M" -i "$TMP/in" --alignment talp --min-length 2
awk -F' [|][|][|] ' 'BEGIN { OFS = " ||| " } NF < 2 { print; next }
  { m = split($2, links, " "); $2 = ""
    for (i = 1; i <= m; i++) { split(links[i], p, "-"); $2 = $2 (i > 1 ? " " : "") p[1] + 1 "-" p[2] + 1 }
    print }' "$TMP/hard.out" > "$TMP/talp.want"
expect_same talp-is-hard-one-based "$TMP/talp.want" "$TMP/out"
expect_exit 0 soft -- "$X" -m "$M" -i "$TMP/in" --alignment soft --pretokenized --min-length 2
awk -F' [|][|][|] ' '$0 == "" { next } { n = split($1, out, " "); r = split($2, rows, " "); if (r != n) exit 1 }' "$TMP/out" \
  && ok || fail "soft: rows != output tokens: $(head -2 "$TMP/out")"

# Co-process: write one line, read one line, with the input still open.
coproc TR { "$X" -m "$M" --beam-size 2 2>/dev/null; }
# Bash unsets TR_PID once it has reaped the coprocess, which can happen before the wait below;
# wait on a reaped child's saved pid still returns its status.
tr_pid=$TR_PID
echo "I like cats." >&"${TR[1]}"
if read -r -t 20 answer <&"${TR[0]}"; then ok; else fail "coprocess: no answer within 20 s"; fi
echo "Tom is here." >&"${TR[1]}"
if read -r -t 20 answer2 <&"${TR[0]}"; then ok; else fail "coprocess: no second answer"; fi
exec {TR[1]}>&-
wait "$tr_pid" 2>/dev/null
expect_eq coprocess-exit $? 0

# SIGPIPE into head is not an error.
yes "Tom is here." | head -3000 > "$TMP/many"
expect_exit 0 head -- sh -c "'$X' -m '$M' --beam-size 1 < '$TMP/many' | head -1"
expect_eq head-stderr "$(wc -c < "$TMP/err")" 0

# A full disk: exit 74 with one error line, not a silent short output.
if [ -w /dev/full ]; then
  expect_exit 74 full-disk -- sh -c "'$X' -m '$M' --beam-size 1 -i '$TMP/in' > /dev/full"
  expect_error_line translate full-disk "No space left|stdout|write"
fi

# Over-long input: truncated with a warning naming the line, still one output line.
printf 'short.\n%s\n' "$(yes word | head -50 | tr '\n' ' ')" > "$TMP/long"
expect_exit 0 long -- "$X" -m "$M" -i "$TMP/long" --max-input-length 10 --beam-size 1
expect_eq long-lines "$(wc -l < "$TMP/out")" 2
grep -q "long:2: input truncated to 10 tokens" "$TMP/err" && ok || fail "long: $(cat "$TMP/err")"

# A 1 MB line: truncated with a warning, the lines around it translated.
{ echo "Tom is here."; head -c 1000000 /dev/zero | tr '\0' 'x' | sed 's/xxxxxxxxx/word one, /g'; echo
  echo "I like cats."; } > "$TMP/long1m"
expect_exit 0 long-1mb -- "$X" -m "$M" -i "$TMP/long1m" --beam-size 2
expect_eq long-1mb-lines "$(wc -l < "$TMP/out")" 3
grep -q "long1m:2: input truncated to 250 tokens" "$TMP/err" && ok || fail "long-1mb: $(cat "$TMP/err")"

# CRLF line ends and a leading byte order mark change nothing (pretokenized n-best scores would
# show a BOM left in the first token: it would be unknown to the model).
printf 'Tom is here .\n\nI like cats .\n' > "$TMP/plain"
printf '\xef\xbb\xbfTom is here .\r\n\r\nI like cats .\r\n' > "$TMP/bom-crlf"
"$X" -m "$M" --pretokenized -b 2 --n-best 2 -i "$TMP/plain" > "$TMP/plain.out" 2>/dev/null
expect_exit 0 bom-crlf -- "$X" -m "$M" --pretokenized -b 2 --n-best 2 -i "$TMP/bom-crlf"
expect_same bom-crlf-same "$TMP/plain.out" "$TMP/out"
"$X" -m "$M" -i "$TMP/in" > "$TMP/in.out" 2>/dev/null
sed 's/$/\r/' "$TMP/in" > "$TMP/in.crlf"
expect_exit 0 crlf -- "$X" -m "$M" -i "$TMP/in.crlf"
expect_same crlf-same "$TMP/in.out" "$TMP/out"

# Bad input and bad models: one error line.
printf 'ok\ncaf\xe9\n' > "$TMP/latin1"
expect_exit 65 utf8 -- "$X" -m "$M" -i "$TMP/latin1"
expect_error_line translate utf8 "latin1:2: invalid UTF-8 at byte 4"
# Every line before the bad one is written (here: the whole read window but the last line).
{ cat "$TMP/in" "$TMP/in"; printf 'caf\xe9\nI like cats.\n'; } > "$TMP/bad9"
expect_exit 65 utf8-stdout -- sh -c "'$X' -m '$M' --beam-size 2 < '$TMP/bad9'"
expect_error_line translate utf8-stdout "<stdin>:9: invalid UTF-8 at byte 4"
"$X" -m "$M" --beam-size 2 -i "$TMP/in" > "$TMP/in.b2" 2>/dev/null
cat "$TMP/in.b2" "$TMP/in.b2" > "$TMP/in.b2.twice"
expect_same utf8-lines-before "$TMP/in.b2.twice" "$TMP/out"
# With -o FILE: FILE as before, the translations of lines 1-8 in FILE.partial.
mkdir "$TMP/o"
echo "old" > "$TMP/o/t.txt"
expect_exit 65 utf8-file -- "$X" -m "$M" --beam-size 2 -i "$TMP/bad9" -o "$TMP/o/t.txt"
expect_error_line translate utf8-file "bad9:9: invalid UTF-8 at byte 4 .*; the 8 lines before it are in '.*/o/t.txt.partial'"
expect_eq utf8-file-untouched "$(cat "$TMP/o/t.txt")" "old"
expect_same utf8-file-partial "$TMP/in.b2.twice" "$TMP/o/t.txt.partial"
expect_eq utf8-file-no-temp "$(ls "$TMP/o" | tr '\n' ' ')" "t.txt t.txt.partial "
# replace: U+FFFD, one output line per input line, one warning naming the line.
expect_exit 0 utf8-replace -- "$X" -m "$M" --beam-size 2 -i "$TMP/bad9" --on-invalid replace
expect_eq utf8-replace-lines "$(wc -l < "$TMP/out")" 10
expect_eq utf8-replace-warning "$(grep -c 'bad9:9: invalid UTF-8 at byte 4: replaced by U+FFFD' "$TMP/err")" 1
expect_exit 64 utf8-bad-choice -- "$X" -m "$M" --on-invalid skip -i "$TMP/in"
expect_error_line translate utf8-bad-choice "on-invalid: unknown value 'skip' \(expected error, replace\)"
# A NUL byte is not text either.
printf 'Tom is here.\nTom\0is here.\n' > "$TMP/nul"
expect_exit 65 nul -- "$X" -m "$M" -i "$TMP/nul"
expect_error_line translate nul "nul:2: NUL byte at byte 4"
expect_eq nul-lines-before "$(wc -l < "$TMP/out")" 1
expect_exit 0 nul-replace -- "$X" -m "$M" -i "$TMP/nul" --on-invalid replace
expect_eq nul-replace-lines "$(wc -l < "$TMP/out")" 2
head -c 1000 "$M" > "$TMP/truncated.heed"
expect_exit 65 truncated -- "$X" -m "$TMP/truncated.heed" -i "$TMP/in"
expect_error_line translate truncated "truncated.heed"
printf 'not a model at all' > "$TMP/foreign.heed"
expect_exit 65 foreign -- "$X" -m "$TMP/foreign.heed" -i "$TMP/in"
expect_error_line translate foreign "foreign.heed"
sed 's/"format_version":"[0-9]*"/"format_version":"7"/' "$M" > "$TMP/newer.heed"
expect_exit 65 newer -- "$X" -m "$TMP/newer.heed" -i "$TMP/in"
expect_error_line translate newer "newer.heed.*format version 7, newer than"
expect_exit 66 missing -- "$X" -m "$TMP/nope.heed" -i "$TMP/in"
expect_error_line translate missing "nope.heed"
expect_exit 64 nbest-too-big -- "$X" -m "$M" --beam-size 2 --n-best 3 -i "$TMP/in"
expect_error_line translate nbest-too-big "n-best"
expect_exit 64 bad-alignment -- "$X" -m "$M" --alignment sometimes -i "$TMP/in"
expect_error_line translate bad-alignment "--alignment must be pharaoh, talp, soft, hard or a threshold"
# jsonl holds forced decoding's </s> row: heed-align extract --soft writes it.
expect_exit 64 jsonl-alignment -- "$X" -m "$M" --alignment jsonl -i "$TMP/in"
expect_error_line translate jsonl-alignment "jsonl alignment format is for force-decoded pairs.*heed-align extract --soft"

# --shortlist: a lexical table from heed-align ibm2 on the model's own (BPE) training data.
# Holding every word (more frequent words than the vocabulary has), it changes nothing; with the
# defaults it still translates every line, alignments included.
expect_exit 0 lexical-table -- "$BIN/heed-align" ibm2 "$TMP/bpe.en" "$TMP/bpe.fr" -o "$TMP/links" \
  --lexical-table "$TMP/lex.tsv"
expect_exit 0 no-shortlist -- "$X" -m "$M" -i "$TMP/in" --beam-size 3
cp "$TMP/out" "$TMP/full.out"
expect_exit 0 shortlist-every-word -- "$X" -m "$M" -i "$TMP/in" --beam-size 3 \
  --shortlist "$TMP/lex.tsv" --shortlist-frequent 1000000
expect_same shortlist-every-word "$TMP/out" "$TMP/full.out"
expect_exit 0 shortlist -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/lex.tsv" \
  --shortlist-frequent 10 --shortlist-best 5 --alignment hard
expect_eq shortlist-lines "$(wc -l < "$TMP/out")" 4
grep -qE ' [|][|][|] ([0-9]+-[0-9]+)?' "$TMP/out" && ok || fail "shortlist: no alignment: $(cat "$TMP/out")"
# A bad table line: exit 65 and one line naming file and line.
{ head -2 "$TMP/lex.tsv"; printf 'chat\tcat\n'; } > "$TMP/lex-bad.tsv"
expect_exit 65 shortlist-bad-line -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/lex-bad.tsv"
expect_error_line translate shortlist-bad-line \
  "lex-bad.tsv:3: expected 'source<TAB>target<TAB>probability'$"
printf 'chat\tcat\t2\n' > "$TMP/lex-bad.tsv"
expect_exit 65 shortlist-bad-probability -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/lex-bad.tsv"
expect_error_line translate shortlist-bad-probability \
  "lex-bad.tsv:1: the probability '2' is not a number in \\[0, 1\\]$"
# Marian's shortlists (issue 64) are named, with what heed reads and how to convert: its text
# one ('target source probability', space-separated; NULL entries), line and file named, and the
# command the message gives makes a table that translates as heed's own; its binary one by the
# 64-bit number it opens with.
expect_exit 0 shortlist-reference -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/lex.tsv" \
  --shortlist-frequent 10 --shortlist-best 5
cp "$TMP/out" "$TMP/shortlist.out"
{ echo "NULL house 0.1"; awk -F'\t' '{ print $2, $1, $3 }' "$TMP/lex.tsv"; } > "$TMP/lex.s2t"
expect_exit 65 shortlist-marian-text -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/lex.s2t"
expect_error_line translate shortlist-marian-text \
  "lex.s2t:1: space-separated, as Marian's lexical shortlist writes 'target source probability'; heed reads 'source<TAB>target<TAB>probability', the source word first: convert with awk .* > table.tsv$"
convert=$(sed -n 's/.*: convert with //p' "$TMP/err")
(cd "$TMP" && eval "$convert") && ok || fail "shortlist-marian-text: the conversion failed: $convert"
expect_exit 0 shortlist-converted -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/table.tsv" \
  --shortlist-frequent 10 --shortlist-best 5
expect_same shortlist-converted-same "$TMP/out" "$TMP/shortlist.out"
printf '\xf5\x17\x34\x01\xd5\x48\x1a\xf1\x01\x00\x00\x00' > "$TMP/lex.bin"
expect_exit 65 shortlist-marian-binary -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/lex.bin"
expect_error_line translate shortlist-marian-binary \
  "lex.bin:1: a binary Marian shortlist \\(marian-conv --shortlist\\); heed reads a lexical table of 'source<TAB>target<TAB>probability' text lines: .*heed-align ibm2 --lexical-table$"
# An empty table is allowed (the frequent words alone) but said on stderr.
: > "$TMP/lex-empty.tsv"
expect_exit 0 shortlist-empty -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/lex-empty.tsv" \
  --shortlist-frequent 10
grep -q 'lex-empty.tsv: no translations: the shortlist is the 10 most frequent target words alone' \
  "$TMP/err" && ok || fail "shortlist-empty: no warning: $(cat "$TMP/err")"
expect_exit 66 shortlist-missing -- "$X" -m "$M" -i "$TMP/in" --shortlist "$TMP/nothing.tsv"
expect_error_line translate shortlist-missing "nothing.tsv"
expect_exit 64 shortlist-best-alone -- "$X" -m "$M" -i "$TMP/in" --shortlist-best 3
expect_error_line translate shortlist-best-alone "--shortlist-best need --shortlist"

# --sampling (here with -b 1): one output line per input line; the same --seed gives the same output
# whatever the batching and threads (each line draws from a stream of the seed and its line
# number), another seed other samples, and a repeated line other samples each time; topk:1 is
# greedy search; --print-config replays. Bad values: 64 and one line naming the option.
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$TMP/in"; done > "$TMP/in40"
S=("$X" -m "$M" -i "$TMP/in40" -b 1)
expect_exit 0 sampling -- "${S[@]}" --sampling nucleus:0.95 --seed 3
cp "$TMP/out" "$TMP/sample3"
expect_eq sampling-lines "$(wc -l < "$TMP/sample3")" 40
expect_eq sampling-empty-lines "$(grep -c '^$' "$TMP/sample3")" 10
expect_exit 0 sampling-batch-1 -- "${S[@]}" --sampling nucleus:0.95 --seed 3 --batch-size 1 --threads 1
expect_same sampling-same-seed "$TMP/sample3" "$TMP/out"
expect_exit 0 sampling-batch-7 -- "${S[@]}" --sampling nucleus:0.95 --seed 3 --batch-size 7 --threads 2
expect_same sampling-same-seed-batched "$TMP/sample3" "$TMP/out"
expect_exit 0 sampling-other-seed -- "${S[@]}" --sampling nucleus:0.95 --seed 4
cmp -s "$TMP/sample3" "$TMP/out" && fail "sampling: seeds 3 and 4 drew the same 40 lines" || ok
[ "$(sed -n '1~4p' "$TMP/sample3" | sort -u | wc -l)" -gt 1 ] && ok ||
  fail "sampling: line 1 repeated 10 times drew one translation: $(sed -n 1p "$TMP/sample3")"
expect_exit 0 sampling-print-config -- "${S[@]}" --sampling nucleus:0.95 --seed 3 --print-config
cp "$TMP/out" "$TMP/sampling.cfg"
expect_exit 0 sampling-replay -- "$X" --config "$TMP/sampling.cfg"
expect_same sampling-replay-same "$TMP/sample3" "$TMP/out"
expect_exit 0 sampling-top1 -- "${S[@]}" --sampling topk:1 --temperature 3 --alignment hard
cp "$TMP/out" "$TMP/top1"
expect_exit 0 greedy -- "${S[@]}" --alignment hard
expect_same sampling-top1-is-greedy "$TMP/out" "$TMP/top1"
expect_exit 0 sampling-full -- "${S[@]}" --sampling full --temperature 0.7 --min-length 1
expect_eq sampling-full-lines "$(wc -l < "$TMP/out")" 40
for bad in topk:0 topk:-2 topk:2.5 topk:99999999999 nucleus:0 nucleus:1.5 nucleus:nan topk beam; do
  expect_exit 64 "sampling-$bad" -- "${S[@]}" --sampling "$bad"
  expect_error_line translate "sampling-$bad" "^heed-translate: error: --sampling"
done
# --sampling alone implies a beam of 1 (issue 64): the same lines as with -b 1, and its
# --print-config writes beam-size = 1 and replays without -b (a config file's sampling alone
# too); a beam given other than 1 is refused.
S1=("$X" -m "$M" -i "$TMP/in40")
expect_exit 0 sampling-implies-beam-1 -- "${S1[@]}" --sampling nucleus:0.95 --seed 3
expect_same sampling-implies-beam-1-same "$TMP/out" "$TMP/sample3"
expect_exit 0 sampling-implied-print-config -- "${S1[@]}" --sampling nucleus:0.95 --seed 3 --print-config
expect_eq sampling-implied-print-config-beam "$(grep '^beam-size = ' "$TMP/out")" "beam-size = 1"
cp "$TMP/out" "$TMP/implied.cfg"
expect_exit 0 sampling-implied-replay -- "$X" --config "$TMP/implied.cfg"
expect_same sampling-implied-replay-same "$TMP/out" "$TMP/sample3"
grep -v '^beam-size' "$TMP/implied.cfg" > "$TMP/implied-no-beam.cfg"
expect_exit 0 sampling-config-no-beam -- "$X" --config "$TMP/implied-no-beam.cfg"
expect_same sampling-config-no-beam-same "$TMP/out" "$TMP/sample3"
expect_exit 0 search-print-config -- "${S1[@]}" --print-config
expect_eq search-print-config-beam "$(grep '^beam-size = ' "$TMP/out")" "beam-size = 5"
expect_exit 64 sampling-beam -- "$X" -m "$M" -i "$TMP/in" --sampling topk:5 --beam-size 5
expect_error_line translate sampling-beam \
  "--sampling draws one translation per line: it needs --beam-size 1, not 5$"
expect_exit 64 sampling-n-best -- "${S[@]}" --sampling topk:5 --n-best 2
expect_error_line translate sampling-n-best "n-best"
for bad in 0 -1 nan inf; do
  expect_exit 64 "temperature-$bad" -- "${S[@]}" --sampling full --temperature "$bad"
  expect_error_line translate "temperature-$bad" "option '--temperature' must be a finite number > 0, not '$bad'"
done
expect_exit 64 temperature-underflow -- "${S[@]}" --sampling full --temperature 1e-50
expect_error_line translate temperature-underflow "option '--temperature' must be a finite number > 0, not '1e-50' \\(below the smallest float"
expect_exit 64 temperature-alone -- "${S[@]}" --temperature 0.5
expect_error_line translate temperature-alone "--temperature needs --sampling$"
printf 'beam-size = 1\nsampling = nucleus:2\n' > "$TMP/sampling-bad.cfg"
expect_exit 64 sampling-config -- "$X" -m "$M" -i "$TMP/in" --config "$TMP/sampling-bad.cfg"
expect_error_line translate sampling-config "sampling-bad.cfg:2: --sampling nucleus:P: P must be a number in \(0, 1\], not '2'$"

# Sizes that cannot fit in memory are refused before any work, naming the option to lower.
expect_exit 64 huge-beam -- "$X" -m "$M" -b 100000 -i "$TMP/in"
expect_error_line translate huge-beam "^heed-translate: error: option '--beam-size' must be an integer in \\[1, 1000\\], not '100000'"
# Sizes each within range that together cannot fit are refused by the memory estimate.
expect_exit 64 huge-beam-batch -- "$X" -m "$M" -b 1000 --batch-size 100000 -i "$TMP/in"
expect_error_line translate huge-beam-batch "decoding \\(.* sentences x .* hypotheses, .*\\) could need [0-9.e+]+ GiB, more than .*; lower --(beam|batch)-size$"
expect_exit 64 huge-batch -- "$X" -m "$M" --batch-size 100000000 -i "$TMP/in"
expect_error_line translate huge-batch "--batch-size 100000000: .*lower --batch-size$"
expect_exit 64 huge-input-length -- "$X" -m "$M" --max-input-length 100000000 -i "$TMP/in"
expect_error_line translate huge-input-length "--max-input-length 100000000: .*lower --max-input-length$"
expect_exit 64 huge-length-ratio -- "$X" -m "$M" --max-length-ratio 1e9 -i "$TMP/in"
expect_error_line translate huge-length-ratio "--max-length-ratio 1000000000: .*lower --max-length-ratio$"
# The refusal names the option that is too large (it said "lower --beam-size" here).
expect_exit 64 huge-length-offset -- "$X" -m "$M" --max-length-offset 1000000000 -i "$TMP/in"
expect_error_line translate huge-length-offset "--max-length-offset 1000000000: .*lower --max-length-offset$"

# location scores at most --max-positions source tokens: heed-train refuses a --max-length above
# it (64); heed-translate refuses a longer line (65, naming it) after writing the lines before.
expect_exit 64 location-max-length -- "$T" --train-src "$TMP/bpe.en" --train-tgt "$TMP/bpe.fr" \
  --attention location --max-positions 8 --max-length 9 --max-steps 1 -q -o "$TMP/mloc"
expect_last_error_line train location-max-length \
  "--max-length 9 is more than attention 'location' can score \(--max-positions 8\)"
expect_exit 0 location-train -- "$T" --train-src "$TMP/bpe.en" --train-tgt "$TMP/bpe.fr" \
  --bpe "$TMP/codes" --tokenizer-mode conservative --attention location --max-positions 8 \
  --max-length 8 --hidden 16 --embed 8 --max-steps 2 --threads 1 -q -o "$TMP/mloc"
printf 'Tom is here.\none two three four five six seven eight nine ten\nI like cats.\n' > "$TMP/long"
# A validation source line it could not score is refused before training, naming the line.
printf 'a b\n1 2 3 4 5 6 7 8 9\n' > "$TMP/vlong.en"
printf 'a b\nc d\n' > "$TMP/vlong.fr"
expect_exit 65 location-valid -- "$T" --train-src "$TMP/bpe.en" --train-tgt "$TMP/bpe.fr" \
  --valid-src "$TMP/vlong.en" --valid-tgt "$TMP/vlong.fr" --attention location --max-positions 8 \
  --max-length 8 --hidden 16 --embed 8 --max-steps 1 --threads 1 -q -o "$TMP/mlocv"
expect_last_error_line train location-valid \
  "vlong.en:2: source sentence of 9 tokens is longer than attention 'location' can score \(--max-positions 8\)"
expect_exit 65 location-long -- "$X" -m "$TMP/mloc/model.heed" -i "$TMP/long"
expect_error_line translate location-long \
  "long:2: source sentence of [0-9]+ tokens is longer than attention 'location' can score \(--max-positions 8\)"
expect_eq location-long-lines "$(wc -l < "$TMP/out")" 1

# SIGINT and SIGTERM: 130 and 143, the target untouched and no temporary file left, also after
# some lines were translated and flushed into the temporary file.
mkfifo "$TMP/fifo"
exec 7<>"$TMP/fifo"
echo "Tom is here." >&7
expect_stopped_cleanly sigint INT "$TMP/o/t.txt" 1 -- "$X" -m "$M" -i "$TMP/fifo" -o "$TMP/o/t.txt"
echo "I like cats." >&7
expect_stopped_cleanly sigterm TERM "$TMP/o/new.txt" 1 -- "$X" -m "$M" -i "$TMP/fifo" -o "$TMP/o/new.txt"
exec 7>&-
# Out of memory reading a line: exit 71 naming the file and line, the lines before it translated
# and kept in OUT.partial.
if ! under_sanitizer; then
  { printf 'Tom is here.\nI like cats.\nWhere is it?\n'; head -c 150000000 /dev/zero | tr '\0' a; printf '\nfive\n'; } > "$TMP/huge-line"
  (ulimit -v 300000; exec "$X" -m "$M" -i "$TMP/huge-line" -o "$TMP/huge.out" --threads 1) >"$TMP/out" 2>"$TMP/err"
  expect_eq oom-line-exit $? 71
  expect_error_line translate oom-line "huge-line:4: out of memory reading this line.*3 lines before it are in"
  expect_eq oom-line-kept "$(wc -l < "$TMP/huge.out.partial")" 3
  # A batch that does not fit (the estimate passes: it is below the machine's memory, not the
  # limit): 71 naming the lines being translated, never 70. 1,600 sentences of beam 50 (866 MB
  # unlimited, with the key side a sentence's hypotheses share): far past the limit, so that the
  # first allocation to fail is heed's, not one of oneDNN's kernel generator (which crashes).
  awk '{ for (i = 0; i < 12; i++) printf "%s ", $0; print "" }' "$TMP/raw.en" | head -1600 > "$TMP/wide"
  (ulimit -v 500000; exec "$X" -m "$M" -b 50 --batch-size 1600 --threads 1 -q -i "$TMP/wide" -o "$TMP/wide.out") \
    >"$TMP/out" 2>"$TMP/err"
  expect_eq oom-batch-exit $? 71
  expect_error_line translate oom-batch "wide:1-[0-9]+: out of memory translating these lines"
fi

# A crafted model (its config claims what its tensors do not hold; the optional metadata checksum
# dropped) is refused as bad data (65) before anything is allocated from the config: a million
# layers took 7.9 GB before, and the memory estimate refused it as "lower --batch-size" (64).
craft=$(dirname "$0")/../support/craft_model.py
for claim in encoder_layers=1000000 encoder_layers=60 hidden=60000; do
  /usr/bin/python3 "$craft" "$M" "$TMP/crafted.heed" "$claim"
  "$X" -m "$TMP/crafted.heed" -i "$TMP/in" >"$TMP/out" 2>"$TMP/err"
  expect_eq "crafted-$claim-exit" $? 65
  expect_error_line translate "crafted-$claim" "crafted.heed.*(at most 64|says)"
done
# An endless line from input that is not a regular file: 65 naming it, after the lines before it.
expect_exit 65 dev-zero -- sh -c "{ echo 'Tom is here.'; cat /dev/zero; } | '$X' -m '$M' -o '$TMP/zero.out'"
expect_error_line translate dev-zero "<stdin>:2: a line longer than 64 MiB.*the line before it is in"
expect_eq dev-zero-kept "$(wc -l < "$TMP/zero.out.partial")" 1
finish
