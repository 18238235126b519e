# Helpers for the CLI contract tests. Source it; call finish at the end.
set -u
BIN=${1:?usage: <test>.sh BIN_DIR DATA_DIR}
DATA=${2:-}
TMP=$(mktemp -d)
# KEEP_TMP=1 keeps a test's files for a look after a failure.
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
PASSED=0
FAILED=0

ok() { PASSED=$((PASSED + 1)); }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }

# expect_exit CODE NAME -- COMMAND...: runs COMMAND with stdout/stderr in $TMP/out, $TMP/err.
expect_exit() {
  local want=$1 name=$2; shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" = "$want" ]; then ok; else fail "$name: exit $got, expected $want; stderr: $(head -c 300 "$TMP/err")"; fi
}

# expect_error_line TOOL NAME PATTERN: stderr is one line "heed-TOOL: error: ..." matching PATTERN.
expect_error_line() {
  local tool=$1 name=$2 pattern=$3
  local lines
  lines=$(wc -l < "$TMP/err")
  if [ "$lines" = 1 ] && grep -q "^heed-$tool: error: " "$TMP/err" && grep -qE -- "$pattern" "$TMP/err"; then
    ok
  else
    fail "$name: stderr is not one error line matching '$pattern': $(head -c 300 "$TMP/err")"
  fi
}

# expect_last_error_line TOOL NAME PATTERN: tools that log progress (heed-train) may log info
# lines first; the error is the last line, "heed-TOOL: error: ...", matching PATTERN.
expect_last_error_line() {
  local tool=$1 name=$2 pattern=$3
  if tail -1 "$TMP/err" | grep -q "^heed-$tool: error: " && tail -1 "$TMP/err" | grep -qE -- "$pattern" &&
     [ "$(grep -c 'error:' "$TMP/err")" = 1 ]; then
    ok
  else
    fail "$name: the last stderr line is not an error line matching '$pattern': $(tail -c 300 "$TMP/err")"
  fi
}

expect_same() { # NAME FILE1 FILE2
  if cmp -s "$2" "$3"; then ok; else fail "$1: $2 and $3 differ"; diff <(head -c 2000 "$2") <(head -c 2000 "$3") | head -10 >&2; fi
}

expect_eq() { # NAME GOT WANT
  if [ "$2" = "$3" ]; then ok; else fail "$1: got '$2', expected '$3'"; fi
}

# xml_count FILE XPATH: parses FILE as XML with Debian's python3 ($PY, default /usr/bin/python3)
# and prints how many elements match XPATH (s: is the SVG namespace, h: XHTML), or with XPATH
# "root" the root element's tag; prints "invalid: ..." when FILE is not well-formed XML.
xml_count() {
  "${PY:-/usr/bin/python3}" - "$1" "$2" <<'EOF'
import sys
import xml.etree.ElementTree as E
try:
    root = E.parse(sys.argv[1]).getroot()
except E.ParseError as e:
    print("invalid:", e)
    sys.exit(0)
ns = {"s": "http://www.w3.org/2000/svg", "h": "http://www.w3.org/1999/xhtml"}
print(root.tag if sys.argv[2] == "root" else len(root.findall(sys.argv[2], ns)))
EOF
}

# The tools heed installs (tests/cli/install.sh, tests/cli/package.sh).
HEED_TOOLS=(tokenize train translate align score average pooling bench-attn)

# Long options of a --help text on stdin, sorted: the name that opens each row of Boost's table
# ("  -o [ --output ] arg", "  --bpe arg"), not options its description names (a long option
# column leaves one space before the description).
help_options() {
  sed -nE 's/^  (-[A-Za-z0-9] \[ )?(--[a-z0-9][a-z0-9-]*).*/\2/p' | sort -u
}
# help_subcommands FILE: the subcommands the --help text in FILE lists ("Subcommands: a, b or c
# (default a)"), separated by spaces; nothing for a tool without.
help_subcommands() {
  sed -n 's/^Subcommands: //p' "$1" | sed -E 's/ \(default [^)]*\)//; s/,| or / /g'
}

