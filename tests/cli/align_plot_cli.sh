#!/usr/bin/env bash
# heed-align plot: the SVG and the HTML page are well-formed XML with one cell per target step
# and source token; --pairs selects by id; an SVG takes exactly one pair; links and gold outside
# a pair, malformed lines and companion files of another length are refused with FILE:LINE
# (65) and leave the output as it was; usage errors exit 64, missing input 66, unwritable 74.
source "$(dirname "$0")/lib.sh"
ALIGN=$BIN/heed-align
D=$DATA/align/plot  # soft.jsonl: pairs 0, 1, 2 with 9, 6 and 8 cells; links.txt; gold.talp
# Debian's python3 (the one on PATH may be another interpreter without the same modules).
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "SKIPPED: $PY not found"; exit 77; }

CELLS='.//s:rect[@class="cell"]'
marks=(--links "$D/links.txt" --gold "$D/gold.talp" --one-based)

# One pair as an SVG file: well-formed, its 6 cells, the marks, nothing on stdout.
expect_exit 0 svg -- "$ALIGN" plot --soft "$D/soft.jsonl" "${marks[@]}" --pairs 1 -o "$TMP/one.svg"
expect_eq svg-stdout "$(wc -c < "$TMP/out")" 0
expect_eq svg-root "$(xml_count "$TMP/one.svg" root)" "{http://www.w3.org/2000/svg}svg"
expect_eq svg-cells "$(xml_count "$TMP/one.svg" "$CELLS")" 6
expect_eq svg-links "$(xml_count "$TMP/one.svg" './/s:circle[@class="link"]')" 2
expect_eq svg-sure "$(xml_count "$TMP/one.svg" './/s:rect[@class="sure"]')" 1
# The tokens <b>, & and a<&>' come back as written once the XML is parsed.
labels=$("$PY" -c 'import sys, xml.etree.ElementTree as E
print(" ".join(t.text for t in E.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}text")))' "$TMP/one.svg")
case $labels in *"<b> & \"q\" a<&>' </s>"*) ok ;; *) fail "svg-labels: $labels" ;; esac

