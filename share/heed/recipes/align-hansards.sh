#!/usr/bin/env bash
# Word alignment on English–French, scored on the 447 Hansards test sentences of the NAACL 2003
# shared task (Mihalcea & Pedersen 2003), heed-align ibm2 beside real fast_align.
#
#   bash share/heed/recipes/align-hansards.sh
#   FAST_ALIGN=/path/to/fast_align/build bash share/heed/recipes/align-hansards.sh
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
# aligners get the same), FAST_ALIGN (optional).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
BIN=${BIN:-$root/build/bin}
DATA=${DATA:-$root/../shared/data}
WORK=${WORK:-/tmp/heed-align-hansards}
THREADS=${THREADS:-$(nproc)}
FAST_ALIGN=${FAST_ALIGN:-}
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
ibm2=("$BIN/heed-align" ibm2 --favor-diagonal --optimize-tension --variational-bayes
      --threads "$THREADS" -v)
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

# Stage 5: scores.
if ! "$BIN/heed-align" score --help > /dev/null 2>&1; then
  log "no heed-align score here: the links are in $WORK/test.*; scores skipped"
  exit 0
fi
scores=$WORK/scores.tsv
: > "$scores.tmp"
for system in $systems; do
  for run in fwd rev $methods; do
    [ -s "$WORK/test.$system.$run" ] || continue
    result=$("$BIN/heed-align" score --gold "$hansards/test.wa.nonullalign" --one-based \
             --test "$WORK/test.$system.$run")
    seconds=
    [ -f "$WORK/$system.$run.seconds" ] && seconds=$(cat "$WORK/$system.$run.seconds")
    printf '%s\t%s\t%s\t%s\n' "$system" "$run" "$seconds" "$(echo $result)" >> "$scores.tmp"
  done
done
mv "$scores.tmp" "$scores"
column -t -s "$(printf '\t')" "$scores"
