#!/usr/bin/env bash
# Option parsing shared by every tool (tools/common/options): every numeric option is
# range-checked (NaN, infinities and negative values for unsigned types included) with exit 64
# and one line naming the option and the accepted range, on the command line and in config
# files (with FILE:LINE); unknown subcommands are named; --print-config replays (subcommand
# and defaults included); an unwritable --log-file is a write error (74); --version names the
# commit built.
source "$(dirname "$0")/lib.sh"

# Every option that --help shows with a numeric default refuses NaN, infinity and text.
for binary in "$BIN"/heed-*; do
  [ -x "$binary" ] || continue
  tool=${binary##*/heed-}
  numeric=$("$binary" --help </dev/null | grep -E '^  -' |
    sed -nE 's/^ +(-[a-zA-Z] \[ )?--([a-z0-9-]+)( \])? arg \(=-?[0-9][0-9.e+-]*\).*/\2/p')
  [ -n "$numeric" ] && ok || fail "$tool: no numeric options found in --help"
  for option in $numeric; do
    for bad in nan inf -inf 1x; do
      expect_exit 64 "$tool --$option $bad" -- "$binary" "--$option" "$bad" </dev/null
      expect_error_line "$tool" "$tool --$option $bad" "option '--$option' must be (an integer|a number|a finite number)"
    done
  done
done

# The cases of the bug reports, and the accepted range in the message.
check() { # EXPECTED-PATTERN TOOL ARGS...
  local pattern=$1 tool=$2; shift 2
  expect_exit 64 "$tool $*" -- "$BIN/heed-$tool" "$@" </dev/null
  expect_error_line "$tool" "$tool $*" "$pattern"
}
check "'--time-limit' must be a finite number >= 0, not 'nan'" train --time-limit nan
check "'--init-scale' must be a finite number > 0, not 'nan'" train --init-scale nan
check "'--init-scale' must be a finite number > 0, not '-1'" train --init-scale -1
check "'--vocab-min-count' must be an integer in \[0, " train --vocab-min-count -1
check "'--valid-bleu-sentences' must be an integer in \[0, " train --valid-bleu-sentences -1
check "'--encoder-layers' must be an integer in \[1, 64\]" train --encoder-layers 0
check "'--dropout' must be a number in \[0, 1\), not '1'" train --dropout 1
check "'--min-count' must be an integer in \[0, " tokenize vocab --min-count -1 --max-size -3
check "'--max-size' must be an integer in \[0, " tokenize vocab --max-size -3
check "'--bpe-dropout' must be a number in \[0, 1\]" tokenize --bpe-dropout 1.5
check "'--seed' must be an integer in \[0, 18446744073709551615\], not '-1'" translate --seed -1
check "'--threads' must be an integer in \[0, 1024\], not '99999999999'" score --threads 99999999999
check "'--beam-size' must be an integer in \[1, 1000\], not '0'" translate --beam-size 0
check "'--width' must be an integer in \[0, 10\], not '11'" score --width 11
# A number the option's type cannot hold says so, with the type's limit.
check "'--temperature' must be a finite number > 0, not '1e39' \(past the largest float, 3.40282e\+38\)" translate --temperature 1e39
check "'--temperature' must be a finite number > 0, not '1e-46' \(below the smallest float, 1.4013e-45\)" translate --temperature 1e-46
check "'--lr' must be .*, not '3.5e38' \(past the largest float" train --lr 3.5e38

# Config files: the error names the file and line; values are range-checked there too.
printf 'threads = 1\n\n# comment\nbeam-size = -2\n' > "$TMP/bad.cfg"
check "$TMP/bad.cfg:4: option 'beam-size' must be an integer in \[1, 1000\]" translate --config "$TMP/bad.cfg"
printf 'merges = 10\nfrobnicate = 1\n' > "$TMP/unknown.cfg"
check "$TMP/unknown.cfg:2: unrecognised option 'frobnicate'" tokenize learn-bpe --config "$TMP/unknown.cfg"
printf '# a model\ncell = rnn\n' > "$TMP/choice.cfg"
check "$TMP/choice.cfg:2: --cell: unknown value 'rnn'" train --config "$TMP/choice.cfg"
printf 'metrics = bleu,ter\n' > "$TMP/metrics.cfg"
check "$TMP/metrics.cfg:1: --metrics: unknown value 'ter'" score --config "$TMP/metrics.cfg" -r a --hyp b
printf 'merges\n' > "$TMP/syntax.cfg"
check "$TMP/syntax.cfg:1: " tokenize learn-bpe --config "$TMP/syntax.cfg"
# What Boost let through or reported without a line (issue 29): sections, a nested config, a key
# given twice, a directory; a byte order mark is dropped.
printf '[model]\nmode = aggressive\n' > "$TMP/section.cfg"
check "$TMP/section.cfg:1: sections \('\[model\]'\)" tokenize --config "$TMP/section.cfg"
# A byte that is not UTF-8 is named by its place, never echoed raw.
printf 'beam-size = 5\nbeam-size-x = \377\n' > "$TMP/byte.cfg"
check "$TMP/byte.cfg:2: invalid UTF-8 at byte 15$" translate --config "$TMP/byte.cfg"
printf 'mode = aggressive\nconfig = other.cfg\n' > "$TMP/nested.cfg"
check "$TMP/nested.cfg:2: a config file cannot name another" tokenize --config "$TMP/nested.cfg"
printf 'mode = aggressive\n\nmode = conservative\n' > "$TMP/twice.cfg"
check "$TMP/twice.cfg:3: 'mode' given twice \(first on line 1\)" tokenize --config "$TMP/twice.cfg"
mkdir -p "$TMP/cfg-dir"
expect_exit 66 config-directory -- "$BIN/heed-tokenize" --config "$TMP/cfg-dir"
expect_error_line tokenize config-directory "cfg-dir: cannot open config file: is a directory"
printf '\xef\xbb\xbfmode = aggressive\n' > "$TMP/bom.cfg"
expect_exit 0 config-bom -- sh -c "echo \"l'eau\" | '$BIN/heed-tokenize' --config '$TMP/bom.cfg'"
expect_eq config-bom-applied "$(cat "$TMP/out")" "l ￭'￭ eau"

# Subcommands.
check "unknown subcommand 'frob' \(expected: tokenize, detokenize, learn-bpe or vocab\)" tokenize frob
printf 'command = frob\n' > "$TMP/frob.cfg"
check "unknown subcommand 'frob'" tokenize --config "$TMP/frob.cfg"

# --print-config of a subcommand replays: the same configuration and the same output.
printf 'the cat sat on the mat\nthe dog sat\n' > "$TMP/text"
expect_exit 0 learn-bpe-print -- "$BIN/heed-tokenize" learn-bpe --merges 5 --print-config
cp "$TMP/out" "$TMP/learn.cfg"
expect_eq learn-bpe-print-command "$(grep '^command = ' "$TMP/learn.cfg")" "command = learn-bpe"
expect_exit 0 learn-bpe-replay-print -- "$BIN/heed-tokenize" --config "$TMP/learn.cfg" --print-config
expect_same learn-bpe-replay-config "$TMP/learn.cfg" "$TMP/out"
expect_exit 0 learn-bpe-direct -- "$BIN/heed-tokenize" learn-bpe --merges 5 -i "$TMP/text"
cp "$TMP/out" "$TMP/direct.codes"
expect_exit 0 learn-bpe-replay -- "$BIN/heed-tokenize" --config "$TMP/learn.cfg" -i "$TMP/text"
expect_same learn-bpe-replay-output "$TMP/direct.codes" "$TMP/out"
# The command line's subcommand wins over the config file's.
expect_exit 0 vocab-over-config -- "$BIN/heed-tokenize" vocab --config "$TMP/learn.cfg" -i "$TMP/text"
expect_eq vocab-over-config-output "$(head -1 "$TMP/out")" $'the\t3'

# heed-score: one seed default (12345), shown by --help and --print-config, used when unset.
"$BIN/heed-score" --help > "$TMP/score-help"
grep -qE -- '--seed arg \(=12345\)' "$TMP/score-help" && ok || fail "score --help: seed default is not 12345"
printf 'a b c d\ne f g h\ni j k l\n' > "$TMP/ref"
printf 'a b c x\ne f g h\ni j x l\n' > "$TMP/hyp1"
printf 'a b c d\ne x g h\ni j k l\n' > "$TMP/hyp2"
score=("$BIN/heed-score" -r "$TMP/ref" --hyp "$TMP/hyp1" --hyp "$TMP/hyp2" --bootstrap 50)
expect_exit 0 score-print -- "${score[@]}" --print-config
expect_eq score-print-seed "$(grep '^seed = ' "$TMP/out")" "seed = 12345"
cp "$TMP/out" "$TMP/score.cfg"
expect_exit 0 score-default -- "${score[@]}"
cp "$TMP/out" "$TMP/score-default"
expect_exit 0 score-replayed -- "$BIN/heed-score" --config "$TMP/score.cfg"
expect_same score-replay-same-p-values "$TMP/score-default" "$TMP/out"

# An unwritable --log-file is a write error (74) in every tool (the log opens before any input).
for binary in "$BIN"/heed-*; do
  tool=${binary##*/heed-}
  required=()
  case $tool in
    translate | align) required=(-m "$TMP/absent") ;;
    score) required=(-r "$TMP/absent" --hyp "$TMP/absent") ;;
    average) required=(-o "$TMP/absent.heed" "$TMP/absent") ;;
  esac
  expect_exit 74 "$tool-log-file" -- "$binary" --log-file /proc/heed-no/dir/log "${required[@]}" </dev/null
  expect_error_line "$tool" "$tool-log-file" "/proc/heed-no/dir/log"
