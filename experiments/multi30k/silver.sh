#!/usr/bin/env bash
# Silver word links for Multi30k German–English: Multi30k has no gold alignments, so the
# ablation's models (experiments/ablation) can be scored in domain against the links of the
# classical aligner instead — heed-align ibm2 in both directions (fast_align's -d -o -v) over
# train + test2016, symmetrized by grow-diag-final-and. How far such links are from gold where
# gold exists is measured by the Hansards study (experiments/alignment-hansards, results/silver.tsv;
# docs/alignment.md).
#
#   bash experiments/multi30k/silver.sh                       # build WORK/silver.test.words
#   bash experiments/multi30k/silver.sh score MODEL [READING]  # one row: a de→en model's
#                                                              # attention against them
#
# Tokens: the ablation's tokenization (the recipe's: heed-tokenize --mode aggressive --lowercase),
# word level (no BPE), its joiner marks dropped for the aligner, so that "hut ￭," and "hut ,"
# are the same words to it. Scoring: heed-align extract links the words of the text it is given
# — what stands between spaces — so the model reads the raw test2016 sentences exactly as it was
# trained to, and the silver token links are lifted to those words the way heed-align lifts
# subwords: a word pair is linked when any of their tokens are (hut ￭, → the word "hut,").
# The row is heed-align score's: aer precision recall predicted sure possible sentences, the
# silver links counted as sure links (so AER = 1 − F1).
#
# Sourced, this file defines the functions below; run, it builds (and scores). Environment when
# run: BIN (build/bin), DATA (../shared/data), WORK (/tmp/heed-multi30k-silver), THREADS (2).

# ibm2_gdfa BIN SRC TGT OUT THREADS: heed-align ibm2 with fast_align's -d -o -v in both
# directions over the tokenized parallel text SRC TGT (OUT.fwd, OUT.rev), symmetrized by
# grow-diag-final-and into OUT: zero-based links, one line per pair. Skipped when OUT exists.
ibm2_gdfa() {
  local bin=$1 src=$2 tgt=$3 out=$4 threads=$5 r flag
  [ -s "$out" ] && return 0
  for r in fwd rev; do
    flag=()
    [ "$r" = rev ] && flag=(--reverse)
    [ -s "$out.$r" ] ||
      "$bin/heed-align" ibm2 --favor-diagonal --optimize-tension --variational-bayes \
        --threads "$threads" --quiet "${flag[@]}" "$src" "$tgt" -o "$out.$r"
  done
  "$bin/heed-align" symmetrize "$out.fwd" "$out.rev" --method grow-diag-final-and -o "$out" -q
}

# multi30k_silver BIN DATA WORK THREADS: WORK/{train,test}.tok.{de,en} (tokens with joiners),
# WORK/corpus.{de,en} (test2016 then train, joiners dropped), WORK/silver.{fwd,rev} (ibm2),
# WORK/silver (grow-diag-final-and, every pair), WORK/silver.test (test2016's, token level) and
# WORK/silver.test.words (lifted to the raw words: zero-based talp, every link sure).
multi30k_silver() {
  local bin=$1 data=$2 work=$3 threads=$4 split l
  [ -s "$work/silver.test.words" ] && return 0
  mkdir -p "$work"
  for split in train test_2016_flickr; do
    for l in de en; do
      [ -f "$data/multi30k/raw/$split.$l" ] || { echo "silver: $data/multi30k/raw/$split.$l not found (set DATA)" >&2; return 66; }
      [ -s "$work/$split.tok.$l" ] ||
        "$bin/heed-tokenize" --mode aggressive --lowercase --threads "$threads" \
          -i "$data/multi30k/raw/$split.$l" -o "$work/$split.tok.$l"
    done
  done
  for l in de en; do
    cat "$work/test_2016_flickr.tok.$l" "$work/train.tok.$l" | sed 's/￭//g' > "$work/corpus.$l"
  done
  ibm2_gdfa "$bin" "$work/corpus.de" "$work/corpus.en" "$work/silver" "$threads"
  head -n "$(wc -l < "$work/test_2016_flickr.tok.de")" "$work/silver" > "$work/silver.test"
  multi30k_lift_links "$work/test_2016_flickr.tok.de" "$work/test_2016_flickr.tok.en" \
    "$work/silver.test" > "$work/silver.test.words.tmp"
  mv "$work/silver.test.words.tmp" "$work/silver.test.words"
}

