# Sourced by the Hansards recipe (run.sh in this folder; the study is the Snakefile): the corpus,
# the classical aligners on it, the joint BPE and the neural models' training files. Every step is skipped when
# its output exists, so a stopped recipe resumes. The functions read the caller's BIN (heed
# binaries), DATA (the shared data), WORK (scratch), THREADS, FAST_ALIGN (fast_align's build
# directory, optional), HANSARDS_COPIES and IBM2_EXTRA (see run.sh).
#
hansards_log() { echo "align-hansards: $*" >&2; }

# The gold set: 447 test sentences (lines 1-447 of the corpus), then 37 trial sentences.
hansards_gold_dir() { echo "$DATA/hansards-naacl2003-en-fr"; }

# hansards_tokenize en|fr: raw text on stdin, one sentence a line, tokenized the Hansards way
# and lowercased (tokenize.pl, which the Snakefile's corpus rule runs too).
hansards_tokenize() {
  perl -CSD "$(dirname "${BASH_SOURCE[0]}")/tokenize.pl" "$1"
}

# hansards_corpus: the Hansards test and trial sentences (as distributed: EGYPT-tokenized), then
# Tatoeba eng-fra and Multi30k en-fr train tokenized the Hansards way, all lowercased:
# $WORK/corpus.{en,fr} and $WORK/corpus.en-fr ("en ||| fr" lines); and the test sentences alone,
# $WORK/hansards.{e,f}, as the neural models read them, and the trial sentences, $WORK/trial.{e,f}.
hansards_corpus() {
  local gold side tmp
  gold=$(hansards_gold_dir)
  mkdir -p "$WORK"
  if [ ! -s "$WORK/corpus.en-fr" ]; then
    hansards_log "corpus"
    tmp=$WORK/corpus.tmp
    mkdir -p "$tmp"
    for side in e f; do
      cat "$gold/test.$side" "$gold/trial.$side" | perl -CSD -pe '$_ = lc; s/ +$//' \
        > "$tmp/hansards.$side"
    done
    zcat "$DATA/tatoeba-eng-fra/fra.txt.gz" | cut -f1 | hansards_tokenize en > "$tmp/tatoeba.en"
    zcat "$DATA/tatoeba-eng-fra/fra.txt.gz" | cut -f2 | hansards_tokenize fr > "$tmp/tatoeba.fr"
    hansards_tokenize en < "$DATA/multi30k/raw/train.en" > "$tmp/multi30k.en"
    hansards_tokenize fr < "$DATA/multi30k/raw/train.fr" > "$tmp/multi30k.fr"
    cat "$tmp/hansards.e" "$tmp/tatoeba.en" "$tmp/multi30k.en" > "$WORK/corpus.en"
    cat "$tmp/hansards.f" "$tmp/tatoeba.fr" "$tmp/multi30k.fr" > "$WORK/corpus.fr"
    paste -d '\t' "$WORK/corpus.en" "$WORK/corpus.fr" | sed 's/\t/ ||| /' > "$tmp/corpus.en-fr"
    mv "$tmp/corpus.en-fr" "$WORK/corpus.en-fr"
    rm -rf "$tmp"
  fi
  for side in e f; do
    [ -s "$WORK/hansards.$side" ] ||
      perl -CSD -pe '$_ = lc; s/ +$//' "$gold/test.$side" > "$WORK/hansards.$side"
    [ -s "$WORK/trial.$side" ] ||
      perl -CSD -pe '$_ = lc; s/ +$//' "$gold/trial.$side" > "$WORK/trial.$side"
  done
  hansards_log "corpus: $(wc -l < "$WORK/corpus.en-fr") pairs"
}

# hansards_run_timed NAME COMMAND...: stdout into $WORK/NAME, wall-clock seconds into
# $WORK/NAME.seconds.
hansards_run_timed() {
  local name=$1 start end
  shift
  [ -s "$WORK/$name" ] && return 0
  hansards_log "$name: $*"
  start=$(date +%s%N)
  "$@" > "$WORK/$name.tmp" 2> "$WORK/$name.log"
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.2f\n", ns / 1e9 }' > "$WORK/$name.seconds"
  mv "$WORK/$name.tmp" "$WORK/$name"
}

# The five symmetrizations, in the order the tables list them.
HANSARDS_METHODS="intersect union grow-diag grow-diag-final grow-diag-final-and"