done
# A log file that fills up (a full disk): the work is done and its output kept, and the tool ends
# with one line naming the file, a write error (74), as tee(1) does.
if [ -w /dev/full ]; then
  printf 'Hello, world.\n' > "$TMP/hello"
  expect_exit 0 log-file-none -- "$BIN/heed-tokenize" -i "$TMP/hello"
  cp "$TMP/out" "$TMP/hello.tok"
  expect_exit 74 log-file-full -- "$BIN/heed-tokenize" -v --log-file /dev/full -i "$TMP/hello"
  expect_same log-file-full-output "$TMP/hello.tok" "$TMP/out"
  # -v: the info line on stderr too, then the error, once.
  expect_last_error_line tokenize log-file-full "cannot write the log file '/dev/full': .*No space left on device \(the work itself is done\)"
  expect_eq log-file-full-once "$(grep -c '/dev/full' "$TMP/err")" 1
else
  echo "SKIPPED: log-file-full (no writable /dev/full)"
fi
# Boost's message placeholders in a value hung its error formatting (found by the options fuzzer):
# refused with one line, on the command line and in a config file (naming FILE:LINE).
expect_exit 64 placeholder-argv -- timeout 20 "$BIN/heed-score" -r '%value%' --hyp x
expect_error_line score placeholder-argv "the command line: '%value%' cannot be used"
printf 'width = 2\nbootstrap = %%canonical_option%%\n' > "$TMP/placeholder.cfg"
expect_exit 64 placeholder-config -- timeout 20 "$BIN/heed-score" -r x --hyp x --config "$TMP/placeholder.cfg"
expect_error_line score placeholder-config "placeholder.cfg:2: '%canonical_option%' cannot be used"

# --version names the commit the binaries were built from (written at every build, not only when
# CMake configured), "+" after it when lib/ or tools/ differed from it.
src=$(cd "$(dirname "$0")/../.." && pwd)
if head=$(git -C "$src" rev-parse --short HEAD 2> /dev/null); then
  version=$("$BIN/heed-score" --version)
  case $version in
    *"($head)"* | *"($head+)"*) ok ;;
    *) fail "--version '$version' does not name the source tree's commit $head (a stale build?)" ;;
  esac
fi
finish