# Every pair as an HTML page (XHTML syntax, so it parses as XML): 9 + 6 + 8 cells, 3 headings.
expect_exit 0 html -- "$ALIGN" plot --soft "$D/soft.jsonl" "${marks[@]}" -o "$TMP/all.html"
expect_eq html-root "$(xml_count "$TMP/all.html" root)" "{http://www.w3.org/1999/xhtml}html"
expect_eq html-cells "$(xml_count "$TMP/all.html" "$CELLS")" 23
expect_eq html-svgs "$(xml_count "$TMP/all.html" './/s:svg')" 3
expect_eq html-headings "$(xml_count "$TMP/all.html" './/h:h2')" 3
# The sentences above each heatmap read as detokenized text (pair 0's "das Haus￭ tür" is "das
# Haustür"); its axes keep the tokens (the joiner shown as ▪).
sentences=$("$PY" -c 'import sys, xml.etree.ElementTree as E
h = "{http://www.w3.org/1999/xhtml}"
p = E.parse(sys.argv[1]).getroot().find(".//" + h + "section/" + h + "p")
print("|".join(t.strip() for t in p.itertext()))' "$TMP/all.html")
expect_eq html-sentences-detokenized "$sentences" "source: das Haustür|target: the door"
grep -q '>Haus▪</text>' "$TMP/all.html" && grep -q '>tür</text>' "$TMP/all.html" && ok ||
  fail "html: the axes lost the subword tokens"
expect_exit 0 html-some -- "$ALIGN" plot --soft "$D/soft.jsonl" --pairs 0,2 -o "$TMP/some.html"
expect_eq html-some-cells "$(xml_count "$TMP/some.html" "$CELLS")" 17
expect_exit 0 html-range -- "$ALIGN" plot --soft "$D/soft.jsonl" --pairs 1-2 -o "$TMP/range.html"
expect_eq html-range-cells "$(xml_count "$TMP/range.html" "$CELLS")" 14
# --print-config replays: its empty `pairs = ` means every pair.
"$ALIGN" plot --soft "$D/soft.jsonl" -o "$TMP/replayed.html" --print-config > "$TMP/plot.conf" 2>/dev/null
expect_exit 0 replay -- "$ALIGN" plot --config "$TMP/plot.conf"
expect_eq replay-cells "$(xml_count "$TMP/replayed.html" "$CELLS")" 23

# -o - writes stdout: an SVG for one pair, a page for several, or what --format says.
expect_exit 0 stdout-svg -- "$ALIGN" plot --soft "$D/soft.jsonl" --pairs 0 -o -
cp "$TMP/out" "$TMP/stdout.svg"
expect_eq stdout-svg-cells "$(xml_count "$TMP/stdout.svg" "$CELLS")" 9
expect_exit 0 stdout-html -- "$ALIGN" plot --soft "$D/soft.jsonl"
cp "$TMP/out" "$TMP/stdout.html"
expect_eq stdout-html-cells "$(xml_count "$TMP/stdout.html" "$CELLS")" 23
expect_exit 0 stdout-format -- "$ALIGN" plot --soft "$D/soft.jsonl" --pairs 2 --format html
expect_eq stdout-format-html "$(head -1 "$TMP/out")" "<!DOCTYPE html>"
# The JSON lines may come from standard input.
expect_exit 0 stdin -- "$ALIGN" plot --soft - --pairs 2 -o "$TMP/stdin.svg" < "$D/soft.jsonl"
expect_eq stdin-cells "$(xml_count "$TMP/stdin.svg" "$CELLS")" 8

# Usage errors (64), before any output: an SVG of several pairs, bad or absent ids.
echo previous > "$TMP/keep.svg"
expect_exit 64 svg-several -- "$ALIGN" plot --soft "$D/soft.jsonl" -o "$TMP/keep.svg"
expect_error_line align svg-several "an SVG shows one pair, but '.*soft.jsonl' has 3"
expect_exit 64 svg-several-ids -- "$ALIGN" plot --soft "$D/soft.jsonl" --pairs 0-1 -o "$TMP/keep.svg"
expect_error_line align svg-several-ids "an SVG shows one pair, but --pairs '0-1' selects several"
expect_eq svg-several-kept "$(cat "$TMP/keep.svg")" previous
expect_exit 64 absent-id -- "$ALIGN" plot --soft "$D/soft.jsonl" --pairs 1,5 -o "$TMP/x.html"
expect_error_line align absent-id "no pair with id 5"
for bad in a 3-1 1, -2 1-x; do
  expect_exit 64 "pairs-$bad" -- "$ALIGN" plot --soft "$D/soft.jsonl" --pairs="$bad"
  expect_error_line align "pairs-$bad" "--pairs '$bad': "
done
expect_exit 64 no-soft -- "$ALIGN" plot -o "$TMP/x.svg"
expect_error_line align no-soft "needs --soft"
expect_exit 64 one-based-alone -- "$ALIGN" plot --soft "$D/soft.jsonl" --one-based
expect_error_line align one-based-alone "--one-based applies to --gold"
expect_exit 64 bad-format -- "$ALIGN" plot --soft "$D/soft.jsonl" --format png
expect_error_line align bad-format "--format: unknown value 'png'"
[ ! -e "$TMP/x.svg" ] && [ ! -e "$TMP/x.html" ] && ok || fail "a usage error wrote output"

# An HTML page takes at most 1000 pairs.
for i in $(seq 0 1000); do
  echo "{\"id\": $i, \"source\": [\"a\"], \"target\": [], \"source_words\": [0], \"target_words\": [], \"weights\": [[1]]}"
done > "$TMP/many.jsonl"
expect_exit 64 too-many -- "$ALIGN" plot --soft "$TMP/many.jsonl" -o "$TMP/many.html"
expect_error_line align too-many "at most 1000 pairs, but 1001 are selected"
expect_exit 0 many-selected -- "$ALIGN" plot --soft "$TMP/many.jsonl" --pairs 0-999 -o "$TMP/many.html"
expect_eq many-cells "$(xml_count "$TMP/many.html" "$CELLS")" 1000

# Bad data (65, FILE:LINE): the output file keeps its previous content, no temporary is left.
echo previous > "$TMP/keep.html"
bad_data() { # NAME PATTERN ARGS...: exit 65, one line matching PATTERN, keep.html untouched
  local name=$1 pattern=$2; shift 2
  expect_exit 65 "$name" -- "$ALIGN" plot --soft "$D/soft.jsonl" "$@" -o "$TMP/keep.html"
  expect_error_line align "$name" "$pattern"
  expect_eq "$name-kept" "$(cat "$TMP/keep.html")" previous
}
printf '0-0\n5-0\n0-0\n' > "$TMP/links-far"
bad_data link-source-out-of-range "links-far:2: link 5-0 is outside pair 1, which has 3 source and 1 target words" --links "$TMP/links-far"
printf '0-0\n0-0\n0-3\n' > "$TMP/links-far-target"
bad_data link-target-out-of-range "links-far-target:3: link 0-3 is outside pair 2" --links "$TMP/links-far-target"
printf '1-1\n4-1\n1-1\n' > "$TMP/gold-far"
bad_data gold-out-of-range "gold-far:2: link 3-0 is outside pair 1" --gold "$TMP/gold-far" --one-based
printf '1-1\n0-1\n1-1\n' > "$TMP/gold-zero"
bad_data gold-zero-one-based "gold-zero:2: expected gold links .*1-based" --gold "$TMP/gold-zero" --one-based
printf '0-0 1:1\n\n\n' > "$TMP/links-malformed"
bad_data link-malformed "links-malformed:1: expected Pharaoh links" --links "$TMP/links-malformed"
printf '0-0\n0-0\n' > "$TMP/links-short"
bad_data links-short "'.*links-short' has 2 lines but '.*soft.jsonl' has 3" --links "$TMP/links-short"
printf '\n\n\n\n' > "$TMP/links-long"
bad_data links-long "'.*links-long' has 4 lines but '.*soft.jsonl' has 3" --links "$TMP/links-long"
printf '\n\n' > "$TMP/gold-short"
bad_data gold-short "'.*gold-short' has 2 lines but" --gold "$TMP/gold-short"
# A malformed JSON line names its own file and line.
{ head -2 "$D/soft.jsonl"; echo '{"id": 2, "source": ["a"]'; } > "$TMP/broken.jsonl"
expect_exit 65 broken-json -- "$ALIGN" plot --soft "$TMP/broken.jsonl" -o "$TMP/keep.html"
expect_error_line align broken-json "broken.jsonl:3: not a JSON object"
: > "$TMP/empty.jsonl"
expect_exit 65 empty-soft -- "$ALIGN" plot --soft "$TMP/empty.jsonl" -o "$TMP/keep.html"
expect_error_line align empty-soft "has no pairs to draw"
expect_eq bad-data-kept "$(cat "$TMP/keep.html")" previous
leftover=$(find "$TMP" -maxdepth 1 -name 'keep.html?*' | head -1)
expect_eq no-temporary-files "$leftover" ""

# Missing input (66), unwritable output (74).
expect_exit 66 missing-soft -- "$ALIGN" plot --soft "$TMP/absent.jsonl" -o "$TMP/x.html"
expect_error_line align missing-soft "absent.jsonl"
expect_exit 66 missing-links -- "$ALIGN" plot --soft "$D/soft.jsonl" --links "$TMP/absent" -o "$TMP/x.html"
expect_exit 74 unwritable -- "$ALIGN" plot --soft "$D/soft.jsonl" -o /proc/heed-no/dir/x.html
expect_error_line align unwritable "/proc/heed-no/dir/x.html"

# --help lists the options; stdout is data only (the log of a run goes to stderr).
expect_exit 0 help -- "$ALIGN" plot --help
grep -q -- '--soft' "$TMP/out" && grep -q -- '--pairs' "$TMP/out" && ok || fail "plot --help lacks --soft/--pairs"
expect_exit 0 verbose -- "$ALIGN" plot -v --soft "$D/soft.jsonl" --pairs 0 -o "$TMP/v.svg"
expect_eq verbose-stdout "$(wc -c < "$TMP/out")" 0
grep -q 'drew 1 pair' "$TMP/err" && ok || fail "verbose: no log line on stderr"
finish
