#!/usr/bin/env bash
# Contract tests of heed-align symmetrize: the five methods on a pair worked by hand
# (tests/unit/align/symmetrize_test.cpp), the default, the reverse's orientation, input forms,
# and every error path with its exit code.
source "$(dirname "$0")/lib.sh"
H=$BIN/heed-align
# Line 1 is the unit test's pair; line 2 is empty on both sides; line 3 has links on one side.
printf '0-0 1-1 2-1 4-4\n\n1-0\n' > "$TMP/fwd"
printf '0-0 1-1 1-2 3-4\n\n\n' > "$TMP/rev"
# The same reverse links written target-source, as a model of the other direction writes them.
printf '0-0 1-1 2-1 4-3\n\n\n' > "$TMP/rev.ts"

expect_exit 0 help -- "$H" symmetrize --help
grep -q -- '--transpose-reverse' "$TMP/out" && ! grep -q -- '--gold' "$TMP/out" && ok ||
  fail "help: symmetrize --help should list its own options only"

check_method() { # METHOD EXPECTED-LINE-1 EXPECTED-LINE-3
  expect_exit 0 "$1" -- "$H" symmetrize "$TMP/fwd" "$TMP/rev" --method "$1"
  expect_eq "$1" "$(tr '\n' '|' < "$TMP/out")" "$2||$3|"
}
check_method intersect "0-0 1-1" ""
check_method union "0-0 1-1 1-2 2-1 3-4 4-4" "1-0"
check_method grow-diag "0-0 1-1 1-2 2-1" ""
check_method grow-diag-final "0-0 1-1 1-2 2-1 3-4 4-4" "1-0"
check_method grow-diag-final-and "0-0 1-1 1-2 2-1 4-4" "1-0"
expect_eq stdout-only "$(wc -c < "$TMP/err")" 0
# The default is grow-diag-final-and.
expect_exit 0 default -- "$H" symmetrize "$TMP/fwd" "$TMP/rev"
expect_eq default "$(head -1 "$TMP/out")" "0-0 1-1 1-2 2-1 4-4"
# --forward/--reverse options, standard input for one side, -o FILE: the same lines.
expect_exit 0 options -- "$H" symmetrize --forward "$TMP/fwd" --reverse "$TMP/rev"
cp "$TMP/out" "$TMP/expected"
expect_exit 0 stdin -- sh -c "'$H' symmetrize '$TMP/fwd' - < '$TMP/rev'"
expect_same stdin "$TMP/out" "$TMP/expected"
expect_exit 0 output -- "$H" symmetrize "$TMP/fwd" "$TMP/rev" -o "$TMP/sym.al"
expect_same output "$TMP/sym.al" "$TMP/expected"
expect_eq output-stdout-empty "$(wc -c < "$TMP/out")" 0
# A reverse alignment written target-source gives the same result with --transpose-reverse.
expect_exit 0 transpose -- "$H" symmetrize "$TMP/fwd" "$TMP/rev.ts" --transpose-reverse
expect_same transpose "$TMP/out" "$TMP/expected"
# Without it, those links are read as source-target: a different alignment.
expect_exit 0 no-transpose -- "$H" symmetrize "$TMP/fwd" "$TMP/rev.ts"
cmp -s "$TMP/out" "$TMP/expected" && fail "no-transpose: same output as transposed" || ok
# CRLF line ends and unsorted, repeated links are accepted; the output is sorted.
printf '4-4 2-1 1-1 0-0 0-0\r\n\r\n1-0\r\n' > "$TMP/fwd.crlf"
expect_exit 0 crlf -- "$H" symmetrize "$TMP/fwd.crlf" "$TMP/rev"
expect_same crlf "$TMP/out" "$TMP/expected"

# Errors: usage (64), different line counts and malformed links (65), missing input (66),
# unwritable output (74); one line each.
expect_exit 64 bad-method -- "$H" symmetrize "$TMP/fwd" "$TMP/rev" --method gdfa
expect_error_line align bad-method "method: unknown value 'gdfa'"
expect_exit 64 one-file -- "$H" symmetrize "$TMP/fwd"
expect_error_line align one-file "FWD and REV"
expect_exit 64 both-stdin -- "$H" symmetrize - -
expect_error_line align both-stdin "standard input"
expect_exit 64 other-option -- "$H" symmetrize "$TMP/fwd" "$TMP/rev" --gold "$TMP/fwd"
expect_error_line align other-option "gold"
head -2 "$TMP/rev" > "$TMP/rev.short"
expect_exit 65 shorter -- "$H" symmetrize "$TMP/fwd" "$TMP/rev.short"
expect_error_line align shorter "fwd' has 3 lines but '.*rev.short' has 2"
expect_exit 65 longer -- "$H" symmetrize "$TMP/rev.short" "$TMP/fwd"
expect_error_line align longer "rev.short' has 2 lines but '.*fwd' has 3"
printf '0-0 1-1\n0-0 1:2\n' > "$TMP/bad"
printf '0-0\n0-0\n' > "$TMP/two"
expect_exit 65 malformed -- "$H" symmetrize "$TMP/bad" "$TMP/two"
expect_error_line align malformed "bad:2: expected Pharaoh links 'i-j', got '1:2'"
expect_eq malformed-first-line-written "$(cat "$TMP/out")" "0-0 1-1"
expect_exit 65 malformed-reverse -- "$H" symmetrize "$TMP/two" "$TMP/bad"
expect_error_line align malformed-reverse "bad:2: .*'1:2'"
printf '0-0\n0p1\n' > "$TMP/possible"
expect_exit 65 possible-link -- "$H" symmetrize "$TMP/two" "$TMP/possible"
expect_error_line align possible-link "possible:2: .*'0p1'"
# With -o the file is left alone and the finished lines are kept in FILE.partial.
mkdir "$TMP/o"
echo old > "$TMP/o/sym.al"
expect_exit 65 malformed-file -- "$H" symmetrize "$TMP/bad" "$TMP/two" -o "$TMP/o/sym.al"
expect_error_line align malformed-file "bad:2: .*; the line before it is in '.*/o/sym.al.partial'"
expect_eq malformed-file-untouched "$(cat "$TMP/o/sym.al")" old
expect_eq malformed-file-partial "$(cat "$TMP/o/sym.al.partial")" "0-0 1-1"
expect_exit 66 missing -- "$H" symmetrize "$TMP/none" "$TMP/rev"
expect_error_line align missing "none"
expect_exit 74 unwritable -- "$H" symmetrize "$TMP/fwd" "$TMP/rev" -o "$TMP/no/such/dir/out"
expect_error_line align unwritable "no/such/dir"
# A reader that goes away early is no error.
yes '0-0 1-1' | head -100000 > "$TMP/many"
expect_exit 0 sigpipe -- sh -c "'$H' symmetrize '$TMP/many' '$TMP/many' | head -1"
expect_eq sigpipe-quiet "$(wc -c < "$TMP/err")" 0
finish
