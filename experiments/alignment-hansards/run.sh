#!/usr/bin/env bash
# Word alignment on English–French, scored on the 447 Hansards test sentences of the NAACL 2003
# shared task (Mihalcea & Pedersen 2003): heed-align ibm2 beside real fast_align, and word
# alignments read off the attention of heed translation models in both directions, trained
# plainly and with guided alignment from ibm2.
#
#   bash experiments/alignment-hansards/run.sh
#   FAST_ALIGN=/path/to/fast_align/build bash experiments/alignment-hansards/run.sh
#
# Stages (each skipped when its output exists, so a stopped run resumes):
#   1. corpus: the Hansards test and trial sentences (as distributed: EGYPT-tokenized), then
#      Tatoeba eng-fra and Multi30k en-fr train, tokenized the Hansards way (below), all
#      lowercased: $WORK/corpus.{en,fr} and $WORK/corpus.en-fr ("en ||| fr" lines). The test
#      sentences are lines 1-447, aligned as part of the corpus, as unsupervised aligners are run.
#   2. ibm2: heed-align ibm2 forward (en→fr: p(fr | en)) and --reverse, with the options of
#      fast_align's recommended use (-d -o -v): $WORK/ibm2.{fwd,rev}, seconds in *.seconds.
#   3. fast_align, when FAST_ALIGN names its build directory: the same with fast_align -d -o -v
#      and -r: $WORK/fast_align.{fwd,rev}.
#   4. symmetrize the test sentences' links of each system (intersect, union, grow-diag,
#      grow-diag-final, grow-diag-final-and) with heed-align symmetrize, or with fast_align's
#      atools where heed-align has no symmetrize subcommand.
#   5. score each against the gold with heed-align score (1-based NAACL gold; English is the
#      source, French the target): $WORK/scores.tsv.
#   6. attention: one joint BPE (8,000 merges) over the corpus; English→French and French→English
#      models (heed-train defaults: bi-LSTM encoder, Luong decoder with input feeding, general
#      attention; hidden 512, embed 256) trained for MINUTES each in PRECISION; the test pairs
#      force-decoded and aligned by argmax and by shift, each direction alone and symmetrized
#      (the French→English links transposed). System "attention".
#   7. guided: the same two models trained with --guided-alignment from ibm2's links over the
#      whole corpus (GUIDE=gdfa: its grow-diag-final-and links for both; GUIDE=directional: each
#      model its own direction's) at GUIDE_WEIGHT, for GUIDED_MINUTES each, aligned by argmax
#      (the guided rows are the rows that predict each word). System "guided".
#   For both systems, "agree": the two directions' attention combined word pair by word pair
#   (heed-align agree). Scores of 6 and 7 join $WORK/scores.tsv, one row per system, direction
#   or method.
#
# Tokenizing "the Hansards way" (what the test files show): words and punctuation split apart,
# hyphens inside words made tokens ("peut - être", "two - thirds"), numbers kept whole ("1,122",
# "3.5"), a few abbreviations keep their period ("mr.", "hon."); English clitics split before the
# apostrophe ("john 's", "do n't"); French elisions expanded (l' → le, d' → de, qu' → que,
# s' → se, ...: "le homme", "ce ne est") and the contractions au, aux, du, des written
# "à le", "à les", "de le", "de les" (not in compounds: "au - dessus"); another apostrophe is split after ("aujourd' hui").
# A perl filter does it (hansards_tokenize below); heed-tokenize's reversible tokenizer keeps
# joiner marks and does not expand elisions.
#
# Environment: BIN (heed binaries, default build/bin), DATA (default ../shared/data beside the
# repository), WORK (default /tmp/heed-align-hansards), THREADS (default: all cores; both
# aligners get the same), FAST_ALIGN (optional), MINUTES (training time of each unguided
# model, default 5), GUIDED_MINUTES (of each guided model, default 20: the whole recipe then
# takes about 55 minutes), PRECISION (bf16 where the CPU has it, else f32), GUIDE_WEIGHT
# (default 2), GUIDE (gdfa, the default, or directional: see stage 7), HANSARDS_COPIES (default
# 20: how many times the neural models' training files hold the 484 Hansards pairs, see
# below), STAGES (default "classic attention guided"), IBM2_EXTRA (more
# options for both ibm2 runs, split at spaces: "--tension-gradient fast-align" reproduces
# fast_align; use another WORK).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/build/bin}
DATA=${DATA:-$root/../shared/data}
WORK=${WORK:-/tmp/heed-align-hansards}
THREADS=${THREADS:-$(nproc)}
FAST_ALIGN=${FAST_ALIGN:-}
MINUTES=${MINUTES:-5}
GUIDED_MINUTES=${GUIDED_MINUTES:-20}
PRECISION=${PRECISION:-bf16}
GUIDE_WEIGHT=${GUIDE_WEIGHT:-2}
GUIDE=${GUIDE:-gdfa}
case $GUIDE in gdfa | directional) ;; *) echo "align-hansards: GUIDE is gdfa or directional, not '$GUIDE'" >&2; exit 2 ;; esac
HANSARDS_COPIES=${HANSARDS_COPIES:-20}
STAGES=${STAGES:-classic attention guided}
hansards=$DATA/hansards-naacl2003-en-fr
mkdir -p "$WORK"
log() { echo "align-hansards: $*" >&2; }