# True under AddressSanitizer (.ci/sanitize.sh exports ASAN_OPTIONS): its shadow memory reserves
# terabytes of address space, so tests that limit it (ulimit -v) or measure resident memory skip.
under_sanitizer() { [ -n "${ASAN_OPTIONS:-}" ]; }

finish() {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" = 0 ]
}

# sample_pairs N V: the first N training and V validation pairs of the embedded English–French
# sample as $TMP/src, $TMP/tgt, $TMP/vsrc, $TMP/vtgt.
sample_pairs() {
  local sample
  sample=$(dirname "${BASH_SOURCE[0]}")/../../share/heed/sample
  head -"$1" "$sample/train.en" > "$TMP/src"
  head -"$1" "$sample/train.fr" > "$TMP/tgt"
  head -"$2" "$sample/valid.en" > "$TMP/vsrc"
  head -"$2" "$sample/valid.fr" > "$TMP/vtgt"
}

# train_sample_model STEPS: a tiny English→French model on 2,000 pairs of the embedded sample,
# with 300 BPE merges, in $TMP: raw.{en,fr}, codes, bpe.{en,fr} and m/model.heed.
train_sample_model() {
  local sample
  sample=$(dirname "${BASH_SOURCE[0]}")/../../share/heed/sample
  head -2000 "$sample/train.en" > "$TMP/raw.en"
  head -2000 "$sample/train.fr" > "$TMP/raw.fr"
  "$BIN/heed-tokenize" learn-bpe --merges 300 -i "$TMP/raw.en" -i "$TMP/raw.fr" -o "$TMP/codes" 2>/dev/null
  for l in en fr; do "$BIN/heed-tokenize" --bpe "$TMP/codes" -i "$TMP/raw.$l" -o "$TMP/bpe.$l"; done
  expect_exit 0 train -- "$BIN/heed-train" --train-src "$TMP/bpe.en" --train-tgt "$TMP/bpe.fr" \
    --bpe "$TMP/codes" --tokenizer-mode conservative --hidden 32 --embed 16 --max-steps "$1" \
    --threads 1 -q -o "$TMP/m"
}

# multi30k_sample DIR: the embedded English–French sample named as Multi30k's German–English
# files (300 training pairs, 20 validation, 12 in each of the four test sets), for the studies'
# workflows.
multi30k_sample() {
  local sample pair from to i set
  sample=$(dirname "${BASH_SOURCE[0]}")/../../share/heed/sample
  mkdir -p "$1"
  for pair in "en de" "fr en"; do
    read -r from to <<< "$pair"
    head -300 "$sample/train.$from" > "$1/train.$to"
    head -20 "$sample/valid.$from" > "$1/val.$to"
    i=0
    for set in 2016_flickr 2017_flickr 2017_mscoco 2018_flickr; do
      sed -n "$((i * 12 + 1)),$((i * 12 + 12))p" "$sample/test.$from" > "$1/test_$set.$to"
      i=$((i + 1))
    done
  done
}

# interrupt_once GLOB SECONDS DELAY -- COMMAND...: runs COMMAND in a session of its own, as a
# terminal's job, output in $TMP/first.out and $TMP/first.err; once a file matches GLOB (or after
# SECONDS, or when COMMAND ends), waits DELAY seconds and sends SIGINT to its whole process
# group, as Ctrl-C does. Returns COMMAND's status.
interrupt_once() {
  local glob=$1 seconds=$2 delay=$3 pid
  shift 4
  setsid "$@" > "$TMP/first.out" 2> "$TMP/first.err" &
  pid=$!
  for _ in $(seq $((seconds * 10))); do
    compgen -G "$glob" > /dev/null && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  sleep "$delay"
  kill -INT -- "-$pid" 2> /dev/null
  wait "$pid"
}

# need_snakemake: the studies' workflows need Snakemake (Debian's snakemake, 7.21); without it
# the test is skipped, visibly (77).
need_snakemake() {
  command -v snakemake > /dev/null && return 0
  echo "skipped: snakemake not found (apt-get install snakemake)"
  exit 77
}