# hansards_classic: heed-align ibm2 both directions over the corpus (the options of fast_align's
# recommended -d -o -v), and fast_align -d -o -v (and -r) when FAST_ALIGN names its build
# directory: $WORK/SYSTEM.{fwd,rev}; then the test sentences' links, $WORK/test.SYSTEM.fwd,
# .rev and each symmetrization (heed-align symmetrize, or fast_align's atools where heed-align
# has none), and the trial sentences' the same way, $WORK/trial.SYSTEM.*. Sets HANSARDS_SYSTEMS
# to the systems run.
hansards_classic() {
  local ibm2 system direction method test_lines trial_lines set
  # shellcheck disable=SC2206  # IBM2_EXTRA is split at spaces on purpose
  ibm2=("$BIN/heed-align" ibm2 --favor-diagonal --optimize-tension --variational-bayes
        --threads "$THREADS" --verbose ${IBM2_EXTRA:-})
  hansards_run_timed ibm2.fwd "${ibm2[@]}" "$WORK/corpus.en" "$WORK/corpus.fr"
  hansards_run_timed ibm2.rev "${ibm2[@]}" --reverse "$WORK/corpus.en" "$WORK/corpus.fr"
  HANSARDS_SYSTEMS=ibm2
  if [ -n "${FAST_ALIGN:-}" ]; then
    # fast_align gathers its sums in OpenMP threads under a dynamic schedule, so with two or
    # more its links vary from run to run (∩ 14.79 or 14.80 AER on the test pairs); at one
    # thread they are the same every time (measured: byte-identical runs), which the study's
    # compare stage needs to score the links its rows came from.
    OMP_NUM_THREADS=1 hansards_run_timed fast_align.fwd "$FAST_ALIGN/fast_align" \
      -i "$WORK/corpus.en-fr" -d -o -v
    OMP_NUM_THREADS=1 hansards_run_timed fast_align.rev "$FAST_ALIGN/fast_align" \
      -i "$WORK/corpus.en-fr" -d -o -v -r
    HANSARDS_SYSTEMS="ibm2 fast_align"
  fi
  test_lines=$(wc -l < "$(hansards_gold_dir)/test.e")
  trial_lines=$(wc -l < "$(hansards_gold_dir)/trial.e")
  for system in $HANSARDS_SYSTEMS; do
    for direction in fwd rev; do
      [ -s "$WORK/test.$system.$direction" ] ||
        head -n "$test_lines" "$WORK/$system.$direction" > "$WORK/test.$system.$direction"
      [ -s "$WORK/trial.$system.$direction" ] ||  # the corpus's lines after the test's
        sed -n "$((test_lines + 1)),$((test_lines + trial_lines))p" "$WORK/$system.$direction" \
          > "$WORK/trial.$system.$direction"
    done
    for set in test trial; do
      for method in $HANSARDS_METHODS; do
        [ -s "$WORK/$set.$system.$method" ] ||
          hansards_symmetrize "$WORK/$set.$system.fwd" "$WORK/$set.$system.rev" "$method" \
            "$WORK/$set.$system.$method"
      done
    done
  done
}

# hansards_symmetrize FWD REV METHOD OUT [heed-align symmetrize options]
hansards_symmetrize() {
  local fwd=$1 rev=$2 method=$3 out=$4
  shift 4
  if "$BIN/heed-align" symmetrize --help > /dev/null 2>&1; then
    "$BIN/heed-align" symmetrize "$fwd" "$rev" --method "$method" -o "$out" "$@"
  elif [ -n "${FAST_ALIGN:-}" ] && [ $# = 0 ]; then
    "$FAST_ALIGN/atools" -i "$fwd" -j "$rev" -c "$method" > "$out.tmp" && mv "$out.tmp" "$out"
  else
    hansards_log "no heed-align symmetrize here and no FAST_ALIGN: $out skipped"
  fi
}

# hansards_score LINKS [SET]: the score row of zero-based English-French links of SET's
# sentences (test, the default, or trial) against its gold: "aer precision recall predicted sure
# possible sentences", tab-separated.
hansards_score() {
  "$BIN/heed-align" score --gold "$(hansards_gold_dir)/${2:-test}.wa.nonullalign" --one-based \
    --test "$1" | tail -1
}

# hansards_transpose IN OUT: Pharaoh links i-j of IN as j-i (unless OUT exists).
hansards_transpose() {
  [ -s "$2" ] && return 0
  awk '{ for (i = 1; i <= NF; i++) { split($i, p, "-"); $i = p[2] "-" p[1] } print }' "$1" \
    > "$2.tmp"
  mv "$2.tmp" "$2"
}

# hansards_bpe: one joint BPE of 8,000 merges learnt on both sides of the corpus, $WORK/codes,
# and the corpus through it, $WORK/corpus.bpe.{en,fr}.
hansards_bpe() {
  local l
  if [ ! -s "$WORK/codes" ]; then
    hansards_log "BPE: 8000 joint merges"
    "$BIN/heed-tokenize" learn-bpe --merges 8000 -i "$WORK/corpus.en" -i "$WORK/corpus.fr" \
      -o "$WORK/codes"
  fi
  for l in en fr; do
    [ -s "$WORK/corpus.bpe.$l" ] ||
      "$BIN/heed-tokenize" --bpe "$WORK/codes" --threads "$THREADS" -i "$WORK/corpus.$l" \
        -o "$WORK/corpus.bpe.$l"
  done
}

# hansards_copies FILE OUT: OUT is FILE after HANSARDS_COPIES - 1 more copies of its Hansards
# lines (its first 484, test and trial) — the only in-domain text there is, oversampled as one
# would a small in-domain set.
hansards_copies() {
  local hansards_lines
  [ -s "$2" ] && return 0
  hansards_lines=$(cat "$(hansards_gold_dir)/test.e" "$(hansards_gold_dir)/trial.e" | wc -l)
  { for _ in $(seq 2 "$HANSARDS_COPIES"); do head -n "$hansards_lines" "$1"; done; cat "$1"; } \
    > "$2.tmp"
  mv "$2.tmp" "$2"
}
