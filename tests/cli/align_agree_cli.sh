#!/usr/bin/env bash
# Contract tests of heed-align agree: the pair of tests/unit/align/agreement_test.cpp through
# the tool, the options, and every error path with its exit code.
source "$(dirname "$0")/lib.sh"
H=$BIN/heed-align
cat > "$TMP/fwd.jsonl" <<'JSON'
{"id": 0, "source": ["a","b￭","c"], "target": ["x","y"], "source_words": [0,1,1], "target_words": [0,1], "weights": [[0.8,0.1,0.1],[0.2,0.3,0.5],[0.3,0.3,0.4]]}
{"id": 1, "source": ["a"], "target": ["x"], "source_words": [0], "target_words": [0], "weights": [[1.0],[1.0]]}
JSON
cat > "$TMP/rev.jsonl" <<'JSON'
{"id": 0, "source": ["x","y"], "target": ["a","b￭","c"], "source_words": [0,1], "target_words": [0,1,1], "weights": [[0.9,0.1],[0.4,0.6],[0.2,0.8],[0.5,0.5]]}
{"id": 1, "source": ["x"], "target": ["a"], "source_words": [0], "target_words": [0], "weights": [[1.0],[1.0]]}
JSON

expect_exit 0 help -- "$H" agree --help
grep -q -- '--combine' "$TMP/out" && ! grep -q -- '--gold' "$TMP/out" && ok ||
  fail "help: agree --help should list its own options only"
expect_exit 0 default -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.jsonl"
expect_eq default "$(tr '\n' '|' < "$TMP/out")" "0-0 1-1|0-0|"
expect_eq stdout-only "$(wc -c < "$TMP/err")" 0
expect_exit 0 threshold -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.jsonl" --threshold 0.2
expect_eq threshold "$(head -1 "$TMP/out")" "0-0 1-0 1-1"
expect_exit 0 geometric -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.jsonl" --combine geometric \
  --threshold 0.25 -o "$TMP/agree.al"
expect_eq geometric "$(head -1 "$TMP/agree.al")" "0-0 1-1"
expect_exit 0 stdin -- sh -c "'$H' agree '$TMP/fwd.jsonl' - < '$TMP/rev.jsonl'"
expect_eq stdin "$(head -1 "$TMP/out")" "0-0 1-1"

# Errors: usage (64), different pair counts, mismatched pairs and malformed JSON (65), missing
# input (66); one line each.
expect_exit 64 no-reverse -- "$H" agree "$TMP/fwd.jsonl"
expect_error_line align no-reverse 'two attention files'
expect_exit 64 bad-combine -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.jsonl" --combine max
expect_error_line align bad-combine 'mean or geometric'
expect_exit 64 bad-threshold -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.jsonl" --threshold 0
expect_error_line align bad-threshold 'threshold'
head -1 "$TMP/rev.jsonl" > "$TMP/rev.short"
expect_exit 65 short -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.short"
expect_error_line align short 'has 2 lines but .* has 1'
{ head -1 "$TMP/rev.jsonl"; head -1 "$TMP/rev.jsonl"; } > "$TMP/rev.wrong"
expect_exit 65 mismatch -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.wrong"
expect_error_line align mismatch 'rev.wrong:2: .*not the same pair'
{ head -1 "$TMP/rev.jsonl"; echo '{"id": 1,'; } > "$TMP/rev.bad"
expect_exit 65 bad-json -- "$H" agree "$TMP/fwd.jsonl" "$TMP/rev.bad"
expect_error_line align bad-json 'rev.bad:2'
expect_exit 66 missing -- "$H" agree "$TMP/fwd.jsonl" "$TMP/absent.jsonl"
finish