# hansards_tokenize en|fr: raw text on stdin, one sentence a line, tokenized and lowercased.
hansards_tokenize() {
  perl -CSD -Mutf8 -e '
    use strict;
    my $lang = shift;
    my %keeps_period = map { $_ => 1 } qw(mr mrs ms dr st hon messrs jr sr mm mme mlle no vs etc);
    my %elided = (l => "le", d => "de", j => "je", m => "me", t => "te", s => "se", n => "ne",
                  c => "ce", qu => "que", jusqu => "jusque", lorsqu => "lorsque",
                  puisqu => "puisque", quoiqu => "quoique");
    my %contracted = (au => "à le", aux => "à les", du => "de le", des => "de les");
    while (my $line = <STDIN>) {
      chomp $line;
      $_ = lc $line;
      s/[\x{00A0}\x{202F}\x{2009}\t]/ /g;
      s/\x{200B}//g;
      s/[\x{2018}\x{2019}\x{02BC}`]/\x27/g;
      s/[\x{201C}\x{201D}]/"/g;
      s/\x{2026}/.../g;
      s/([!?;:()«»"\[\]{}%\$&\/*+=<>\x{2013}\x{2014}])/ $1 /g;
      s/(?<!\d),|,(?!\d)/ , /g;
      s/\.\.\.+/ ... /g;
      s/(?<=\w)-(?=\w)/ - /g;
      if ($lang eq "en") {
        s/(\w)n\x27t\b/$1 n\x27t/g;
        s/(\w)\x27(s|re|ve|ll|d|m)\b/$1 \x27$2/g;
      } else {
        s/\b(jusqu|lorsqu|puisqu|quoiqu|qu|[ldjmtsnc])\x27(?=\w)/$elided{$1} /g;
        s/\x27(?=\w)/\x27 /g;
      }
      my @tokens = split " ";
      my @out;
      for my $k (0 .. $#tokens) {
        my $token = $tokens[$k];
        my $next = $k < $#tokens ? $tokens[$k + 1] : "";
        if ($token =~ /^(.*\w)\.$/ && !$keeps_period{$1} && $1 !~ /^(\w\.)+\w$/) {
          push @out, $1, ".";
        } elsif ($lang eq "fr" && exists $contracted{$token} && $next ne "-") {
          push @out, $contracted{$token};
        } else {
          push @out, $token;
        }
      }
      print join(" ", @out), "\n";
    }' "$1"
}

# Stage 1: the corpus.
if [ ! -s "$WORK/corpus.en-fr" ]; then
  log "corpus"
  tmp=$WORK/corpus.tmp
  mkdir -p "$tmp"
  for side in e f; do
    cat "$hansards/test.$side" "$hansards/trial.$side" | perl -CSD -pe '$_ = lc; s/ +$//' \
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
log "corpus: $(wc -l < "$WORK/corpus.en-fr") pairs"

# run_timed NAME COMMAND...: stdout into $WORK/NAME, wall-clock seconds into $WORK/NAME.seconds.
run_timed() {
  local name=$1; shift
  [ -s "$WORK/$name" ] && return 0
  log "$name: $*"
  local start end
  start=$(date +%s%N)
  "$@" > "$WORK/$name.tmp" 2> "$WORK/$name.log"
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.2f\n", ns / 1e9 }' > "$WORK/$name.seconds"
  mv "$WORK/$name.tmp" "$WORK/$name"
}

# Stages 2 and 3: both directions with each aligner.
# shellcheck disable=SC2206  # IBM2_EXTRA is split at spaces on purpose
ibm2=("$BIN/heed-align" ibm2 --favor-diagonal --optimize-tension --variational-bayes
      --threads "$THREADS" -v ${IBM2_EXTRA:-})
run_timed ibm2.fwd "${ibm2[@]}" "$WORK/corpus.en" "$WORK/corpus.fr"
run_timed ibm2.rev "${ibm2[@]}" --reverse "$WORK/corpus.en" "$WORK/corpus.fr"
systems=ibm2
if [ -n "$FAST_ALIGN" ]; then
  export OMP_NUM_THREADS=$THREADS
  run_timed fast_align.fwd "$FAST_ALIGN/fast_align" -i "$WORK/corpus.en-fr" -d -o -v
  run_timed fast_align.rev "$FAST_ALIGN/fast_align" -i "$WORK/corpus.en-fr" -d -o -v -r
  systems="ibm2 fast_align"
fi

# Stage 4: the test sentences' links, symmetrized.
methods="intersect union grow-diag grow-diag-final grow-diag-final-and"
test_lines=$(wc -l < "$hansards/test.e")
if "$BIN/heed-align" symmetrize --help > /dev/null 2>&1; then
  symmetrize() { "$BIN/heed-align" symmetrize "$1" "$2" --method "$3" -o "$4"; }
elif [ -n "$FAST_ALIGN" ]; then
  symmetrize() { "$FAST_ALIGN/atools" -i "$1" -j "$2" -c "$3" > "$4.tmp" && mv "$4.tmp" "$4"; }
else
  symmetrize() { log "no heed-align symmetrize here and no FAST_ALIGN: $4 skipped"; }
fi
for system in $systems; do
  for direction in fwd rev; do
    [ -s "$WORK/test.$system.$direction" ] ||
      head -n "$test_lines" "$WORK/$system.$direction" > "$WORK/test.$system.$direction"
  done
  for method in $methods; do
    [ -s "$WORK/test.$system.$method" ] ||
      symmetrize "$WORK/test.$system.fwd" "$WORK/test.$system.rev" "$method" \
        "$WORK/test.$system.$method"
  done
done

# Stage 5 (and the end of 6, 7): scores, one row per system and run.
if ! "$BIN/heed-align" score --help > /dev/null 2>&1; then
  log "no heed-align score here: the links are in $WORK/test.*; scores skipped"
  exit 0
fi
# score_runs SYSTEM RUNS...: rows "system run seconds aer precision recall predicted sure
# possible sentences" for $WORK/test.SYSTEM.RUN.
score_runs() {
  local system=$1; shift
  for run in "$@"; do
    [ -s "$WORK/test.$system.$run" ] || continue
    result=$("$BIN/heed-align" score --gold "$hansards/test.wa.nonullalign" --one-based \
             --test "$WORK/test.$system.$run" | tail -1)
    seconds=
    [ -f "$WORK/$system.$run.seconds" ] && seconds=$(cat "$WORK/$system.$run.seconds")
    printf '%s\t%s\t%s\t%s\n' "$system" "$run" "$seconds" "$result"
  done
}
scores=$WORK/scores.tsv
printf 'system\trun\tseconds\taer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences\n' \
  > "$scores.tmp"
for system in $systems; do score_runs "$system" fwd rev $methods >> "$scores.tmp"; done
mv "$scores.tmp" "$scores"

# transpose_links IN OUT: Pharaoh links i-j of IN as j-i (unless OUT exists).
transpose_links() {
  [ -s "$2" ] && return 0
  awk '{ for (i = 1; i <= NF; i++) { split($i, p, "-"); $i = p[2] "-" p[1] } print }' "$1" \
    > "$2.tmp"
  mv "$2.tmp" "$2"
}
# Stages 6 and 7: translation models in both directions, their attention as alignments.
has_stage() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
if has_stage attention || has_stage guided; then
  if [ ! -s "$WORK/codes" ]; then
    log "BPE: 8000 joint merges"
    "$BIN/heed-tokenize" learn-bpe --merges 8000 -i "$WORK/corpus.en" -i "$WORK/corpus.fr" \
      -o "$WORK/codes"
  fi
  for l in en fr; do
    [ -s "$WORK/corpus.bpe.$l" ] ||
      "$BIN/heed-tokenize" --bpe "$WORK/codes" --threads "$THREADS" -i "$WORK/corpus.$l" \
        -o "$WORK/corpus.bpe.$l"
  done
  # The guide, English-French for the English→French model and French-English for the other:
  # GUIDE=gdfa gives both ibm2's grow-diag-final-and links of every corpus pair (the
  # French→English model takes them transposed); GUIDE=directional gives each model the ibm2
  # run of its own direction (ibm2.fwd, and ibm2.rev transposed), so that the two guided
  # models err in different places and their intersection filters, as ibm2's does.
  if [ "$GUIDE" = gdfa ]; then
    if [ ! -s "$WORK/guide.en-fr" ]; then
      "$BIN/heed-align" symmetrize "$WORK/ibm2.fwd" "$WORK/ibm2.rev" \
        --method grow-diag-final-and -o "$WORK/guide.en-fr"
    fi
    transpose_links "$WORK/guide.en-fr" "$WORK/guide.fr-en"
  else
    [ -s "$WORK/guide.en-fr" ] || cp "$WORK/ibm2.fwd" "$WORK/guide.en-fr"
    transpose_links "$WORK/ibm2.rev" "$WORK/guide.fr-en"
  fi
fi
# The neural models' training files: the corpus with its Hansards pairs (the first lines, test
# and trial) HANSARDS_COPIES times in all — the only in-domain text there is, oversampled as
# one would a small in-domain set — and the guides likewise, line for line.
hansards_lines=$(cat "$hansards/test.e" "$hansards/trial.e" | wc -l)
# copies_of FILE OUT: OUT is FILE after HANSARDS_COPIES - 1 more copies of its Hansards lines.
copies_of() {
  [ -s "$2" ] && return 0
  { for _ in $(seq 2 "$HANSARDS_COPIES"); do head -n "$hansards_lines" "$1"; done; cat "$1"; } \
    > "$2.tmp"
  mv "$2.tmp" "$2"
}
if has_stage attention || has_stage guided; then
  for file in corpus.bpe.en corpus.bpe.fr guide.en-fr guide.fr-en; do
    copies_of "$WORK/$file" "$WORK/train.$file"
  done
fi
# train_model NAME SRC TGT MINUTES [heed-train options]: $WORK/NAME/model.heed after MINUTES
# of training; $WORK/NAME.seconds marks it finished. A run stopped before that resumes from its
# checkpoint (the time limit counts the training seconds of both runs).
train_model() {
  local name=$1 src=$2 tgt=$3 minutes=$4; shift 4
  [ -s "$WORK/$name.seconds" ] && return 0
  log "training $name for $minutes minutes ($PRECISION)"
  local resume=() start end
  [ -f "$WORK/$name/checkpoint.heed" ] && resume=(--resume)
  start=$(date +%s%N)
  "$BIN/heed-train" --train-src "$WORK/train.corpus.bpe.$src" --train-tgt "$WORK/train.corpus.bpe.$tgt" \
    --bpe "$WORK/codes" --tokenizer-mode conservative --hidden 512 --embed 256 --dropout 0.2 \
    --batch-size 64 --lr 0.001 --time-limit $((minutes * 60)) --save-every 500 \
    --precision "$PRECISION" --threads "$THREADS" --metrics-file "$WORK/$name.metrics.tsv" \
    -o "$WORK/$name" "${resume[@]}" "$@" 2>> "$WORK/$name.log"
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.2f\n", ns / 1e9 }' > "$WORK/$name.seconds"
}
# align_model SYSTEM DIRECTION METHOD: the test pairs through $WORK/SYSTEM.DIRECTION's
# attention into $WORK/test.SYSTEM.DIRECTION-METHOD (links as that model writes them).
# An argmax run also keeps the attention itself, $WORK/test.SYSTEM.DIRECTION.jsonl, for agree.
align_model() {
  local system=$1 direction=$2 method=$3 out=$WORK/test.$1.$2-$3 soft=()
  [ "$method" = argmax ] && soft=(--soft "$WORK/test.$1.$2.jsonl")
  [ -s "$out" ] && { [ "$method" != argmax ] || [ -s "$WORK/test.$1.$2.jsonl" ]; } && return 0
  local src=e tgt=f
  [ "$direction" = rev ] && { src=f; tgt=e; }
  "$BIN/heed-align" -m "$WORK/$system.$direction/model.heed" --method "$method" \
    --threads "$THREADS" "$WORK/hansards.$src" "$WORK/hansards.$tgt" -o "$out" "${soft[@]}"
}
for side in e f; do
  [ -s "$WORK/hansards.$side" ] ||
    perl -CSD -pe '$_ = lc; s/ +$//' "$hansards/test.$side" > "$WORK/hansards.$side"
done
for system in attention guided; do
  has_stage "$system" || continue
  guide_fwd=() guide_rev=() extract_methods="argmax shift" minutes=$MINUTES
  if [ "$system" = guided ]; then
    minutes=$GUIDED_MINUTES
    guide_fwd=(--guided-alignment "$WORK/train.guide.en-fr" --guided-alignment-weight "$GUIDE_WEIGHT")
    guide_rev=(--guided-alignment "$WORK/train.guide.fr-en" --guided-alignment-weight "$GUIDE_WEIGHT")
    extract_methods=argmax
  fi
  train_model "$system.fwd" en fr "$minutes" "${guide_fwd[@]}"
  train_model "$system.rev" fr en "$minutes" "${guide_rev[@]}"
  runs=""
  for method in $extract_methods; do
    align_model "$system" fwd "$method"
    align_model "$system" rev "$method"
    # The French→English links, read English-French, are the "rev" run.
    transpose_links "$WORK/test.$system.rev-$method" "$WORK/test.$system.rev-$method.en-fr"
    runs="$runs fwd-$method rev-$method.en-fr"
    for sym in $methods; do
      [ -s "$WORK/test.$system.$sym-$method" ] ||
        "$BIN/heed-align" symmetrize "$WORK/test.$system.fwd-$method" \
          "$WORK/test.$system.rev-$method" --transpose-reverse --method "$sym" \
          -o "$WORK/test.$system.$sym-$method"
      runs="$runs $sym-$method"
    done
  done
  # Both directions' attention combined cell by cell (heed-align agree: their mean, links at
  # 0.5 and above — the threshold chosen on the 37 trial sentences, see docs/alignment.md).
  [ -s "$WORK/test.$system.agree" ] ||
    "$BIN/heed-align" agree "$WORK/test.$system.fwd.jsonl" "$WORK/test.$system.rev.jsonl" \
      -o "$WORK/test.$system.agree"
  runs="$runs agree"
  score_runs "$system" $runs >> "$scores"
done
column -t -s "$(printf '\t')" "$scores"
