#!/usr/bin/env bash
# Contract tests of heed-align's default subcommand (extract) on a tiny model trained here:
# one line of in-range word links per pair, two files and 'src ||| tgt' on stdin agree, each
# method, the --soft JSON lines, each --format, quiet SIGPIPE, and one clear error line for bad
# input.
source "$(dirname "$0")/lib.sh"
T=$BIN/heed-train
A=$BIN/heed-align
SAMPLE=$(dirname "$0")/../../share/heed/sample
train_sample_model 40
M=$TMP/m/model.heed

head -20 "$SAMPLE/test.en" > "$TMP/src"
head -20 "$SAMPLE/test.fr" > "$TMP/tgt"
expect_exit 0 files -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --threads 1
cp "$TMP/out" "$TMP/links"
expect_eq lines "$(wc -l < "$TMP/links")" 20
expect_eq stderr-quiet "$(cat "$TMP/err")" ""
# Every link i-j has i below the source's words and j below the target's, and argmax links every
# target word: words are the raw text's, split at every Unicode space as the tokenizer does (the
# French side has NARROW NO-BREAK SPACEs before "?"); the model's pieces are merged back.
/usr/bin/python3 - "$TMP/src" "$TMP/tgt" "$TMP/links" <<'PY' && ok || fail "links out of range or missing: $(head -3 "$TMP/links")"
import sys
src, tgt, links = (open(f, encoding="utf-8").read().splitlines() for f in sys.argv[1:4])
for s, t, line in zip(src, tgt, links):
    pairs = [tuple(map(int, link.split("-"))) for link in line.split()]
    assert pairs and all(i < len(s.split()) and j < len(t.split()) for i, j in pairs), (s, t, line)
    assert {j for _, j in pairs} == set(range(len(t.split()))), (t, line)
PY

# The same pairs as 'src ||| tgt' on stdin; -o writes the file.
paste -d'|' "$TMP/src" /dev/null /dev/null "$TMP/tgt" | sed 's/|||/ ||| /' > "$TMP/combined"
expect_exit 0 stdin -- sh -c "'$A' -m '$M' --threads 1 -o '$TMP/links2' < '$TMP/combined'"
expect_same stdin-same "$TMP/links" "$TMP/links2"

for method in shift threshold; do
  expect_exit 0 "$method" -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --method "$method" --threads 1
  expect_eq "$method-lines" "$(wc -l < "$TMP/out")" 20
  grep -qE '^([0-9]+-[0-9]+( |$))*$' "$TMP/out" && ok || fail "$method: not Pharaoh: $(head -2 "$TMP/out")"
done
expect_exit 0 threshold-low -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --method threshold --threshold 0.01
[ "$(wc -w < "$TMP/out")" -gt "$(wc -w < "$TMP/links")" ] && ok || fail "threshold 0.01 gave fewer links than argmax"

# --soft: one JSON object per pair, (target tokens + 1) rows of source-token columns summing to 1.
expect_exit 0 soft -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --soft "$TMP/soft.jsonl" --threads 1
expect_same soft-links "$TMP/links" "$TMP/out"
/usr/bin/python3 - "$TMP/soft.jsonl" <<'PY' && ok || fail "soft: bad JSON lines"
import json, sys
pairs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
assert len(pairs) == 20 and [p["id"] for p in pairs] == list(range(20))
for p in pairs:
    assert len(p["weights"]) == len(p["target"]) + 1
    assert len(p["source_words"]) == len(p["source"]) and len(p["target_words"]) == len(p["target"])
    for row in p["weights"]:
        assert len(row) == len(p["source"]) and abs(sum(row) - 1) < 1e-3, row
PY

# --format: the same alignments in the other formats (lib/heed/align/alignment_writer.h): talp is
# pharaoh one-based, jsonl is what --soft writes, soft has a row per target token (no </s> row).
expect_exit 0 format-talp -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --format talp --threads 1
awk '{ for (i = 1; i <= NF; i++) { split($i, p, "-"); $i = p[1] + 1 "-" p[2] + 1 } print }' \
  "$TMP/links" > "$TMP/talp.want"
