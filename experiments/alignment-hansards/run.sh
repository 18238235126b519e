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
#      Tatoeba eng-fra and Multi30k en-fr train, tokenized the Hansards way (lib.sh), all
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
#      attention; hidden 512, embed 256) trained for UPDATES updates each in PRECISION; the test pairs
#      force-decoded and aligned by argmax and by shift, each direction alone and symmetrized
#      (the French→English links transposed). System "attention".
#   7. guided: the same two models trained with --guided-alignment from ibm2's links over the
#      whole corpus (GUIDE=gdfa: its grow-diag-final-and links for both; GUIDE=directional: each
#      model its own direction's) at GUIDE_WEIGHT, for GUIDED_UPDATES updates each, aligned by argmax
#      (the guided rows are the rows that predict each word). System "guided".
#   For both systems, "agree": the two directions' attention combined word pair by word pair
#   (heed-align agree). Scores of 6 and 7 join $WORK/scores.tsv, one row per system, direction
#   or method.
#
# The corpus, the aligners, the BPE and the training files are in lib.sh; the tokenization "the
# Hansards way" is tokenize.pl (also the Snakefile's, the comparison of attention mechanisms of
# docs/alignment.md).
#
# Budgets are updates (batches of 64 pairs), never seconds, so that the load of the machine cannot
# change a result. The recipe used to take minutes of training (MINUTES=5, GUIDED_MINUTES=20); on
# the idle AMD EPYC (Zen 5, 2 vCPUs, bf16) of docs/alignment.md 10 minutes gave about 2,500
# updates and 20 minutes 5,500-6,000, so UPDATES=1250 stands for the old 5 minutes, 2500 for 10,
# and GUIDED_UPDATES=5750 for 20 (the middle of that range).
#
# Environment: BIN (heed binaries, default build/bin), DATA (default ../shared/data beside the
# repository), WORK (default /tmp/heed-align-hansards), THREADS (default: all cores; both
# aligners get the same), FAST_ALIGN (optional), UPDATES (the updates of each unguided
# model, default 1250), GUIDED_UPDATES (of each guided model, default 5750: the whole recipe then
# takes about 55 minutes on the idle machine), PRECISION (bf16 where the CPU has it, else f32), GUIDE_WEIGHT
# (default 2), GUIDE (gdfa, the default, or directional: see stage 7), HANSARDS_COPIES (default
# 20: how many times the neural models' training files hold the 484 Hansards pairs, see
# stage 6), STAGES (default "classic attention guided"), IBM2_EXTRA (more
# options for both ibm2 runs, split at spaces: "--tension-gradient fast-align" reproduces
# fast_align; use another WORK).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/lib.sh"
BIN=${BIN:-$root/build/bin}
[ -x "$BIN/heed-train" ] ||
  { echo "align-hansards: $BIN/heed-train not found (build heed, or set BIN to a copy of build/bin)" >&2; exit 69; }
DATA=${DATA:-$root/../shared/data}
WORK=${WORK:-/tmp/heed-align-hansards}
THREADS=${THREADS:-$(nproc)}
FAST_ALIGN=${FAST_ALIGN:-}
for old in MINUTES GUIDED_MINUTES; do
  if [ -n "${!old:-}" ]; then
    echo "align-hansards: $old is gone: budgets are updates now (UPDATES, GUIDED_UPDATES; 10 minutes were about 2,500 updates)" >&2
    exit 64
  fi
done
UPDATES=${UPDATES:-1250}
GUIDED_UPDATES=${GUIDED_UPDATES:-5750}
PRECISION=${PRECISION:-bf16}
GUIDE_WEIGHT=${GUIDE_WEIGHT:-2}
GUIDE=${GUIDE:-gdfa}
case $GUIDE in gdfa | directional) ;; *) echo "align-hansards: GUIDE is gdfa or directional, not '$GUIDE'" >&2; exit 2 ;; esac
HANSARDS_COPIES=${HANSARDS_COPIES:-20}
STAGES=${STAGES:-classic attention guided}
log() { hansards_log "$@"; }

# Stage 1: the corpus.
hansards_corpus

# Stages 2, 3 and 4: both directions with each aligner, the test sentences' links symmetrized.
hansards_classic
systems=$HANSARDS_SYSTEMS
methods=$HANSARDS_METHODS

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
    result=$(hansards_score "$WORK/test.$system.$run")
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

# Stages 6 and 7: translation models in both directions, their attention as alignments.
has_stage() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
if has_stage attention || has_stage guided; then
  hansards_bpe
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
    hansards_transpose "$WORK/guide.en-fr" "$WORK/guide.fr-en"
  else
    [ -s "$WORK/guide.en-fr" ] || cp "$WORK/ibm2.fwd" "$WORK/guide.en-fr"
    hansards_transpose "$WORK/ibm2.rev" "$WORK/guide.fr-en"
  fi
fi
# The neural models' training files: the corpus with its Hansards pairs (the first lines, test
# and trial) HANSARDS_COPIES times in all, and the guides likewise, line for line.
if has_stage attention || has_stage guided; then
  for file in corpus.bpe.en corpus.bpe.fr guide.en-fr guide.fr-en; do
    hansards_copies "$WORK/$file" "$WORK/train.$file"
  done
fi
# train_model NAME SRC TGT UPDATES [heed-train options]: $WORK/NAME/model.heed after UPDATES
# updates; $WORK/NAME.seconds (wall-clock) marks it finished. A run stopped before that resumes
# from its checkpoint.
train_model() {
  local name=$1 src=$2 tgt=$3 updates=$4; shift 4
  [ -s "$WORK/$name.seconds" ] && return 0
  log "training $name for $updates updates ($PRECISION)"
  local resume=() start end
  [ -f "$WORK/$name/checkpoint.heed" ] && resume=(--resume)
  start=$(date +%s%N)
  "$BIN/heed-train" --train-src "$WORK/train.corpus.bpe.$src" --train-tgt "$WORK/train.corpus.bpe.$tgt" \
    --bpe "$WORK/codes" --tokenizer-mode conservative --hidden 512 --embed 256 --dropout 0.2 \
    --batch-size 64 --lr 0.001 --max-steps "$updates" --save-every 500 \
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
for system in attention guided; do
  has_stage "$system" || continue
  guide_fwd=() guide_rev=() extract_methods="argmax shift" updates=$UPDATES
  if [ "$system" = guided ]; then
    updates=$GUIDED_UPDATES
    guide_fwd=(--guided-alignment "$WORK/train.guide.en-fr" --guided-alignment-weight "$GUIDE_WEIGHT")
    guide_rev=(--guided-alignment "$WORK/train.guide.fr-en" --guided-alignment-weight "$GUIDE_WEIGHT")
    extract_methods=argmax
  fi
  train_model "$system.fwd" en fr "$updates" "${guide_fwd[@]}"
  train_model "$system.rev" fr en "$updates" "${guide_rev[@]}"
  runs=""
  for method in $extract_methods; do
    align_model "$system" fwd "$method"
    align_model "$system" rev "$method"
    # The French→English links, read English-French, are the "rev" run.
    hansards_transpose "$WORK/test.$system.rev-$method" "$WORK/test.$system.rev-$method.en-fr"
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