# multi30k_lift_links SRC_TOKENS TGT_TOKENS LINKS: token links i-j as links between the words
# the tokens belong to (a token carrying a joiner ￭ on its left, or following one that carries
# it on its right, is in the word before it), each word pair once, sorted.
multi30k_lift_links() {
  paste -d '\t' "$1" "$2" "$3" | awk -F'\t' '
    function words(text, map,    n, t, k, w) {
      n = split(text, t, " "); w = -1
      for (k = 1; k <= n; k++) {
        if (k == 1 || !(t[k] ~ /^￭/ || t[k - 1] ~ /￭$/)) w++
        map[k - 1] = w
      }
      return n
    }
    {
      delete s; delete g; delete seen
      words($1, s); words($2, g)
      n = split($3, links, " "); m = 0
      for (k = 1; k <= n; k++) {
        split(links[k], p, "-"); key = s[p[1]] * 100000 + g[p[2]]
        if (!(key in seen)) { seen[key] = 1; keys[++m] = key }
      }
      for (a = 2; a <= m; a++) {  # insertion sort: source word, then target word
        v = keys[a]
        for (b = a - 1; b >= 1 && keys[b] > v; b--) keys[b + 1] = keys[b]
        keys[b + 1] = v
      }
      out = ""
      for (a = 1; a <= m; a++) out = out (a > 1 ? " " : "") int(keys[a] / 100000) "-" keys[a] % 100000
      print out
    }'
}

# multi30k_silver_score BIN DATA WORK MODEL [READING [THREADS]]: MODEL (de→en, trained on the
# ablation's tokenization) force-decodes the raw test2016 pairs; its READING (argmax, shift or
# threshold; default argmax) links scored against WORK/silver.test.words: one row.
multi30k_silver_score() {
  local bin=$1 data=$2 work=$3 model=$4 reading=${5:-argmax} threads=${6:-2} out
  out=$(mktemp "$work/score.XXXXXX")
  "$bin/heed-align" -m "$model" --method "$reading" --threads "$threads" -q \
    "$data/multi30k/raw/test_2016_flickr.de" "$data/multi30k/raw/test_2016_flickr.en" -o "$out"
  "$bin/heed-align" score --gold "$work/silver.test.words" --test "$out" | tail -1
  rm -f "$out"
}

# multi30k_silver_diagonal BIN SOURCE TARGET GOLD OUT: the diagonal baseline (every target word
# linked to the source word at the same relative position) of the raw words of SOURCE and TARGET,
# written to OUT and scored against GOLD's links: one row, for scale.
multi30k_silver_diagonal() {
  local bin=$1 source=$2 target=$3 gold=$4 out=$5
  paste -d '\t' "$source" "$target" |
    awk -F'\t' '{ ns = split($1, s, " "); nt = split($2, t, " "); line = ""
      for (j = 0; j < nt && ns > 0; j++) line = line (j ? " " : "") int((j + 0.5) * ns / nt) "-" j
      print line }' > "$out"
  "$bin/heed-align" score --gold "$gold" --test "$out" | tail -1
}

# multi30k_silver_rwth BIN DATA WORK THREADS: silver links built the same way from the 508 RWTH
# Europarl pairs (lowercased, as tokenized there) followed by Multi30k train, scored on the
# RWTH gold (German source, 1-based talp): one row. Out of domain for the Multi30k text, so a
# lower bound of what the in-domain silver of test2016 is worth.
multi30k_silver_rwth() {
  local bin=$1 data=$2 work=$3 threads=$4 gold=$2/rwth-deen-gold l
  mkdir -p "$work/rwth"
  for l in de en; do
    [ -s "$work/rwth/corpus.$l" ] && continue
    { head -n 508 "$gold/$l.utf8" | perl -CSD -pe '$_ = lc; s/ +$//'
      sed 's/￭//g' "$work/train.tok.$l"; } > "$work/rwth/corpus.$l"
  done
  ibm2_gdfa "$bin" "$work/rwth/corpus.de" "$work/rwth/corpus.en" "$work/rwth/silver" "$threads"
  head -n 508 "$work/rwth/silver" > "$work/rwth/silver.test"
  head -n 508 "$gold/alignmentDeEn.talp" > "$work/rwth/gold.talp"
  "$bin/heed-align" score --gold "$work/rwth/gold.talp" --one-based --test "$work/rwth/silver.test" | tail -1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  BIN=${BIN:-$root/build/bin}
  DATA=${DATA:-$root/../shared/data}
  WORK=${WORK:-/tmp/heed-multi30k-silver}
  THREADS=${THREADS:-2}
  multi30k_silver "$BIN" "$DATA" "$WORK" "$THREADS"
  case "${1:-}" in
    "") echo "silver: $WORK/silver.test.words ($(wc -w < "$WORK/silver.test.words") links over $(wc -l < "$WORK/silver.test.words") test2016 pairs)" >&2 ;;
    score)
      [ -n "${2:-}" ] || { echo "usage: silver.sh score MODEL [READING]" >&2; exit 64; }
      printf 'aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences\n'
      multi30k_silver_score "$BIN" "$DATA" "$WORK" "$2" "${3:-argmax}" "$THREADS" ;;
    *) echo "usage: silver.sh [score MODEL [READING]]" >&2; exit 64 ;;
  esac
fi
