#!/usr/bin/env bash
# Habits of other toolkits (tools/common/foreign_options.cpp, read by the one shared parser):
# a single-dash word naming a long option is refused with heed's spelling instead of being read
# as a one-letter option with a value; Marian, OpenNMT, fast_align and sacreBLEU options whose
# meaning heed has are aliases (on the command line and in config files, Marian's YAML included)
# and --print-config prints heed's names; the others are refused with what heed does instead.
source "$(dirname "$0")/lib.sh"

check() { # EXPECTED-PATTERN TOOL ARGS...: exit 64, one error line matching the pattern
  local pattern=$1 tool=$2; shift 2
  expect_exit 64 "$tool $*" -- "$BIN/heed-$tool" "$@" </dev/null
  expect_error_line "$tool" "$tool $*" "$pattern"
}
# printed NAME TOOL ARGS...: --print-config's output of TOOL ARGS in $TMP/out (exit 0)
printed() {
  local name=$1 tool=$2; shift 2
  expect_exit 0 "$name" -- "$BIN/heed-$tool" "$@" --print-config </dev/null
}
has_line() { # NAME LINE: $TMP/out holds LINE
  if grep -qxF -- "$2" "$TMP/out"; then ok; else fail "$1: no line '$2' in: $(head -c 400 "$TMP/out")"; fi
}
lacks() { # NAME PATTERN: no line of $TMP/out matches PATTERN
  if grep -qE -- "$2" "$TMP/out"; then fail "$1: '$2' printed: $(grep -E -- "$2" "$TMP/out")"; else ok; fi
}

# --- Single-dash long names: refused, never read as -m odel or -o utput.
cd "$TMP" || exit 1
check "^heed-translate: error: -model: did you mean --model\? \(one dash starts a one-letter option: -m odel\)$" \
  translate -model m.heed
check "-output: did you mean --output\? \(one dash starts a one-letter option: -o utput\)" \
  translate -m m.heed -output out.txt
if [ -e utput ] || [ -e out.txt ]; then fail "-output wrote a file"; else ok; fi
check "-beam_size: did you mean --beam-size\?" translate -m m.heed -beam_size 5
check "-n_best: did you mean --n-best\?" translate -m m.heed -n_best 2
check "--beam_size: did you mean --beam-size\?" translate -m m.heed --beam_size 5
check "-train_src: did you mean --train-src\?" train -train_src a.txt
check "-merges: did you mean --merges\?" tokenize learn-bpe -merges 10
check "-ref: did you mean --ref\? \(one dash starts a one-letter option: -r ef\)" score -ref r.txt h.txt
# A value that begins with a dash is not an option word.
printed "--length-penalty -1" translate -m m.heed --length-penalty -1
has_line "--length-penalty -1" "length-penalty = -1"

# --- Aliases: read as heed's option; --print-config names heed's.
printed "--cpu-threads" translate -m m.heed --cpu-threads 2
has_line "--cpu-threads" "threads = 2"
lacks "--cpu-threads" "cpu-threads"
printed "--mini-batch=7" translate -m m.heed --mini-batch=7
has_line "--mini-batch=7" "batch-size = 7"
printed "--max-length-factor" translate -m m.heed --max-length-factor 1.5
has_line "--max-length-factor" "max-length-ratio = 1.5"
printed "Marian training" train --early-stopping 4 --after-batches 100 --after-epochs 3 \
  --valid-freq 50 --learn-rate 0.002 --dim-emb 32 --enc-depth 2 --cpu-threads 1
for line in "patience = 4" "max-steps = 100" "max-epochs = 3" "valid-every = 50" "lr = 0.002" \
  "embed = 32" "encoder-layers = 2" "threads = 1"; do
  has_line "Marian training" "$line"
done
lacks "Marian training" "early-stopping|after-batches|after-epochs|valid-freq|learn-rate|dim-emb"
printed "OpenNMT training" train -train_steps 30 -early_stopping 2
has_line "OpenNMT training" "max-steps = 30"
has_line "OpenNMT training" "patience = 2"
printed "sacreBLEU" score -r ref.txt -i hyp.txt -tok none -w 2
has_line "sacreBLEU -i" "hyp = hyp.txt"
has_line "sacreBLEU -tok" "tokenize = none"
has_line "sacreBLEU -w" "width = 2"

# --- Refused, naming what heed does instead.
check "-gpu \(OpenNMT\): heed runs on the CPU: --threads N" translate -m m.heed -gpu 0
check "-src \(OpenNMT\): heed-translate reads standard input or -i FILE" translate -m m.heed -src in.txt
check "-src \(OpenNMT\): heed-train takes --train-src FILE" train -src in.txt
check "-save_model \(OpenNMT\): heed-train writes DIR/model.heed: give the directory with -o DIR" \
  train -save_model run