expect_same format-talp "$TMP/talp.want" "$TMP/out"
expect_exit 0 format-jsonl -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --format jsonl --threads 1
expect_same format-jsonl "$TMP/soft.jsonl" "$TMP/out"
expect_exit 0 format-soft -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --format soft --threads 1
/usr/bin/python3 - "$TMP/soft.jsonl" "$TMP/out" <<'PY' && ok || fail "format soft: rows differ from --soft"
import json, sys
pairs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
rows = open(sys.argv[2], encoding="utf-8").read().splitlines()
assert len(rows) == len(pairs)
for p, line in zip(pairs, rows):
    got = [[float(w) for w in row.split(",")] for row in line.split(" ")]
    assert len(got) == len(p["target"]) and all(len(r) == len(p["source"]) for r in got), line
    # The same weights to the third decimal (printed from float, not from JSON's six digits).
    assert all(abs(a - b) <= 0.0006 for r, s in zip(got, p["weights"]) for a, b in zip(r, s)), line
PY
expect_exit 64 format-unknown -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --format naacl
expect_error_line align format-unknown "unknown alignment format 'naacl' \(expected pharaoh, talp, soft or jsonl\)"
expect_exit 64 format-method -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --format soft --method shift
expect_error_line align format-method "--method and --threshold make word links, which --format soft"

# Empty pairs give empty lines; SIGPIPE into head is not an error.
printf 'Tom is here. ||| Tom est ici.\n ||| \nI like cats. ||| J'"'"'aime les chats.\n' > "$TMP/empty"
expect_exit 0 empty -- "$A" -m "$M" -i "$TMP/empty"
expect_eq empty-lines "$(wc -l < "$TMP/out")" 3
expect_eq empty-line "$(sed -n 2p "$TMP/out")" ""
for i in $(seq 60); do cat "$TMP/combined"; done > "$TMP/many"
expect_exit 0 sigpipe -- sh -c "'$A' -m '$M' -i '$TMP/many' --batch-size 4 | head -1"
expect_eq sigpipe-stderr "$(wc -c < "$TMP/err")" 0

# Bad input: one error line naming the file and line, exit 65; finished lines kept as .partial.
head -5 "$TMP/tgt" > "$TMP/short"
expect_exit 65 mismatch -- "$A" -m "$M" "$TMP/src" "$TMP/short" -o "$TMP/o1"
expect_error_line align mismatch "short|src"
{ head -3 "$TMP/tgt"; printf 'bad \xff byte\n'; tail -n +5 "$TMP/tgt"; } > "$TMP/bad"
expect_exit 65 utf8 -- "$A" -m "$M" "$TMP/src" "$TMP/bad" -o "$TMP/o2"
expect_error_line align utf8 "bad:4: "
expect_eq utf8-partial "$(wc -l < "$TMP/o2.partial" 2>/dev/null)" 3
printf 'no separator here\n' > "$TMP/nosep"
expect_exit 65 no-separator -- "$A" -m "$M" -i "$TMP/nosep"
expect_error_line align no-separator "nosep:1"
expect_exit 64 threshold-alone -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --threshold 0.2
expect_error_line align threshold-alone "--threshold"
expect_exit 64 bad-method -- "$A" -m "$M" "$TMP/src" "$TMP/tgt" --method best
expect_error_line align bad-method "argmax, threshold or shift"
expect_exit 66 no-model -- "$A" -m "$TMP/nothing.heed" "$TMP/src" "$TMP/tgt"
# A model whose attention has no weights over source positions cannot give alignments.
expect_exit 0 train-linear -- "$T" --train-src "$TMP/bpe.en" --train-tgt "$TMP/bpe.fr" \
  --attention linear --hidden 16 --embed 8 --max-steps 1 --threads 1 -q -o "$TMP/lin"
expect_exit 65 no-weights -- "$A" -m "$TMP/lin/model.heed" "$TMP/src" "$TMP/tgt"
expect_error_line align no-weights "linear.*no weights"
# A pair with a side longer than --max-length (default 1000 tokens) stops the run naming its line,
# after the pairs before it are written (one 10,000-word pair took 4.2 GB).
{ echo "Tom is here. ||| Tom est ici."; echo "I like cats. ||| J'aime les chats.";
  printf 'word%.0s ' $(seq 1200); echo "||| mot"; echo "Where is it? ||| Où est-il ?"; } > "$TMP/long-pair"
expect_exit 65 long-pair -- "$BIN/heed-align" -m "$M" -i "$TMP/long-pair" -o "$TMP/long.links"
expect_error_line align long-pair "long-pair:3: a side of [0-9]+ tokens, more than --max-length 1000"
expect_eq long-pair-kept "$(wc -l < "$TMP/long.links.partial")" 2
expect_exit 0 long-pair-allowed -- "$BIN/heed-align" -m "$M" -i "$TMP/long-pair" --max-length 5000
expect_eq long-pair-allowed-lines "$(wc -l < "$TMP/out")" 4
finish