check "--mini-batch-words \(Marian\): Marian counts target words; heed's --batch-tokens caps padded tokens" \
  train --mini-batch-words 500
check "--train-sets \(Marian\): heed-train takes the two files as --train-src FILE --train-tgt FILE" \
  train --train-sets a b
check "--devices \(Marian\): heed runs on the CPU" translate -m m.heed --devices 0
check "-t \(sacreBLEU\): heed-score reads references from files: give -r FILE" score -t wmt14 -l en-de
check "--paired-bs \(sacreBLEU\): .*--bootstrap N" score -r r --hyp a --hyp b --paired-bs
check "-s \(sacreBLEU\): heed's BLEU smooths as sacreBLEU's default" score -r r -s floor h
# sacreBLEU's -lc is BLEU's alone; heed's --lowercase is every metric's: not the same option.
check "-lc \(sacreBLEU\): sacreBLEU lowercases for BLEU alone .* give it with -m bleu" score -r r -lc h

# --- heed-align ibm2: fast_align's letters mean fast_align's, or are refused.
check "-v \(fast_align\): fast_align's variational Bayes is --variational-bayes here .*heed's -v, a more detailed log, is --verbose" \
  align ibm2 -i corpus -d -o out -v
check "-q \(fast_align\): fast_align's null-word probability is --p0 here; heed's -q, a quieter log, is --quiet" \
  align ibm2 -i corpus -q 0.1
check "-p \(fast_align\): heed writes the learned table with --lexical-table FILE" align ibm2 -i c -p t
printed "fast_align letters" align ibm2 -i corpus -d -r -I 7 -T 3 -a 0.05 -N
for line in "favor-diagonal = true" "reverse = true" "iterations = 7" "diagonal-tension = 3" \
  "alpha = 0.05" "no-null-word = true"; do
  has_line "fast_align letters" "$line"
done
# fast_align's -o (a switch there) wants a value here: not silently taken as heed's output file.
check "the required argument for option '--output' is missing" align ibm2 -i corpus -d -o
# Elsewhere -v and -q keep heed's meaning.
printed "-v elsewhere" align symmetrize -v a b
has_line "-v elsewhere" "command = symmetrize"

# --- Config files: heed's syntax, and Marian's YAML with its names.
cat >"$TMP/marian.yml" <<'EOF'
# a Marian-style config
cpu-threads: 2
early-stopping: 5
after-batches: 200
learn-rate: "0.003"
dim-emb: 16
tied-embeddings: true
EOF
printed "YAML config" train -c "$TMP/marian.yml"
for line in "threads = 2" "patience = 5" "max-steps = 200" "lr = 0.003" "embed = 16" \
  "tie-embeddings = true"; do
  has_line "YAML config" "$line"
done
lacks "YAML config" "cpu-threads|early-stopping|after-batches|learn-rate|dim-emb|tied-embeddings"
printf 'after-batches = 9\nvalid-freq = 3\n' >"$TMP/alias.cfg"
printed "aliases in heed's syntax" train --config "$TMP/alias.cfg"
has_line "aliases in heed's syntax" "max-steps = 9"
has_line "aliases in heed's syntax" "valid-every = 3"
# A YAML list, in both of its forms.
printf 'ref:\n  - r1.txt\n  - r2.txt\nhyp: [h1.txt, h2.txt]\n' >"$TMP/lists.yml"
printed "YAML lists" score --config "$TMP/lists.yml"
has_line "YAML lists" "ref = r1.txt"
has_line "YAML lists" "ref = r2.txt"
has_line "YAML lists" "hyp = h1.txt"
has_line "YAML lists" "hyp = h2.txt"
# Refusals and misspellings in a config file name it and the line.
printf 'cpu-threads: 1\ntrain-sets: [a, b]\n' >"$TMP/sets.yml"
check "$TMP/sets.yml:2: 'train-sets' \(Marian\): heed-train takes the two files" train -c "$TMP/sets.yml"
printf 'train-sets:\n  - a\n  - b\n' >"$TMP/list.yml"
check "$TMP/list.yml:1: 'train-sets' \(Marian\)" train -c "$TMP/list.yml"
printf 'beam_size = 3\n' >"$TMP/underscore.cfg"
check "$TMP/underscore.cfg:1: 'beam_size': did you mean beam-size\?" translate -m m -c "$TMP/underscore.cfg"
# An alias and heed's own name for one option are the same option: given twice.
printf 'threads = 1\ncpu-threads = 2\n' >"$TMP/twice.cfg"
check "$TMP/twice.cfg:2: 'threads' given twice \(first on line 1\)" translate -m m -c "$TMP/twice.cfg"

finish
