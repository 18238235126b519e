#!/usr/bin/env bash
# The ablation at convergence (issue 32; its page is docs/ablation.md): every configuration of a
# configurations file (configs.tsv) trained to convergence on one parallel corpus, several seeds
# each, scored with BLEU and chrF on every test set and on all of them pooled, and compared with
# its family's baseline (dot) by heed-score's multi-run comparison: the difference with a 95 %
# interval over seeds and sentences (a hierarchical bootstrap), Holm over the family, TOST at
# ±MARGIN. Multi30k German→English is the default corpus; any other is given by options.
#
#   bash experiments/ablation/run.sh                # the study, resumable: call it again to go on
#   bash experiments/ablation/run.sh --plan         # what it would run, in order, and the hours
#   bash experiments/ablation/run.sh --quick        # a try-out: < 20 minutes, results in WORK
#   BIN=/tmp/heed-ablation-bin nohup nice -n 10 bash experiments/ablation/run.sh --commit &
#
# Protocol (the shared recipe, identical for every configuration): heed-train --hidden HIDDEN
# --embed 256 --dropout 0.3 --label-smoothing 0.1 --clip 5 --batch-size 64 --vocab-size 10000,
# Adam --lr LR (0.001) --lr-schedule cosine --warmup-steps 500 --min-lr 1e-5
# --exponential-smoothing 1e-3, a budget of UPDATES updates (never seconds), validation every
# VALID_EVERY updates (perplexity, and greedy BLEU on the whole validation set: the learning
# curves), early stopping on validation perplexity with --patience PATIENCE, the best model
# kept; greedy decoding of each test set by that model. The learning-rate check: each "core"
# configuration's first seed also at LR × each of LR_FACTORS (0.5 2 4 8); the learning rate with the
# lowest best validation perplexity (the default on a tie) is the one its other seeds use, and
# its runs at that rate are the ones compared (results/lr-choice.tsv). Every other configuration
# runs at a rate so checked (rate_owners): its scorer's, and at another hidden size its scorer's
# as checked again at that size by the scorer's own model there (× TRANSFER_FACTORS, 0.5 2).
#
# The plan at the defaults (configs.tsv; `--plan` prints it for any configurations and
# settings). Cost model: an idle 2-core Zen 5 makes ~340 updates a minute at hidden 512 in bf16
# (docs/benchmarks.md), taken as inversely proportional to the hidden size (~2× at 256; measured
# here 2.3–2.5× on a loaded machine), plus ~1 minute a run for validation and translation; every
# run at its full budget (early stopping only shortens):
#   core, hidden 512: 5 scorers × 5 seeds                25 runs    8.8 h
#   learning-rate check, seed 1, 512: the core scorers   20 runs    7.0 h
#     × 0.5, 2, 4, 8; none, location, local-m, local-p
#     at dot's rate × 0.5, 2                               8 runs    2.8 h
#   none, location, local-m, local-p × 3 seeds, 512       12 runs    4.2 h
#   mechanistic checks, 512: general from the identity,    4 runs    1.4 h
#     scaled-dot with a learned temperature, × 2 seeds
#   decoder arrangements, hidden 256: 3 × 3 × 3 seeds,    30 runs    5.5 h
#     and multi-head in Luong's × 3 seeds
#   the rate carried to 256 checked (×0.5, ×2), seed 1:    8 runs    1.5 h
#   attention-dim sweep, hidden 256: 3 × 3 A × 2 seeds    18 runs    3.3 h
#   one rate: dot at general's rate (0.004) in each        9 runs    1.6 h
#     arrangement × 3 seeds (exploratory, added while
#     the study ran: results/protocol-changes.md)
#   the unscaled projected product at A = 128 at half      2 runs    0.4 h
#     and a quarter of its rate, seed 1 (exploratory,
#     added while the study ran)
#   total at UPDATES=6800                                136 runs   36.4 h
# Everything at hidden 512 would be ~45 h: the cut in the defaults is hidden 256 for the
# arrangements and the sweep (allowed there if it converges: the page's training table says where
# each configuration's validation perplexity bottomed out and whether early stopping ended it).
# That is ~80 % over 20 h; the order makes a shortfall cost the least: the central comparison
# (the core, seed-major, and its learning-rate check) first, then the rest of the Luong table and
# the mechanistic checks that test answer 2's reading (moved before the arrangements on
# 2026-11-29, with 59 runs done and none of either stage started), and what time runs out on is
# the sweep (the one-rate stage moved ahead of it on 2026-12-01), then the unscaled rates
# (`--plan` prints the order). At UPDATES=10200 multiply the training by 1.5.
#
# Options (the environment variable in brackets sets the default):
#   --quick                 a try-out: UPDATES=300, VALID_EVERY=100, WARMUP=50, HIDDEN=256, seeds 1 2,
#                           configurations dot general additive, no learning-rate check, a
#                           small cost grid, B=200; WORK=/tmp/heed-ablation-conv-quick and its
#                           results and page in WORK/results (never in docs/)
#   --plan                  print the plan (order, unit, hidden, options) and its cost; run nothing
#   --train PREFIX          training text PREFIX.SRC, PREFIX.TGT (Multi30k's train)
#   --valid PREFIX          validation text (Multi30k's val)
#   --test NAME=PREFIX      a test set; repeat for several (the first --test replaces the four
#                           Multi30k sets test2016, test2017-flickr, test2017-mscoco, test2018)
#   --src L, --tgt L        language codes, the files' suffixes (de, en)
#   --merges N              joint BPE merges learnt on the training text (8000)
#   --cased                 score and train cased (default: lowercased, as the Multi30k recipes)
#   --configs FILE          the configurations (configs.tsv beside this script; its header gives
#                           the format: a family list "F,G" and "+G" for G's baseline, --lr X
#                           in the options for a rate fixed without a check)
#   --only "ID ..."         only these configurations of the file
#   --seeds "S1 S2 ..."     the seeds, in order; a configuration runs the first n [SEEDS: 1 2 3 4 5]
#   --updates N [UPDATES: 6800]  --valid-every N [VALID_EVERY: 850]  --patience N [PATIENCE: 4]
#   (WARMUP: 500, the cosine schedule's warm-up updates; UPDATES must be above it)
#   --lr X [LR: 0.001]      --lr-factors "F ..." [LR_FACTORS: "0.5 2 4 8"; "" = no check]
#   --transfer-factors "F ..." [TRANSFER_FACTORS: "0.5 2"; "" = none] the check of a rate carried
#                           to another hidden size (rate_owners)
#   --hidden N [HIDDEN: 512] the hidden size of configurations whose hidden column is '-'
#   --bootstrap B [BOOTSTRAP: 1000]  --margin M [MARGIN: 0.5]   the statistics (AER_MARGIN: 1,
#                           the equivalence margin of the AER comparisons, in AER points)
#   --stages "..." [STAGES: "data cost runs probes stats report"; "share" on an idle machine]
#   --commit                after each run, commit RESULTS and REPORT (git commit -- those paths)
# Environment: BIN (build/bin; run the study from a copy of the binaries outside the work tree,
# so that rebuilding changes nothing), DATA (../shared/data/multi30k/raw: the default corpus),
# WORK (/tmp/heed-ablation-conv: data, runs and checkpoints), RESULTS (experiments/ablation/
# results), REPORT (docs/ablation.md), PRECISION (bf16 where the CPU has it, else f32), THREADS
# (2: each run's threads), JOBS (1: runs trained at once; on two cores JOBS=2 THREADS=1 trains
# 1.4× the tokens per second of JOBS=1 THREADS=2, bench/parallel_training.sh, so the study
# finishes sooner; each run's result is the same either way, its minutes are not), MODEL
# ("--embed 256 --dropout 0.3") and VOCAB (10000: --vocab-size), the last two for tests and
# other corpora. SCORE_BIN (BIN): the heed-score and heed-align whose --system comparisons (stage
# stats) give the intervals: they read files, so a newer build's can score runs trained by BIN's.
# CURVE ("dot general additive multi-head"): the configurations whose second seed's run keeps
# its model at every validation, each read as alignment (stage probes). LENGTH_GROUPS (5): the
# groups of the pooled set's sentences by source length compared (stage stats). LONG_FORCE (0.9):
# how far the long inputs made to go on are held from their end (stage probes, long-forced.tsv).
# BEAM (5; 0 or 1: none): the beam of the check that translates the test sets again with beam
# search (stage probes, beam.tsv; every comparison above it is greedy).
#
# Stages, each unit skipped when its result is there, so the driver can be stopped anywhere and
# called again (an interrupted training resumes from its checkpoint). To stop it, send the driver
# SIGTERM (kill PID; Ctrl-C where it runs in the foreground): its trainings save their checkpoints,
# a run being probed or scored finishes that, no run starts, and it exits 143 (130 for Ctrl-C).
#   data    tokenize, learn one joint BPE on the training text, apply it (WORK)
#   cost    heed-bench-attn: the attention's forward+backward time against source length and
#           hidden size (all target steps at once, training's shape), and --stats
#   runs    the plan, in order (JOBS runs at a time, each worker taking the next unfinished
#           run); after each run its probes, the stats and the page
#   probes  the mechanistic checks of every finished run: the saturation statistics of its
#           attention over the first test set (heed-align --soft, force-decoding the reference;
#           saturation.py: entropy, largest weight, score spread, gradient through the softmax),
#           what its scorer's parameters learned (parameters.py: a learned temperature, W_a's
#           distance from a scaled identity),
#           and the long-input stress test: the first test set's consecutive sentences joined
#           into inputs of LONG_MIN–LONG_MAX (30–80) source words, translated whole, against the
#           same sentences translated one by one and joined; and the attention as alignment, in
#           domain: its argmax and shift links on the first test set scored against silver links
#           (heed-align ibm2 both ways over the first test set + train, grow-diag-final-and,
#           experiments/multi30k/silver.sh's functions; silver is not gold)
#   share   attention's share of a training update and of a decoding step, per mechanism of the
#           baseline's family, in the mode training runs (stepped, input feeding: bench/
#           train_phases.cpp, decode_phases.cpp from BENCH, default build/bench); a speed
#           measurement, so not a default stage: run it alone on an idle machine
#   stats   heed-score --system per family, test set, pooled set and each of its LENGTH_GROUPS (5)
#           groups of sentences by source length (RESULTS/compare/); the
#           kept argmax links against the silver links by heed-align score --system, per family
#           and against the diagonal (RESULTS/silver-compare/)
#   report  the page, from RESULTS alone: report.py renders ablation.md.j2 (Debian's
#           python3-jinja2 and python3-matplotlib, checked before the first stage)
#
# Results (RESULTS):
#   settings.tsv      the study's settings       plan.tsv    every planned run, in order
#   skipped.tsv       configurations skipped, and why (heed-train's message)
#   runs.tsv          one row per finished run (a unit is id, seed, lr): status, updates trained,
#                     why it stopped, best validation perplexity and its update, the first update
#                     within 1 % of it, minutes, tokens/s, CPU
#   scores.tsv        BLEU and chrF per run and test set, "pooled" = the test sets concatenated
#   curves/UNIT.tsv   the run's validations (step, val_ppl, val_bleu, lr, elapsed_s, event)
#   hyps/UNIT.SET.txt.gz   its translations        lr-choice.tsv   the learning-rate check
#   compare/FAMILY.SET.tsv heed-score's comparison   cost-*.tsv, stats.tsv, machine.txt, *.svg
#   saturation.tsv    per run, the saturation statistics of its trained attention (saturation.py)
#   parameters.tsv    per run, what its scorer's own parameters learned (parameters.py): a learned
#                     temperature τ and τ/√K; general's W_a as the nearest αI and the share not αI
#   long.tsv          per run, BLEU and chrF of the long inputs translated whole and one by one;
#                     long-set.tsv the long set's inputs; hyps/UNIT.long.txt.gz their translations;
#                     compare/FAMILY.long.tsv the family's comparison on them; long/ID.tsv each
#                     configuration's whole-against-one-by-one comparison (heed-score --system)
#   length-groups.tsv the pooled set's sentences in LENGTH_GROUPS (5) groups by source length;
#                     compare/FAMILY.length-K.tsv the family's comparison on group K
#   long-forced.tsv   per run, BLEU, chrF, length ratio and brevity penalty of the long inputs
#                     translated whole with </s> held back (LONG_FORCE: 0.9 × the training text's
#                     target/source token ratio × the input's tokens); hyps/UNIT.long-forced.txt.gz;
#                     compare/FAMILY.long-forced.tsv the family's comparison on them
#   beam.tsv          per run, BLEU, chrF, length ratio and brevity penalty of the pooled test
#                     sets translated with beam BEAM (GNMT length normalization, α 0.6);
#                     hyps/UNIT.beam.txt.gz; compare/FAMILY.beam.tsv the family's comparison on them,
#                     compare/FAMILY.beam-greedy.tsv on the same runs' greedy translations
#   long-length.tsv   per run, the length ratio (output / reference) and brevity penalty of the
#                     long inputs translated whole and one by one: how much of the loss is length
#   counterpart/ID.tsv  a mechanistic check against its counterpart (the core configuration
#                     of its family with its --attention), pooled set (heed-score --system)
#   share/MECHANISM.MODE.rROUND.tsv  the phase benchmarks' output (train, greedy, beam5), SHARE_ROUNDS
#                     (3) interleaved rounds of SHARE_REPEATS (5) repeats
#   silver.tsv        per run, AER (precision, recall) of its argmax and shift links against the
#                     silver links; silver-baselines.tsv the diagonal baseline against them;
#                     links/UNIT.argmax.txt.gz its argmax links; silver-compare/FAMILY.tsv each
#                     configuration's against its baseline's, silver-compare/diagonal.tsv every
#                     configuration's against the diagonal's (heed-align score --system)
#   silver-curves.tsv the same AER (argmax) at each validation's model of the runs read along
#                     training: each configuration of CURVE, its second seed
{ # Bash reads a script as it runs it: the braces make it read this one whole first, so that the
  # study, days long, is not disturbed when the checkout changes under it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
log() { echo "ablation: $*" >&2; }
die() { local code=$1; shift; echo "ablation: $*" >&2; exit "$code"; }

quick=0 plan_only=0 commit=0 lowercase=1 tests_given=0
DATA=${DATA:-$root/../shared/data/multi30k/raw}
TRAIN=$DATA/train VALID=$DATA/val SRC=de TGT=en MERGES=8000
TESTS=("test2016=$DATA/test_2016_flickr" "test2017-flickr=$DATA/test_2017_flickr"
       "test2017-mscoco=$DATA/test_2017_mscoco" "test2018=$DATA/test_2018_flickr")
CONFIGS=$here/configs.tsv
ONLY=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --plan) plan_only=1 ;;
    --commit) commit=1 ;;
    --cased) lowercase=0 ;;
    --train|--valid|--test|--src|--tgt|--merges|--configs|--only|--seeds|--updates|--valid-every|\
    --patience|--lr|--lr-factors|--transfer-factors|--hidden|--bootstrap|--margin|--stages)
      [ $# -ge 2 ] || die 64 "$1 needs a value"
      case $1 in
        --train) TRAIN=$2 ;;
        --valid) VALID=$2 ;;
        --test)
          [[ $2 == ?*=?* ]] || die 64 "--test takes NAME=PREFIX, not '$2'"
          [ "$tests_given" = 1 ] || TESTS=()
          tests_given=1 TESTS+=("$2") ;;
        --src) SRC=$2 ;;
        --tgt) TGT=$2 ;;
        --merges) MERGES=$2 ;;
        --configs) CONFIGS=$2 ;;
        --only) ONLY=$2 ;;
        --seeds) SEEDS=$2 ;;
        --updates) UPDATES=$2 ;;
        --valid-every) VALID_EVERY=$2 ;;
        --patience) PATIENCE=$2 ;;
        --lr) LR=$2 ;;
        --lr-factors) LR_FACTORS=$2 ;;
        --transfer-factors) TRANSFER_FACTORS=$2 ;;
        --hidden) HIDDEN=$2 ;;
        --bootstrap) BOOTSTRAP=$2 ;;
        --margin) MARGIN=$2 ;;
        --stages) STAGES=$2 ;;
      esac
      shift ;;
    -h|--help) sed -n '2,/^{/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die 64 "unknown option '$1' (see --help)" ;;
  esac
  shift
done

BIN=${BIN:-$root/build/bin}
# Checked first: without it every configuration would be "skipped" for want of a program.
[ -x "$BIN/heed-train" ] ||
  die 69 "$BIN/heed-train: not found (build heed with cmake --build build, or set BIN to a copy of build/bin)"
THREADS=${THREADS:-2}
JOBS=${JOBS:-1}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die 64 "JOBS '$JOBS' is not a count"
source "$root/bench/machine.sh"
PRECISION=${PRECISION:-$(heed_default_precision)}
LR=${LR:-0.001}
STAGES=${STAGES:-data cost runs probes stats report}
LONG_MIN=${LONG_MIN:-30} LONG_MAX=${LONG_MAX:-80} LENGTH_GROUPS=${LENGTH_GROUPS:-5}
LONG_FORCE=${LONG_FORCE:-0.9}
BEAM=${BEAM-5}
MARGIN=${MARGIN:-0.5} AER_MARGIN=${AER_MARGIN:-1}
CURVE=${CURVE-dot general additive multi-head}
# The heed-score and heed-align of the comparisons (--system): BIN's, or a newer build's for a
# study begun with older binaries (scoring reads files; the runs are BIN's).
SCORE_BIN=${SCORE_BIN:-$BIN}
if [ "$quick" = 1 ]; then
  WORK=${WORK:-/tmp/heed-ablation-conv-quick}
  RESULTS=${RESULTS:-$WORK/results}
  REPORT=${REPORT:-$RESULTS/ablation.md}
  UPDATES=${UPDATES:-300} VALID_EVERY=${VALID_EVERY:-100} PATIENCE=${PATIENCE:-4} WARMUP=${WARMUP:-50}
  SEEDS=${SEEDS:-1 2} HIDDEN=${HIDDEN:-256} LR_FACTORS=${LR_FACTORS-} TRANSFER_FACTORS=${TRANSFER_FACTORS-}
  BOOTSTRAP=${BOOTSTRAP:-200} ONLY=${ONLY:-dot general additive}
  cost_lengths=10,50 cost_hidden=128,256 cost_repeats=2
else
  WORK=${WORK:-/tmp/heed-ablation-conv}
  RESULTS=${RESULTS:-$here/results}
  REPORT=${REPORT:-$root/docs/ablation.md}
  UPDATES=${UPDATES:-6800} VALID_EVERY=${VALID_EVERY:-850} PATIENCE=${PATIENCE:-4} WARMUP=${WARMUP:-500}
  SEEDS=${SEEDS:-1 2 3 4 5} HIDDEN=${HIDDEN:-512} LR_FACTORS=${LR_FACTORS-0.5 2 4 8}
  TRANSFER_FACTORS=${TRANSFER_FACTORS-0.5 2}
  BOOTSTRAP=${BOOTSTRAP:-1000}
  cost_lengths=10,20,50,100,200,500 cost_hidden=128:1024:x2 cost_repeats=5
fi
# The shared recipe: experiments/common/multi30k.yaml's defaults (docs/benchmarks.md, "Train to
# convergence"), with early stopping on validation perplexity.
SCHEDULE="--lr-schedule cosine --warmup-steps $WARMUP --min-lr 1e-5 --exponential-smoothing 1e-3"
MODEL=${MODEL:---embed 256 --dropout 0.3}
VOCAB=${VOCAB:-10000}
[[ $LR =~ ^[0-9.]+([eE]-?[0-9]+)?$ ]] || die 64 "--lr '$LR' is not a number"
LR=$(awk -v a="$LR" 'BEGIN { printf "%g", a }')  # as lr_times writes rates: 1e-3 is 0.001
read -r -a seeds <<< "$SEEDS"
read -r -a lr_factors <<< "$LR_FACTORS"
read -r -a transfer_factors <<< "$TRANSFER_FACTORS"
[ "${#seeds[@]}" -gt 0 ] || die 64 "no seeds"
for n in "$UPDATES" "$VALID_EVERY" "$PATIENCE" "$WARMUP" "$HIDDEN" "$BOOTSTRAP" "$MERGES" \
         "$LONG_MIN" "$LONG_MAX" "$LENGTH_GROUPS" "$BEAM"; do
  [[ $n =~ ^[0-9]+$ ]] || die 64 "'$n' is not a whole number"
done
[[ $LONG_FORCE =~ ^[0-9]*\.?[0-9]+$ ]] || die 64 "LONG_FORCE '$LONG_FORCE' is not a number"
[ "$BEAM" -le 1000 ] || die 64 "BEAM $BEAM: at most 1000 (heed-translate's limit)"
for f in "${lr_factors[@]}" "${transfer_factors[@]}"; do
  [[ $f =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v f="$f" 'BEGIN { exit !(f > 0 && f != 1) }' ||
    die 64 "learning-rate factor '$f' is not a positive number other than 1"
done
python=/usr/bin/python3
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
if has_stage report && [ "$plan_only" = 0 ]; then
  [ -x "$python" ] || die 69 "$python not found (apt-get install python3)"
  "$python" "$here/report.py" --check || exit 69
fi

# --- the corpus ---------------------------------------------------------------------------------
test_names=() test_prefixes=()
for t in "${TESTS[@]}"; do
  test_names+=("${t%%=*}") test_prefixes+=("${t#*=}")
done
[ "${#test_names[@]}" -gt 0 ] || die 64 "no test set"
for name in "${test_names[@]}"; do
  # The names of the probes' sets (compare/FAMILY.NAME.tsv) are taken.
  [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ && ! $name =~ ^(pooled|long|long-forced|beam|beam-greedy|length-[0-9]+)$ ]] ||
    die 64 "test set name '$name': letters, digits, '.', '-', '_' only, and not pooled, long, long-forced, beam, beam-greedy or length-K"
done
for prefix in "$TRAIN" "$VALID" "${test_prefixes[@]}"; do
  for l in "$SRC" "$TGT"; do
    [ -f "$prefix.$l" ] || die 66 "$prefix.$l not found (set DATA, or give --train/--valid/--test)"
  done
done
case_tok=() case_score=()
[ "$lowercase" = 1 ] && case_tok=(--lowercase) case_score=(--lowercase)

# --- the plan -----------------------------------------------------------------------------------
[ -f "$CONFIGS" ] || die 66 "$CONFIGS not found"
# Configuration lines: id family stage seeds hidden options (comments and blank lines skipped).
# The rate a configuration's options fix (--lr X; "" for none): it runs at X, with no check.
fixed_lr() { awk '{ for (i = 1; i < NF; i++) if ($i == "--lr") { print $(i + 1); exit } }' <<< "$1"; }
config_lines=$(awk -F'\t' '!/^#/ && NF { print }' "$CONFIGS")
while IFS=$'\t' read -r id family stage n hidden options; do
  [ -n "$id" ] || continue
  [[ $id =~ ^[a-z0-9][a-z0-9.-]*$ ]] || die 65 "$CONFIGS: id '$id': lowercase letters, digits, '.', '-'"
  [[ $n =~ ^[1-9][0-9]*$ ]] || die 65 "$CONFIGS: $id: seeds '$n' is not a count"
  [[ $hidden == - || $hidden =~ ^[1-9][0-9]*$ ]] || die 65 "$CONFIGS: $id: hidden '$hidden'"
  [ -n "$family" ] && [ -n "$stage" ] || die 65 "$CONFIGS: $id: needs a family and a stage"
  [[ ,$family, =~ ^(,\+?[a-z0-9][a-z0-9.-]*)+,$ ]] ||
    die 65 "$CONFIGS: $id: family '$family': names of lowercase letters, digits, '.', '-', separated by ',', each '+' or not"
  if [[ " $options " == *" --lr "* ]]; then
    [ "$stage" != core ] || die 65 "$CONFIGS: $id: a core configuration's rate is its check's: no --lr"
    [[ $(fixed_lr "$options") =~ ^[0-9]*\.?[0-9]+([eE]-?[0-9]+)?$ ]] ||
      die 65 "$CONFIGS: $id: --lr '$(fixed_lr "$options")' is not a number"
  fi
done <<< "$config_lines"
# A configuration's first family is its own (the runs.tsv column, the rates' owners); the others
# it joins. A family's baseline is the configuration that names it with a '+', else the first
# that names it.
marked=$(cut -f2 <<< "$config_lines" | tr ',' '\n' | sed -n 's/^+//p' | sort | uniq -d)
[ -z "$marked" ] || die 65 "$CONFIGS: family '${marked%%$'\n'*}' has two baselines marked '+'"
dups=$(cut -f1 <<< "$config_lines" | sort | uniq -d)
[ -z "$dups" ] || die 65 "$CONFIGS: configurations named twice: $dups"
if [ -n "$ONLY" ]; then
  for id in $ONLY; do
    cut -f1 <<< "$config_lines" | grep -qxF "$id" || die 64 "--only: no configuration '$id' in $CONFIGS"
  done
  config_lines=$(awk -F'\t' -v only=" $ONLY " 'index(only, " " $1 " ")' <<< "$config_lines")
fi

train_command() {  # dir seed lr hidden options...: the heed-train command of one run, in ${cmd[@]}
  local dir=$1 seed=$2 lr=$3 hidden=$4 options=()
  shift 4
  # A rate the options fix is the plan's lr already (plan): heed-train takes --lr once.
  while [ $# -gt 0 ]; do
    if [ "$1" = --lr ] && [ $# -ge 2 ]; then shift 2; continue; fi
    options+=("$1")
    shift
  done
  set -- "${options[@]}"
  local tok_lc=()
  [ "$lowercase" = 1 ] && tok_lc=(--tokenizer-lowercase)
  # shellcheck disable=SC2206
  cmd=("$BIN/heed-train" --train-src "$WORK/train.bpe.$SRC" --train-tgt "$WORK/train.bpe.$TGT"
       --valid-src "$WORK/valid.bpe.$SRC" --valid-tgt "$WORK/valid.bpe.$TGT"
       --bpe "$WORK/codes" --tokenizer-mode aggressive "${tok_lc[@]}"
       --hidden "$hidden" $MODEL --label-smoothing 0.1 --clip 5 --batch-size 64 --vocab-size "$VOCAB"
       --lr "$lr" $SCHEDULE --max-steps "$UPDATES" --valid-every "$VALID_EVERY"
       --save-every "$VALID_EVERY" --patience "$PATIENCE" --valid-metric perplexity
       --valid-bleu-sentences 0 --seed "$seed" --precision "$PRECISION" --threads "$THREADS"
       --metrics-file "$dir/metrics.tsv" -o "$dir" "$@")
}

# A configuration whose options this heed-train refuses (an option or value it does not know)
# is skipped, with heed-train's message; the others are planned.
mkdir -p "$RESULTS"
printf 'id\tmessage\n' > "$RESULTS/skipped.tsv.tmp"
planned_lines=""
while IFS=$'\t' read -r id family stage n hidden options; do
  [ "$hidden" = - ] && hidden=$HIDDEN
  # shellcheck disable=SC2086
  train_command "$WORK/check" 1 "$LR" "$hidden" $options
  if ! message=$("${cmd[@]}" --print-config 2>&1 >/dev/null); then
    message=$(tail -n 1 <<< "$message" | tr '\t' ' ')
    log "skipping $id: $message"
    printf '%s\t%s\n' "$id" "$message" >> "$RESULTS/skipped.tsv.tmp"
    continue
  fi
  planned_lines+=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$id" "$family" "$stage" "$n" "$hidden" "$options")$'\n'
done <<< "$config_lines"
mv "$RESULTS/skipped.tsv.tmp" "$RESULTS/skipped.tsv"
planned_lines=${planned_lines%$'\n'}
[ -n "$planned_lines" ] || die 65 "no configuration left to run"
# The same lines with each configuration's own family alone in field 2 (the first of its list,
# without its '+'): what the rates' owners, the counterparts and the share stage go by.
planned_own=$(awk -F'\t' -v OFS='\t' '{ sub(/,.*/, "", $2); sub(/^\+/, "", $2); print }' <<< "$planned_lines")

lr_times() { awk -v a="$1" -v f="$2" 'BEGIN { printf "%g", a * f }'; }
# Whose learning-rate check sets each configuration's rate (its "owner"), a line per configuration:
# id, owner, for an owner that is not core the core configuration whose chosen rate its check
# starts from, and its counterpart: the core configuration of its family with its --attention,
# if another (general from the identity against general, a learned temperature against
# scaled-dot). A core configuration owns its check (LR and LR × LR_FACTORS). Any other runs at the
# rate of the core configuration with its --attention, its family's if there is one (general from
# the identity at general's; dot-bahdanau at dot's); at another hidden size, at the rate of that
# core configuration's own model (same options) at this size, whose check tries the rate carried
# over × TRANSFER_FACTORS as well, since the best rate moves with the width (dot-luong-h256 for
# dot at 256; without such a model, the rate is carried over unchecked). A configuration with no
# core configuration of its --attention (location) owns a check that starts from its family
# baseline's rate (dot's) and tries it × TRANSFER_FACTORS as well, as a rate carried to another
# width does: a rate tuned for one scorer need not suit another; without TRANSFER_FACTORS it runs
# at the baseline's rate unchecked. So each comparison is made at rates tuned on both sides;
# without any check, at LR. A configuration whose options give --lr runs at that rate, owns no
# check and sets no other's rate (a comparison at one rate for all, where the tuned rates differ).
rate_owners() {
  awk -F'\t' -v OFS='\t' -v H="$HIDDEN" -v check="${#lr_factors[@]}" -v transfer="${#transfer_factors[@]}" '
    function attention(o) {
      o = o " "
      return match(o, /--attention [^ ]+ /) ? substr(o, RSTART + 12, RLENGTH - 13) : "" }
    function counterpart(i,   j) {
      if (att[i] == "") return 0
      for (j = 1; j <= NR; j++) if (j != i && stage[j] == "core" && att[j] == att[i] && fam[j] == fam[i]) return j
      return 0 }
    function core_of(i,   j) {  # its counterpart, else a core configuration of any family with its --attention
      if (counterpart(i)) return counterpart(i)
      if (att[i] == "") return 0
      for (j = 1; j <= NR; j++) if (stage[j] == "core" && att[j] == att[i]) return j
      return 0 }
    function from(i) {  # whose chosen rate the check of its own starts from
      return core_of(i) ? core_of(i) : owner(base[fam[i]]) }
    function owner(i,   c, j) {
      if (!check || fixed[i]) return 0
      if (stage[i] == "core") return i
      c = core_of(i)
      if (!c) return base[fam[i]] == i ? 0 : transfer && owner(base[fam[i]]) ? i : owner(base[fam[i]])
      if (hid[c] == hid[i] || !transfer) return c
      for (j = 1; j <= NR; j++) if (hid[j] == hid[i] && opt[j] == opt[c]) return j
      return c }
    { id[NR] = $1; fam[NR] = $2; stage[NR] = $3; hid[NR] = $5 == "-" ? H : $5; opt[NR] = $6
      att[NR] = attention($6); fixed[NR] = index(" " $6 " ", " --lr ") > 0
      if (!($2 in base)) base[$2] = NR }
    END {
      for (i = 1; i <= NR; i++) {
        o = owner(i); c = counterpart(i)
        print id[i], o ? id[o] : "-", o == i && stage[i] != "core" ? id[from(i)] : "-", c ? id[c] : "-" } }' <<< "$planned_own"
}
rate_table=$(rate_owners)
# Field $2 of configuration $1's line in rate_table: 2 its owner, 3 the core configuration its own
# check starts from, 4 its counterpart; "" for none.
rate_field() { awk -F'\t' -v id="$1" -v n="$2" '$1 == id { if ($n != "-") print $n; exit }' <<< "$rate_table"; }
counterpart_of() { rate_field "$1" 4; }
# plan.tsv: order, id, family, stage, seed, lr, hidden, options. The lr column: a rate; "chosen"
# (its own check decides), "chosen:ID" (ID's check does: rate_owners), "chosen:ID*F" (ID's chosen
# rate × F: the runs of a check that starts from ID's rate).
plan() {
  local order=0 r id family stage n hidden options f stages owner from
  emit() { order=$((order + 1)); printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$order" "$@"; }
  stages=$(cut -f3 <<< "$planned_lines" | awk '!seen[$0]++' | grep -vx core || true)
  for r in $(seq 1 "${#seeds[@]}"); do
    while IFS=$'\t' read -r id family stage n hidden options; do
      [ "$stage" = core ] && [ "$n" -ge "$r" ] || continue
      emit "$id" "$family" "$stage" "${seeds[r - 1]}" "$([ "$(rate_field "$id" 2)" = "$id" ] && [ "$r" -gt 1 ] && echo chosen || echo "$LR")" \
        "$hidden" "$options"
    done <<< "$planned_lines"
    if [ "$r" = 1 ]; then
      while IFS=$'\t' read -r id family stage n hidden options; do
        [ "$stage" = core ] || continue
        for f in "${lr_factors[@]}"; do
          emit "$id" "$family" lr-check "${seeds[0]}" "$(lr_times "$LR" "$f")" "$hidden" "$options"
        done
      done <<< "$planned_lines"
    fi
  done
  for s in $stages; do
    for r in $(seq 1 "${#seeds[@]}"); do
      while IFS=$'\t' read -r id family stage n hidden options; do
        [ "$stage" = "$s" ] && [ "$n" -ge "$r" ] || continue
        owner=$(rate_field "$id" 2) from=$(rate_field "$id" 3) f=$(fixed_lr "$options")
        if [ -n "$f" ]; then f=$(lr_times "$f" 1)
        elif [ -z "$owner" ]; then f=$LR
        elif [ -n "$from" ]; then f=$([ "$r" = 1 ] && echo "chosen:$from*1" || echo chosen)
        else f=chosen:$owner
        fi
        emit "$id" "$family" "$stage" "${seeds[r - 1]}" "$f" "$hidden" "$options"
      done <<< "$planned_lines"
      [ "$r" = 1 ] || continue
      # After the stage's first round, the checks of a rate carried over to another width.
      while IFS=$'\t' read -r id family stage n hidden options; do
        from=$(rate_field "$id" 3)
        [ "$stage" = "$s" ] && [ -n "$from" ] || continue
        for f in "${transfer_factors[@]}"; do
          emit "$id" "$family" lr-check "${seeds[0]}" "chosen:$from*$f" "$hidden" "$options"
        done
      done <<< "$planned_lines"
    done
  done
}
plan_rows=$(plan)
{ printf 'order\tid\tfamily\tstage\tseed\tlr\thidden\toptions\n'; printf '%s\n' "$plan_rows"; } \
  > "$RESULTS/plan.tsv.tmp"
mv "$RESULTS/plan.tsv.tmp" "$RESULTS/plan.tsv"
# The cost: ~340 updates a minute at hidden 512 (an idle 2-core Zen 5, bf16), in inverse
# proportion to the hidden size (a rough guide), one more minute a run for validation and
# translation; every run at its full budget (early stopping only shortens).
plan_hours() {  # [--by-stage]
  awk -F'\t' -v u="$UPDATES" -v by="${1:-}" 'NR > 1 { m = u / (340 * 512 / $7) + 1; total += m; n++
      if (!($4 in runs)) order[++k] = $4; runs[$4]++; mins[$4] += m }
    END { if (by) for (i = 1; i <= k; i++)
            printf "  %-12s %3d runs  %5.1f h\n", order[i], runs[order[i]], mins[order[i]] / 60
          printf "%d runs × %d updates ≈ %.1f hours (training, validation, translation; " \
                 "one 2-thread run at a time on an idle machine; JOBS=2 THREADS=1 about 1.4× " \
                 "sooner)\n", n, u, total / 60 }' \
    "$RESULTS/plan.tsv"
}
# What is left at the pace of the runs that finished: per hidden size, the median minutes of its
# last five runs (a size with none yet: the nearest measured size's, in proportion to the size),
# so that the figure follows the machine and its load rather than the constant above.
remaining_hours() {
  [ -s "$RESULTS/runs.tsv" ] || return 0
  awk -F'\t' '
    function median(h,   n, a, i, j, t) {
      n = 0
      for (i = (count[h] > 5 ? count[h] - 4 : 1); i <= count[h]; i++) a[++n] = mins[h, i]
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    FNR == 1 { next }
    FILENAME ~ /runs.tsv$/ { if ($13 != "") { mins[$5, ++count[$5]] = $13 }; done[$5]++; next }
    { planned[$7]++ }
    END {
      for (h in planned) {
        left = planned[h] - done[h]
        if (left <= 0) continue
        if (h in count) { m = median(h); how = how sprintf("%s%g min at hidden %s", how ? "; " : "", m, h) }
        else {
          best = ""
          for (g in count) if (best == "" || (g - h) ^ 2 < (best - h) ^ 2) best = g
          if (best == "") continue
          m = median(best) * h / best
          how = how sprintf("%s%.0f min at hidden %s (from %s)", how ? "; " : "", m, h, best)
        }
        runs += left; total += left * m }
      if (runs) printf "%d run%s left ≈ %.1f hours of one worker at the pace of the last finished runs (median of the last five: %s)\n", runs, (runs > 1 ? "s" : ""), total / 60, how }' \
    "$RESULTS/runs.tsv" "$RESULTS/plan.tsv"
}
if [ "$plan_only" = 1 ]; then
  column -t -s $'\t' "$RESULTS/plan.tsv"
  if [ "$(wc -l < "$RESULTS/skipped.tsv")" -gt 1 ]; then
    printf '\nskipped:\n'
    tail -n +2 "$RESULTS/skipped.tsv"
  fi
  echo
  plan_hours --by-stage
  remaining_hours
  exit 0
fi
log "plan: $(plan_hours)"
left=$(remaining_hours)
[ -z "$left" ] || log "$left"

# Paths for the page: relative to the checkout when they are beside it (../shared/…).
shown() {
  local rel
  rel=$(realpath -m --relative-to="$root" "$1")
  case $rel in ../../*) realpath -m "$1" ;; *) echo "$rel" ;; esac
}
{
  printf 'corpus\t%s\n' "$(shown "$TRAIN")"
  printf 'valid\t%s\n' "$(shown "$VALID")"
  printf 'src\t%s\ntgt\t%s\nmerges\t%s\nlowercase\t%s\n' "$SRC" "$TGT" "$MERGES" "$lowercase"
  for i in "${!test_names[@]}"; do
    printf 'test\t%s\t%s\t%s\n' "${test_names[i]}" "$(wc -l < "${test_prefixes[i]}.$SRC")" \
      "$(shown "${test_prefixes[i]}")"
  done
  printf 'updates\t%s\nvalid_every\t%s\npatience\t%s\nlr\t%s\nlr_factors\t%s\ntransfer_factors\t%s\n' \
    "$UPDATES" "$VALID_EVERY" "$PATIENCE" "$LR" "$LR_FACTORS" "$TRANSFER_FACTORS"
  printf 'schedule\t%s\nmodel\t%s\nhidden\t%s\nseeds\t%s\n' "$SCHEDULE" "$MODEL" "$HIDDEN" "$SEEDS"
  printf 'precision\t%s\nthreads\t%s\njobs\t%s\nbootstrap\t%s\nmargin\t%s\naer_margin\t%s\nquick\t%s\n' \
    "$PRECISION" "$THREADS" "$JOBS" "$BOOTSTRAP" "$MARGIN" "$AER_MARGIN" "$quick"
  printf 'curve\t%s\nplanned_runs\t%s\n' "$CURVE" "$(($(wc -l < "$RESULTS/plan.tsv") - 1))"
  printf 'long_min\t%s\nlong_max\t%s\nlong_force\t%s\nlength_groups\t%s\nbeam\t%s\n' "$LONG_MIN" \
    "$LONG_MAX" "$LONG_FORCE" "$LENGTH_GROUPS" "$BEAM"
  # How long the training sources are, beside the long inputs: sentences, the longest (words),
  # and how many have LONG_MIN words or more.
  awk -v lo="$LONG_MIN" '{ if (NF > longest) longest = NF; if (NF >= lo) long++ }
    END { printf "train_sentences\t%d\ntrain_longest\t%d\ntrain_long\t%d\n", NR, longest, long }' "$TRAIN.$SRC"
} > "$RESULTS/settings.tsv"

# --- data ---------------------------------------------------------------------------------------
prepare() {
  local key l split prefix
  key=$(printf '%s\n' "$TRAIN" "$VALID" "$SRC" "$TGT" "$MERGES" "$lowercase")
  mkdir -p "$WORK"
  if [ -f "$WORK/codes" ]; then
    [ "$(cat "$WORK/data.key" 2>/dev/null)" = "$key" ] ||
      die 64 "$WORK holds another corpus's data (see $WORK/data.key): set WORK"
    return 0
  fi
  log "data: tokenizing, learning $MERGES BPE merges"
  local tok=(--mode aggressive "${case_tok[@]}" --threads "$THREADS")
  for l in "$SRC" "$TGT"; do
    "$BIN/heed-tokenize" "${tok[@]}" -i "$TRAIN.$l" -o "$WORK/train.tok.$l"
  done
  "$BIN/heed-tokenize" learn-bpe --merges "$MERGES" -i "$WORK/train.tok.$SRC" \
    -i "$WORK/train.tok.$TGT" -o "$WORK/codes.tmp"
  for split in train valid; do
    prefix=$TRAIN
    [ "$split" = valid ] && prefix=$VALID
    for l in "$SRC" "$TGT"; do
      "$BIN/heed-tokenize" "${tok[@]}" --bpe "$WORK/codes.tmp" -i "$prefix.$l" -o "$WORK/$split.bpe.$l"
    done
  done
  printf '%s\n' "$key" > "$WORK/data.key"
  mv "$WORK/codes.tmp" "$WORK/codes"  # last: its presence means everything above is complete
}
has_stage data || has_stage runs && prepare
# The pooled test set: every test set's reference, concatenated in order.
mkdir -p "$WORK"
for i in "${!test_names[@]}"; do cat "${test_prefixes[i]}.$TGT"; done > "$WORK/pooled.ref"
# The long inputs: the first test set's consecutive sentences joined (source and reference alike,
# with a space) until the source has LONG_MIN words; a group past LONG_MAX words, and the tail
# short of LONG_MIN, are left out. long-set.tsv: per long input, its first sentence (1-based),
# how many it joins and its source words.
long_set() {
  paste -d '\t' "${test_prefixes[0]}.$SRC" "${test_prefixes[0]}.$TGT" |
    awk -F'\t' -v lo="$LONG_MIN" -v hi="$LONG_MAX" -v out="$WORK/long" '
      BEGIN { print "first\tsentences\twords" }
      { if (n == 0) first = NR
        src = src (n ? " " : "") $1; ref = ref (n ? " " : "") $2; n++; words += split($1, w, " ")
        if (words >= lo) {
          if (words <= hi) { print src > (out ".src"); print ref > (out ".ref"); print first "\t" n "\t" words }
          src = ref = ""; n = words = 0 } }' > "$WORK/long-set.tsv"
}
[ "$LONG_MIN" -ge 1 ] && [ "$LONG_MAX" -ge "$LONG_MIN" ] || die 64 "LONG_MIN/LONG_MAX: 1 ≤ min ≤ max"
rm -f "$WORK/long.src" "$WORK/long.ref"
long_set
long_ok=1
if [ "$(wc -l < "$WORK/long-set.tsv")" -le 1 ]; then
  long_ok=0
  log "no long inputs: no run of ${test_prefixes[0]}.$SRC's sentences makes $LONG_MIN–$LONG_MAX words"
fi
cp "$WORK/long-set.tsv" "$RESULTS/long-set.tsv"
# The pooled set's sentences by source length (words): LENGTH_GROUPS groups of about equal size,
# cut at the quantiles of the lengths, a length never split between two groups (ties can leave
# fewer groups). WORK/length-K.lines: the pooled set's line numbers in group K, WORK/length-K.ref
# their references. length-groups.tsv: per group, its shortest and longest source and size.
[ "$LENGTH_GROUPS" -ge 1 ] || die 64 "LENGTH_GROUPS: at least 1"
rm -f "$WORK"/length-*.lines "$WORK"/length-*.ref
for i in "${!test_names[@]}"; do cat "${test_prefixes[i]}.$SRC"; done | awk '{ print NF }' |
  paste -d '\t' - "$WORK/pooled.ref" |
  awk -F'\t' -v groups="$LENGTH_GROUPS" -v out="$WORK/length" '
    { words[NR] = $1; ref[NR] = substr($0, length($1) + 2); count[$1]++; if ($1 > longest) longest = $1 }
    END {
      print "group\tshortest\tlongest\tsentences"
      k = 1; total = 0; before = 0; shortest = -1
      for (w = 0; w <= longest; w++) {
        if (!(w in count)) continue
        # A group ends before this length when that leaves it nearer its share than taking it.
        target = k * NR / groups
        if (k < groups && total > before && total + count[w] - target > target - total) {
          print k "\t" shortest "\t" last "\t" total - before; before = total; k++; shortest = -1 }
        if (shortest < 0) shortest = w
        total += count[w]; group[w] = k; last = w
      }
      if (shortest >= 0) print k "\t" shortest "\t" longest "\t" total - before
      for (i = 1; i <= NR; i++) {
        print i > (out "-" group[words[i]] ".lines"); print ref[i] > (out "-" group[words[i]] ".ref") }
    }' > "$RESULTS/length-groups.tsv"
length_names=$(awk 'NR > 1 { printf "length-%s ", $1 }' "$RESULTS/length-groups.tsv")
# The long inputs made to go on: each model translates them again with </s> not allowed before
# LONG_FORCE (0.9) × the training text's target/source token ratio × the input's source tokens
# (the study's tokenizer and BPE), so that a model that would stop after one sentence must say
# more, and what it says shows whether its attention moves on through the input. heed-translate's
# --min-length is one number a call: the inputs go in groups by that least length, rounded down
# to a multiple of 4, one call a group. WORK/long.min-length: per long input, its least length.
if [ "$long_ok" = 1 ] && [ -f "$WORK/codes" ]; then
  "$BIN/heed-tokenize" --mode aggressive "${case_tok[@]}" --bpe "$WORK/codes" -i "$WORK/long.src" -q |
    awk -v f="$LONG_FORCE" -v r="$(awk 'FNR == NR { s += NF; next } { t += NF } END { print t / s }' \
        "$WORK/train.bpe.$SRC" "$WORK/train.bpe.$TGT")" '{ m = int(f * r * NF); print m - m % 4 }' \
    > "$WORK/long.min-length"
fi

# --- cost ---------------------------------------------------------------------------------------
# Forward+backward of every target step at once (training's shape), batch 64, in the study's
# precision; the files say the mode, pass and precision in their columns, and the page too.
if has_stage cost; then
  mechanisms=dot,scaled-dot,general,additive,multi-head,local-m,local-p
  bench=("$BIN/heed-bench-attn" --mode all-steps --pass forward-backward --threads "$THREADS"
         --batch 64 --warmup 1 --repeats "$cost_repeats" --format tsv)
  if [ ! -s "$RESULTS/cost-length.tsv" ]; then
    log "cost against source length ($cost_lengths), hidden 512"
    "${bench[@]}" --attention "$mechanisms" --precision "$PRECISION" --hidden 512 \
      --source-length "$cost_lengths" --target-length 20 --plot "$RESULTS/cost-length.svg" \
      > "$WORK/cost-length.tsv"
    mv "$WORK/cost-length.tsv" "$RESULTS/cost-length.tsv"
  fi
  if [ ! -s "$RESULTS/cost-hidden.tsv" ]; then
    log "cost against hidden size ($cost_hidden), source length 20"
    "${bench[@]}" --attention dot,scaled-dot,general,additive --precision "$PRECISION" \
      --hidden "$cost_hidden" --source-length 20 --target-length 20 > "$WORK/cost-hidden.tsv"
    mv "$WORK/cost-hidden.tsv" "$RESULTS/cost-hidden.tsv"
  fi
  if [ ! -s "$RESULTS/stats.tsv" ]; then
    log "saturation statistics (--stats)"
    "$BIN/heed-bench-attn" --stats --source-length 20 --format tsv > "$WORK/stats.tsv"
    mv "$WORK/stats.tsv" "$RESULTS/stats.tsv"
  fi
fi
if [ ! -s "$RESULTS/machine.txt" ]; then
  {
    heed_machine_report
    grep -E '^# (isa|onednn):' "$RESULTS/cost-length.tsv" 2>/dev/null || true
  } > "$RESULTS/machine.txt"
fi

# --- runs ---------------------------------------------------------------------------------------
runs_header='id\tfamily\tseed\tlr\thidden\tstatus\tsteps\tstop\tbest_val_ppl\tbest_step'
runs_header+='\tconverged_step\tbest_val_bleu\tminutes\ttok_per_s\tcpu'
[ -s "$RESULTS/runs.tsv" ] || printf "$runs_header\n" > "$RESULTS/runs.tsv"
[ -s "$RESULTS/scores.tsv" ] || printf 'id\tseed\tlr\ttest\tbleu\tchrf\n' > "$RESULTS/scores.tsv"
mkdir -p "$RESULTS/hyps" "$RESULTS/curves" "$RESULTS/compare"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/\t/ /g')

run_row() {  # id seed lr: the run's row of runs.tsv, if finished
  awk -F'\t' -v id="$1" -v s="$2" -v lr="$3" '$1 == id && $3 == s && $4 == lr' "$RESULTS/runs.tsv"
}
# heed-score prints sacreBLEU's lines: "BLEU|<signature> = 34.56 …", "chrF2|<signature> = 60.12".
score_of() { sed -n "s/^$1|[^=]* = \([0-9.]*\).*/\1/p"; }
# Its BLEU lines end "(BP = 0.987 ratio = 0.987 hyp_len = …)": each one's length ratio and brevity
# penalty, a tab-separated pair per line; fails when a BLEU line has none, or there is no BLEU line.
length_of() {
  awk -v OFS='\t' '/BLEU\|/ { if (!match($0, /BP = [0-9.]+ ratio = [0-9.]+/)) exit 1
                              split(substr($0, RSTART, RLENGTH), f, " "); print f[6], f[3]; n++ }
                    END { if (!n) exit 1 }'
}
score_row() {  # heed-score's output on stdin: BLEU, chrF, length ratio and brevity penalty, tab-separated
  local out length
  out=$(cat)
  length=$(length_of <<< "$out") || return 1
  printf '%s\t%s\t%s' "$(score_of BLEU <<< "$out")" "$(score_of chrF2 <<< "$out")" "$length"
}

# Each learning-rate check: its owner's first-seed runs at BASE × each factor (a core
# configuration: BASE = LR, factors 1 and LR_FACTORS; one whose rate is carried over to another
# width: BASE = the rate chosen for the core configuration it starts from, once that is chosen,
# factors 1 and TRANSFER_FACTORS). The chosen rate is the one of the lowest best validation
# perplexity (BASE on a tie, and while the check is unfinished). Writes RESULTS/lr-choice.tsv:
# id, base, factor, lr, best_val_ppl ("" while unfinished, "failed"), chosen.
choose_lr() {
  local pass id owner from base f lr row ppl factors
  printf 'id\tbase\tfactor\tlr\tbest_val_ppl\tchosen\n' > "$RESULTS/lr-choice.tsv.tmp"
  # The core configurations' checks first: the others start from their choices.
  for pass in core carried; do
    while IFS=$'\t' read -r id owner from _; do
      [ "$owner" = "$id" ] || continue
      if [ "$pass" = core ]; then
        [ "$from" = - ] || continue
        base=$LR factors=("${lr_factors[@]}")
      else
        [ "$from" != - ] || continue
        base=$(check_choice "$RESULTS/lr-choice.tsv.tmp" "$from")
        [ -n "$base" ] || continue
        factors=("${transfer_factors[@]}")
      fi
      for f in 1 "${factors[@]}"; do
        lr=$(lr_times "$base" "$f")
        row=$(run_row "$id" "${seeds[0]}" "$lr")
        # A run that failed (diverged) is in the check, and loses it; one not finished yet has no
        # perplexity (an empty row: a here-string would still give awk one empty line).
        ppl=""
        [ -z "$row" ] || ppl=$(awk -F'\t' '{ print $6 == "ok" && $9 != "" ? $9 : "failed" }' <<< "$row")
        printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$base" "$f" "$lr" "$ppl"
      done | awk -F'\t' -v OFS='\t' '{ row[NR] = $0; ppl[NR] = $5; if ($5 == "") missing = 1 }
        END { best = 1
              for (i = 2; i <= NR; i++)
                if (!missing && ppl[i] != "failed" && (ppl[best] == "failed" || ppl[i] + 0 < ppl[best] + 0)) best = i
              for (i = 1; i <= NR; i++) print row[i], (i == best ? "yes" : "no") }' \
        >> "$RESULTS/lr-choice.tsv.tmp"
    done <<< "$rate_table"
  done
  mv "$RESULTS/lr-choice.tsv.tmp" "$RESULTS/lr-choice.tsv"
}
# The rate configuration $2's check chose, by lr-choice FILE $1; "" while the check is unfinished.
check_choice() {
  awk -F'\t' -v id="$2" '$1 == id { n++; if ($5 == "") open = 1; if ($6 == "yes") lr = $4 }
    END { if (n && !open) print lr }' "$1"
}
# The rate configuration $1 runs and is compared at: the one its options fix, else its owner's
# choice in lr-choice.tsv (plan.tsv names the owner for report.py); LR until the owner's check has
# rows, and without an owner.
compared_lr() {
  local owner lr
  owner=$(rate_field "$1" 2)
  lr=$(fixed_lr "$(awk -F'\t' -v id="$1" '$1 == id { print $6 }' <<< "$planned_lines")")
  if [ -n "$lr" ]; then lr_times "$lr" 1; return; fi
  [ -z "$owner" ] || lr=$(awk -F'\t' -v id="$owner" '$1 == id && $6 == "yes" { print $4; exit }' \
    "$RESULTS/lr-choice.tsv")
  echo "${lr:-$LR}"
}
# The units compared for configuration $1: its finished (ok) runs at that rate, one per line.
# The runs whose attention is read along training (stage probes, silver-curves.tsv): of each
# configuration in CURVE, the run of its second seed, the first at its compared rate (the first
# seed's runs are the learning-rate check's, trained before the rate was chosen).
curve_unit() {  # id seed
  [[ " $CURVE " == *" $1 "* ]] && [ "$2" = "${seeds[1]:-${seeds[0]}}" ]
}
compared_units() {
  awk -F'\t' -v id="$1" -v lr="$(compared_lr "$1")" \
    '$1 == id && $4 == lr && $6 == "ok" { print $1 "-s" $3 "-lr" $4 }' "$RESULTS/runs.tsv"
}

run_one() {  # id family seed lr hidden options...
  local id=$1 family=$2 seed=$3 lr=$4 hidden=$5
  shift 5
  local unit=$id-s$seed-lr$lr
  local dir=$WORK/runs/$unit status=ok keep=()
  mkdir -p "$dir"
  # A run read along training keeps the model of every validation (saving changes no numbers).
  curve_unit "$id" "$seed" && keep=(--keep-models $((UPDATES / VALID_EVERY)))
  train_command "$dir" "$seed" "$lr" "$hidden" "$@" "${keep[@]}"
  if [ ! -f "$dir/trained" ]; then
    local resume=()
    if [ -f "$dir/checkpoint.heed" ]; then
      resume=(--resume)
    else
      rm -f "$dir/metrics.tsv"
    fi
    log "$unit: training (${UPDATES} updates at most, hidden $hidden)${resume:+, resumed}"
    local code=0
    "${cmd[@]}" "${resume[@]}" -q || code=$?
    case $code in
      0) touch "$dir/trained" ;;
      130|143|75) die "$code" "$unit: heed-train stopped (exit $code); call the driver again to resume" ;;
      *) status=failed-$code; log "$unit: heed-train failed (exit $code); recorded, the study goes on" ;;
    esac
  fi
  # From here on the run writes the shared result files: one run at a time (the worker's lock,
  # released after its probes and the page).
  flock 9
  # The validations: step, val_ppl, val_bleu, lr, elapsed_s, event (a resumed run may log a
  # step twice: the last kept).
  local curve=$RESULTS/curves/$unit.tsv
  awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["val_ppl"] != "" { if (!($1 in row)) order[++n] = $1
      row[$1] = $1 OFS $c["val_ppl"] OFS $c["val_bleu"] OFS $c["lr"] OFS $c["elapsed_s"] OFS $c["event"] }
    END { print "step", "val_ppl", "val_bleu", "lr", "elapsed_s", "event"
          for (i = 1; i <= n; i++) print row[order[i]] }' "$dir/metrics.tsv" 2>/dev/null > "$curve.tmp" ||
    printf 'step\tval_ppl\tval_bleu\tlr\telapsed_s\tevent\n' > "$curve.tmp"
  mv "$curve.tmp" "$curve"
  if [ "$status" = ok ]; then
    local i name hyp scores pooled=$dir/pooled.hyp
    : > "$pooled.tmp"
    for i in "${!test_names[@]}"; do
      name=${test_names[i]} hyp=$dir/${test_names[i]}.hyp
      [ -s "$hyp" ] || "$BIN/heed-translate" -m "$dir/model.heed" --beam-size 1 \
        --precision "$PRECISION" --threads "$THREADS" -i "${test_prefixes[i]}.$SRC" -o "$hyp" -q
      gzip -9nc "$hyp" > "$RESULTS/hyps/$unit.$name.txt.gz"
      cat "$hyp" >> "$pooled.tmp"
    done
    mv "$pooled.tmp" "$pooled"
    awk -F'\t' -v id="$id" -v s="$seed" -v lr="$lr" '!($1 == id && $2 == s && $3 == lr)' \
      "$RESULTS/scores.tsv" > "$RESULTS/scores.tsv.tmp"
    for i in "${!test_names[@]}" pooled; do
      if [ "$i" = pooled ]; then
        name=pooled hyp=$pooled ref=$WORK/pooled.ref
      else
        name=${test_names[i]} hyp=$dir/${test_names[i]}.hyp ref=${test_prefixes[i]}.$TGT
      fi
      scores=$("$BIN/heed-score" "${case_score[@]}" -r "$ref" --hyp "$hyp")
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$name" "$(score_of BLEU <<< "$scores")" \
        "$(score_of chrF2 <<< "$scores")" >> "$RESULTS/scores.tsv.tmp"
    done
    mv "$RESULTS/scores.tsv.tmp" "$RESULTS/scores.tsv"
  fi
  # The row: training as the metrics file tells it (minutes are heed-train's own, carried across
  # a resume; they grow with the machine's load, the updates do not).
  local row
  row=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { steps = $1; secs = $c["elapsed_s"]; if ($c["event"] ~ /early-stop/) stop = "early-stop"
      if ($c["tokens_per_s"] + 0 > 0) tok[++nt] = $c["tokens_per_s"] + 0
      if ($c["val_ppl"] != "") { ppl[$1] = $c["val_ppl"] + 0; bleu[$1] = $c["val_bleu"]; if (!($1 in seen)) { seen[$1] = 1; at[++nv] = $1 } } }
    END { best = ""
          for (i = 1; i <= nv; i++) if (best == "" || ppl[at[i]] < ppl[best]) best = at[i]
          conv = ""
          for (i = 1; i <= nv && best != ""; i++) if (conv == "" && ppl[at[i]] <= 1.01 * ppl[best]) conv = at[i]
          # the median of the logged speeds
          for (i = 1; i <= nt; i++) for (j = i + 1; j <= nt; j++) if (tok[j] < tok[i]) { t = tok[i]; tok[i] = tok[j]; tok[j] = t }
          printf "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s", steps, stop == "" ? "budget" : stop,
            best == "" ? "" : ppl[best], best, conv, best == "" ? "" : bleu[best], secs / 60,
            nt ? tok[int((nt + 1) / 2)] : "" }' "$dir/metrics.tsv" 2>/dev/null) ||
    row=$'\t\t\t\t\t\t\t'
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$family" "$seed" "$lr" "$hidden" "$status" "$row" \
    "$cpu" >> "$RESULTS/runs.tsv"
  log "$unit: $status, $(awk -F'\t' -v id="$id" -v s="$seed" -v lr="$lr" \
    '$1 == id && $2 == s && $3 == lr && $4 == "pooled" { print "pooled BLEU " $5 ", chrF " $6 }' \
    "$RESULTS/scores.tsv")"
}

# --- probes -------------------------------------------------------------------------------------
# Silver links of the first test set, once (WORK/silver/test.words: zero-based links between the
# raw text's words, as heed-align extract writes them), and the diagonal baseline against them.
source "$root/experiments/multi30k/silver.sh"  # ibm2_gdfa, multi30k_lift_links, the diagonal
silver_links() {
  local s=$WORK/silver l
  [ -s "$s/test.words" ] && return 0
  mkdir -p "$s"
  log "silver links: heed-align ibm2 both ways over ${test_names[0]} + train, grow-diag-final-and"
  for l in "$SRC" "$TGT"; do
    "$BIN/heed-tokenize" --mode aggressive "${case_tok[@]}" --threads "$THREADS" \
      -i "${test_prefixes[0]}.$l" -o "$s/test.tok.$l"
    cat "$s/test.tok.$l" "$WORK/train.tok.$l" | sed 's/￭//g' > "$s/corpus.$l"
  done
  ibm2_gdfa "$BIN" "$s/corpus.$SRC" "$s/corpus.$TGT" "$s/links" "$THREADS"
  head -n "$(wc -l < "$s/test.tok.$SRC")" "$s/links" > "$s/test"
  multi30k_lift_links "$s/test.tok.$SRC" "$s/test.tok.$TGT" "$s/test" > "$s/test.words.tmp"
  mv "$s/test.words.tmp" "$s/test.words"
}
aer_columns='aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences'
if has_stage probes; then
  silver_links
  if [ ! -s "$RESULTS/silver-baselines.tsv" ]; then
    { printf "baseline\t$aer_columns\n"
      printf 'diagonal\t%s\n' "$(multi30k_silver_diagonal "$BIN" "${test_prefixes[0]}.$SRC" \
        "${test_prefixes[0]}.$TGT" "$WORK/silver/test.words" "$WORK/silver/diagonal")"
    } > "$RESULTS/silver-baselines.tsv.tmp"
    mv "$RESULTS/silver-baselines.tsv.tmp" "$RESULTS/silver-baselines.tsv"
  fi
fi
sat_columns='rows\tsource_median\tentropy\tentropy_fraction\tmax_weight\tscore_sd\tzero_rows'
sat_columns+='\tgrad_scores_mean\tgrad_scores_median'
[ -s "$RESULTS/saturation.tsv" ] || printf "id\tseed\tlr\t$sat_columns\n" > "$RESULTS/saturation.tsv"
param_columns='temperature\tscale\tidentity\tresidual'
[ -s "$RESULTS/parameters.tsv" ] || printf "id\tseed\tlr\t$param_columns\n" > "$RESULTS/parameters.tsv"
[ -s "$RESULTS/silver.tsv" ] ||
  printf 'id\tseed\tlr\treading\t%b\n' "$aer_columns" > "$RESULTS/silver.tsv"
[ -s "$RESULTS/silver-curves.tsv" ] ||
  printf 'id\tseed\tlr\tstep\t%b\n' "$aer_columns" > "$RESULTS/silver-curves.tsv"
[ -s "$RESULTS/long.tsv" ] ||
  printf 'id\tseed\tlr\tbleu_long\tchrf_long\tbleu_joined\tchrf_joined\n' > "$RESULTS/long.tsv"
[ -s "$RESULTS/long-length.tsv" ] ||
  printf 'id\tseed\tlr\tratio_long\tbp_long\tratio_joined\tbp_joined\n' > "$RESULTS/long-length.tsv"
[ -s "$RESULTS/long-forced.tsv" ] ||
  printf 'id\tseed\tlr\tbleu\tchrf\tratio\tbp\n' > "$RESULTS/long-forced.tsv"
[ -s "$RESULTS/beam.tsv" ] ||
  printf 'id\tseed\tlr\tbeam\tbleu\tchrf\tratio\tbp\n' > "$RESULTS/beam.tsv"
# A row of dashes, one per column of COLUMNS (tab-separated names, \t written as in printf).
dash_row() {  # COLUMNS
  printf -- "$1\n" | awk -F'\t' -v OFS='\t' '{ for (i = 1; i <= NF; i++) $i = "-"; print }'
}
silver_row() {  # id seed lr reading: the scores of its row of silver.tsv (empty: none)
  awk -F'\t' -v OFS='\t' -v id="$1" -v s="$2" -v lr="$3" -v r="$4" \
    '$1 == id && $2 == s && $3 == lr && $4 == r { $1 = $2 = $3 = $4 = ""; sub(/^\t+/, ""); print }' \
    "$RESULTS/silver.tsv"
}
silver_score() {  # LINKS: heed-align score's row for LINKS (the first test set's) against the silver links
  "$BIN/heed-align" score --gold "$WORK/silver/test.words" --test "$1" | tail -n 1
}
# MODEL's links of the first test set (heed-align extract with OPTIONS) into OUT, scored against
# the silver links: the row, or dashes when heed-align cannot read the model (its reason in
# WORK/probe.err).
silver_reading() {  # MODEL OUT [OPTIONS...]
  local model=$1 out=$2
  shift 2
  if "$BIN/heed-align" -m "$model" "$@" --threads "$THREADS" -q "${test_prefixes[0]}.$SRC" \
       "${test_prefixes[0]}.$TGT" -o "$out" 2> "$WORK/probe.err"; then
    silver_score "$out"
  else
    dash_row "$aer_columns"
  fi
}
has_row() {  # file id seed lr [reading]
  awk -F'\t' -v id="$2" -v s="$3" -v lr="$4" -v r="${5:-}" \
    '$1 == id && $2 == s && $3 == lr && (r == "" || $4 == r) { f = 1 } END { exit !f }' "$1"
}
# The unit's translations of the first test set, joined as the long inputs join the sentences.
joined_of() {  # unit
  gzip -dc "$RESULTS/hyps/$1.${test_names[0]}.txt.gz" |
    awk -F'\t' 'NR == FNR { if (FNR > 1) { first[++n] = $1; count[n] = $2 }; next }
      { line[FNR] = $0 }
      END { for (i = 1; i <= n; i++) { out = ""
              for (j = 0; j < count[i]; j++) out = out (j ? " " : "") line[first[i] + j]
              print out } }' "$RESULTS/long-set.tsv" -
}
# How much of the long inputs' BLEU is length: heed-score's length ratio (output / reference) and
# brevity penalty of the whole and the one-by-one translations, a row of long-length.tsv. From
# the kept translations, so also for a run whose model is gone.
long_length() {  # id seed lr
  local id=$1 seed=$2 lr=$3 unit=$1-s$2-lr$3 lengths
  if [ "$long_ok" = 1 ] && [ -f "$RESULTS/hyps/$unit.long.txt.gz" ] &&
     ! has_row "$RESULTS/long-length.tsv" "$id" "$seed" "$lr"; then
    gzip -dc "$RESULTS/hyps/$unit.long.txt.gz" > "$WORK/length.whole"
    joined_of "$unit" > "$WORK/length.apart"
    lengths=$("$BIN/heed-score" "${case_score[@]}" -m bleu -r "$WORK/long.ref" \
                --hyp "$WORK/length.whole" --hyp "$WORK/length.apart" | length_of) &&
      [ "$(wc -l <<< "$lengths")" = 2 ] || die 70 "$unit: no brevity penalty in heed-score's output"
    printf '%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$(paste -sd '\t' <<< "$lengths")" \
      >> "$RESULTS/long-length.tsv"
    rm -f "$WORK/length.whole" "$WORK/length.apart"
  fi
}
probe_unit() {  # id seed lr: the probes of a finished run, each skipped when its row is there
  local id=$1 seed=$2 lr=$3
  local unit=$id-s$seed-lr$lr dir=$WORK/runs/$id-s$seed-lr$lr stats reading row kept decoded=0
  local argmax_row=""
  local links=$RESULTS/links/$unit.argmax.txt.gz
  [ -f "$dir/model.heed" ] && [ -f "$RESULTS/hyps/$unit.${test_names[0]}.txt.gz" ] ||
    { long_length "$id" "$seed" "$lr"; return 0; }
  kept=$(silver_row "$id" "$seed" "$lr" argmax)
  # One force-decode gives the attention matrices (the saturation statistics) and the argmax links
  # (the silver AER, and the links kept for the comparisons). f32, whatever the study's precision:
  # the weights as the model defines them.
  if ! has_row "$RESULTS/saturation.tsv" "$id" "$seed" "$lr" || [ -z "$kept" ] ||
     { [ ! -f "$links" ] && [ "${kept%%$'\t'*}" != - ]; }; then
    "$BIN/heed-align" -m "$dir/model.heed" --threads "$THREADS" --soft "$WORK/probe.jsonl" -q \
      "${test_prefixes[0]}.$SRC" "${test_prefixes[0]}.$TGT" -o "$WORK/probe.argmax" 2> "$WORK/probe.err" &&
      decoded=1 argmax_row=$(silver_score "$WORK/probe.argmax")
  fi
  if ! has_row "$RESULTS/saturation.tsv" "$id" "$seed" "$lr"; then
    # A model without attention weights (none) has a row of dashes, with heed-align's reason in
    # the log.
    if [ "$decoded" = 1 ] && stats=$("$python" "$here/saturation.py" "$WORK/probe.jsonl" 2> "$WORK/probe.err"); then
      :
    else
      log "$unit: no saturation statistics: $(tail -n 1 "$WORK/probe.err")"
      stats=$(dash_row "$sat_columns")
    fi
    printf '%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$stats" >> "$RESULTS/saturation.tsv"
  fi
  rm -f "$WORK/probe.jsonl"
  if ! has_row "$RESULTS/parameters.tsv" "$id" "$seed" "$lr"; then
    row=$("$python" "$here/parameters.py" "$dir/model.heed") ||
      die 70 "$unit: parameters.py could not read $dir/model.heed"
    printf '%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$row" >> "$RESULTS/parameters.tsv"
  fi
  # The argmax links, kept for heed-align score --system (stats). A run probed before they were
  # kept is read again, and its links kept only if they score exactly as its row.
  if [ "$decoded" = 1 ] && [ ! -f "$links" ]; then
    if [ -z "$kept" ] || [ "$kept" = "$argmax_row" ]; then
      mkdir -p "$RESULTS/links"
      gzip -9nc "$WORK/probe.argmax" > "$links.tmp"
      mv "$links.tmp" "$links"
    else
      log "$unit: its argmax links read again score '$argmax_row', not its row's '$kept': not kept"
    fi
  fi
  # The attention as alignment: argmax and shift links against the silver links, a row each (a
  # model without attention weights: rows of dashes).
  for reading in argmax shift; do
    has_row "$RESULTS/silver.tsv" "$id" "$seed" "$lr" "$reading" && continue
    case $reading in
      argmax) row=${argmax_row:-$(dash_row "$aer_columns")} ;;
      shift) row=$(silver_reading "$dir/model.heed" "$WORK/probe.shift" --method shift) ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$reading" "$row" >> "$RESULTS/silver.tsv"
  done
  rm -f "$WORK/probe.argmax" "$WORK/probe.shift"
  # Alignment along training: the argmax links of each model it kept, against the silver links.
  local kept_model step
  for kept_model in "$dir"/model.step-*.heed; do
    [ -f "$kept_model" ] || continue
    step=${kept_model##*/model.step-} step=${step%.heed}
    has_row "$RESULTS/silver-curves.tsv" "$id" "$seed" "$lr" "$step" && continue
    row=$(silver_reading "$kept_model" "$WORK/probe.curve")
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$step" "$row" >> "$RESULTS/silver-curves.tsv"
  done
  rm -f "$WORK/probe.curve"
  if [ "$long_ok" = 1 ] && ! has_row "$RESULTS/long.tsv" "$id" "$seed" "$lr"; then
    [ -s "$dir/long.hyp" ] || "$BIN/heed-translate" -m "$dir/model.heed" --beam-size 1 \
      --precision "$PRECISION" --threads "$THREADS" -i "$WORK/long.src" -o "$dir/long.hyp" -q
    gzip -9nc "$dir/long.hyp" > "$RESULTS/hyps/$unit.long.txt.gz"
    joined_of "$unit" > "$dir/joined.hyp"
    local whole apart
    whole=$("$BIN/heed-score" "${case_score[@]}" -r "$WORK/long.ref" --hyp "$dir/long.hyp")
    apart=$("$BIN/heed-score" "${case_score[@]}" -r "$WORK/long.ref" --hyp "$dir/joined.hyp")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$(score_of BLEU <<< "$whole")" \
      "$(score_of chrF2 <<< "$whole")" "$(score_of BLEU <<< "$apart")" "$(score_of chrF2 <<< "$apart")" \
      >> "$RESULTS/long.tsv"
  fi
  long_length "$id" "$seed" "$lr"
  # The long inputs made to go on (WORK/long.min-length), greedy as above: one call a least
  # length, the translations put back in input order.
  if [ "$long_ok" = 1 ] && [ -s "$WORK/long.min-length" ] &&
     ! has_row "$RESULTS/long-forced.tsv" "$id" "$seed" "$lr"; then
    local least forced
    rm -f "$dir"/forced.*
    for least in $(sort -nu "$WORK/long.min-length"); do
      awk -v m="$least" 'NR == FNR { keep[FNR] = ($1 == m); next } keep[FNR]' \
        "$WORK/long.min-length" "$WORK/long.src" > "$dir/forced.src.$least"
      "$BIN/heed-translate" -m "$dir/model.heed" --beam-size 1 --min-length "$least" \
        --precision "$PRECISION" --threads "$THREADS" -i "$dir/forced.src.$least" \
        -o "$dir/forced.hyp.$least" -q
    done
    awk -v dir="$dir" 'NR == FNR { least[FNR] = $1; next }
         { file = dir "/forced.hyp." least[FNR]; if ((getline line < file) <= 0) exit 1; print line }' \
      "$WORK/long.min-length" "$WORK/long.src" > "$dir/long-forced.hyp" ||
      die 70 "$unit: the forced translations do not line up with the long inputs"
    gzip -9nc "$dir/long-forced.hyp" > "$RESULTS/hyps/$unit.long-forced.txt.gz"
    forced=$("$BIN/heed-score" "${case_score[@]}" -r "$WORK/long.ref" --hyp "$dir/long-forced.hyp")
    forced=$(score_row <<< "$forced") || die 70 "$unit: no brevity penalty in heed-score's output"
    printf '%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$forced" >> "$RESULTS/long-forced.tsv"
    rm -f "$dir"/forced.*
  fi
  # The test sets again with beam search (heed-translate's length normalization), each set as
  # the greedy translations were made, pooled in the same order: whether greedy decoding, which
  # every other comparison uses, changes the differences.
  if [ "$BEAM" -gt 1 ] && ! has_row "$RESULTS/beam.tsv" "$id" "$seed" "$lr"; then
    local i beamed
    : > "$dir/beam.hyp"
    for i in "${!test_names[@]}"; do
      "$BIN/heed-translate" -m "$dir/model.heed" --beam-size "$BEAM" --normalize gnmt \
        --length-penalty 0.6 --precision "$PRECISION" --threads "$THREADS" \
        -i "${test_prefixes[i]}.$SRC" -q >> "$dir/beam.hyp"
    done
    gzip -9nc "$dir/beam.hyp" > "$RESULTS/hyps/$unit.beam.txt.gz"
    beamed=$("$BIN/heed-score" "${case_score[@]}" -r "$WORK/pooled.ref" --hyp "$dir/beam.hyp")
    beamed=$(score_row <<< "$beamed") || die 70 "$unit: no brevity penalty in heed-score's output"
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$seed" "$lr" "$BEAM" "$beamed" >> "$RESULTS/beam.tsv"
    rm -f "$dir/beam.hyp"
  fi
}

# --- stats --------------------------------------------------------------------------------------
# The configurations of family $1, one per line: its baseline (the one that names it with a '+',
# else the first) first, then the others, in the file's order.
family_ids() {
  awk -F'\t' -v f="$1" '{ n = split($2, fs, ",")
                           for (i = 1; i <= n; i++) if (fs[i] == f || fs[i] == "+" f) {
                             ids[++k] = $1; if (fs[i] == "+" f) base = $1 } }
    END { if (!k) exit; if (!base) base = ids[1]
          print base; for (i = 1; i <= k; i++) if (ids[i] != base) print ids[i] }' <<< "$planned_lines"
}
# Per family, test set and the pooled set: heed-score --system, the family's baseline first, each
# configuration with its finished runs (core configurations: at their chosen learning rate).
stats() {  # [FAMILIES: only their comparisons, after a run of a configuration in them]
  local family ids id runs sys i name ref n
  rm -rf "$WORK/stats"
  mkdir -p "$WORK/stats"
  choose_lr
  for family in $(cut -f2 <<< "$planned_lines" | tr ',' '\n' | sed 's/^+//' |
                  awk -v only=" ${1:-} " '!seen[$0]++ && (only == "  " || index(only, " " $0 " "))'); do
    ids=$(family_ids "$family")
    for name in "${test_names[@]}" pooled $([ "$long_ok" = 1 ] && echo long long-forced) \
                 $([ "$BEAM" -gt 1 ] && echo beam beam-greedy) $length_names; do
      sys=()
      for id in $ids; do
        runs=""
        for unit in $(compared_units "$id"); do
          # The probes' sets: only the runs probed so far.
          [[ $name =~ ^(long|long-forced|beam)$ ]] && [ ! -f "$RESULTS/hyps/$unit.$name.txt.gz" ] && continue
          # beam-greedy: the greedy pooled translations of the runs beam searched, so that the
          # beam's verdicts have greedy ones on the same runs beside them.
          [ "$name" = beam-greedy ] && [ ! -f "$RESULTS/hyps/$unit.beam.txt.gz" ] && continue
          # beam-greedy and the length groups read the pooled set, written above (it comes first).
          if [ "$name" = beam-greedy ]; then
            runs+=${runs:+,}$WORK/stats/$unit.pooled
            continue
          fi
          if [ "$name" = pooled ]; then
            for i in "${test_names[@]}"; do gzip -dc "$RESULTS/hyps/$unit.$i.txt.gz"; done
          elif [[ $name == length-* ]]; then
            awk 'NR == FNR { keep[$1]; next } FNR in keep' "$WORK/$name.lines" "$WORK/stats/$unit.pooled"
          else
            gzip -dc "$RESULTS/hyps/$unit.$name.txt.gz"
          fi > "$WORK/stats/$unit.$name"
          runs+=${runs:+,}$WORK/stats/$unit.$name
        done
        # The baseline must be there for any comparison.
        if [ -z "$runs" ]; then
          [ "$id" = "$(head -n 1 <<< "$ids")" ] && break
          continue
        fi
        sys+=(--system "$id=$runs")
      done
      n=$((${#sys[@]} / 2))
      if [ "$n" -lt 2 ]; then
        rm -f "$RESULTS/compare/$family.$name.tsv"
        continue
      fi
      ref=$WORK/pooled.ref
      [[ $name == long* ]] && ref=$WORK/long.ref
      [[ $name == length-* ]] && ref=$WORK/$name.ref
      for i in "${!test_names[@]}"; do
        [ "${test_names[i]}" = "$name" ] && ref=${test_prefixes[i]}.$TGT
      done
      "$SCORE_BIN/heed-score" "${case_score[@]}" -r "$ref" "${sys[@]}" --bootstrap "$BOOTSTRAP" \
        --equivalence-margin "$MARGIN" --format tsv -q -o "$RESULTS/compare/$family.$name.tsv"
    done
    # The attention as alignment: each configuration's kept links against its baseline's, scored
    # on the silver links.
    sys=()
    for id in $ids; do sys+=("$id=$(kept_links "$id")"); done
    silver_compare "$RESULTS/silver-compare/$family.tsv" "${sys[@]}"
    # The mechanistic checks against their counterparts (pooled set), both at one rate.
    mkdir -p "$RESULTS/counterpart"
    while IFS=$'\t' read -r id _ stage _ _ _; do
      [ "$stage" = mechanistic ] || continue
      local counterpart
      counterpart=$(counterpart_of "$id")
      [ -n "$counterpart" ] || continue
      sys=()
      for c in "$counterpart" "$id"; do
        runs=""
        for unit in $(compared_units "$c"); do
          [ -f "$WORK/stats/$unit.pooled" ] && runs+=${runs:+,}$WORK/stats/$unit.pooled
        done
        [ -n "$runs" ] && sys+=(--system "$c=$runs")
      done
      [ "${#sys[@]}" = 4 ] || continue
      "$SCORE_BIN/heed-score" "${case_score[@]}" -r "$WORK/pooled.ref" "${sys[@]}" --bootstrap "$BOOTSTRAP" \
        --equivalence-margin "$MARGIN" --format tsv -q -o "$RESULTS/counterpart/$id.tsv" < /dev/null
    done <<< "$(awk -F'\t' -v f="$family" '$2 == f' <<< "$planned_own")"
    # Each configuration's long inputs translated whole against one by one, its runs paired.
    [ "$long_ok" = 1 ] || continue
    mkdir -p "$RESULTS/long"
    for id in $ids; do
      local whole="" apart=""
      for unit in $(compared_units "$id"); do
        [ -f "$RESULTS/hyps/$unit.long.txt.gz" ] || continue
        gzip -dc "$RESULTS/hyps/$unit.long.txt.gz" > "$WORK/stats/$unit.whole"
        joined_of "$unit" > "$WORK/stats/$unit.apart"
        whole+=${whole:+,}$WORK/stats/$unit.whole apart+=${apart:+,}$WORK/stats/$unit.apart
      done
      [ -n "$whole" ] || continue
      "$SCORE_BIN/heed-score" "${case_score[@]}" -r "$WORK/long.ref" --system "one-by-one=$apart" \
        --system "whole=$whole" --bootstrap "$BOOTSTRAP" --equivalence-margin "$MARGIN" \
        --format tsv -q -o "$RESULTS/long/$id.tsv"
    done
  done
  # Every configuration's kept links against the diagonal baseline's.
  if [ -s "$WORK/silver/test.words" ]; then
    [ -s "$WORK/silver/diagonal" ] || multi30k_silver_diagonal "$BIN" "${test_prefixes[0]}.$SRC" \
      "${test_prefixes[0]}.$TGT" "$WORK/silver/test.words" "$WORK/silver/diagonal" > /dev/null
    sys=("diagonal=$WORK/silver/diagonal")
    for id in $(cut -f1 <<< "$planned_lines" | awk '!seen[$0]++'); do sys+=("$id=$(kept_links "$id")"); done
    silver_compare "$RESULTS/silver-compare/diagonal.tsv" "${sys[@]}"
  fi
}
# The kept argmax links of ID's compared runs, as --system's comma-separated runs (empty: none).
kept_links() {  # id
  local unit runs=""
  for unit in $(compared_units "$1"); do
    [ -f "$RESULTS/links/$unit.argmax.txt.gz" ] || continue
    # Once per stats call (WORK/stats is emptied at its start): the family's and the diagonal's
    # comparisons read the same runs.
    [ -f "$WORK/stats/$unit.links" ] ||
      gzip -dc "$RESULTS/links/$unit.argmax.txt.gz" > "$WORK/stats/$unit.links"
    runs+=${runs:+,}$WORK/stats/$unit.links
  done
  echo "$runs"
}
# heed-align score --system against the silver links, the first NAME=RUNS the baseline; systems
# without runs left out, and no file unless the baseline and one other have some.
silver_compare() {  # OUT NAME=RUNS...
  local out=$1 s sys=()
  shift
  for s in "$@"; do [ -n "${s#*=}" ] && sys+=(--system "$s"); done
  if [ ! -s "$WORK/silver/test.words" ] || [ -z "${1#*=}" ] || [ "${#sys[@]}" -lt 4 ]; then
    rm -f "$out"
    return 0
  fi
  mkdir -p "$(dirname "$out")"
  "$SCORE_BIN/heed-align" score --gold "$WORK/silver/test.words" "${sys[@]}" --bootstrap "$BOOTSTRAP" \
    --equivalence-margin "$AER_MARGIN" -q -o "$out"
}

report() {
  "$python" "$here/report.py" --results "$RESULTS" --template "$here/ablation.md.j2" \
    --output "$REPORT"
}

refresh() {  # FAMILIES WHAT: after a run in FAMILIES (','-separated), their statistics and the page
  local families=${1//+/}
  if has_stage stats; then stats "${families//,/ }" || log "stats failed (the runs are kept)"; fi
  if has_stage report; then report || log "the report failed (the runs are kept)"; fi
  if [ "$commit" = 1 ]; then
    # The repository that holds RESULTS, which need not be the driver's own checkout (the study
    # runs from a copy outside the work tree it writes its results into).
    local done_runs planned repo
    done_runs=$(($(wc -l < "$RESULTS/runs.tsv") - 1)) planned=$(($(wc -l < "$RESULTS/plan.tsv") - 1))
    repo=$(git -C "$RESULTS" rev-parse --show-toplevel 2>/dev/null) || repo=$root
    git -C "$repo" add -- "$RESULTS" "$REPORT" &&
      git -C "$repo" commit -q -m "Ablation at convergence: $2 done ($done_runs of $planned runs); \
page regenerated" -- "$RESULTS" "$REPORT" || log "nothing committed"
  fi
}

export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# The rate of plan.tsv's lr column $1 for configuration $2, by lr-choice.tsv; "" while the check
# it waits for is unfinished.
resolved_lr() {
  local spec owner rate
  case $1 in chosen | chosen:*) ;; *) echo "$1"; return ;; esac
  spec=${1#chosen}
  spec=${spec#:}
  owner=${spec%%\**}
  rate=$(check_choice "$RESULTS/lr-choice.tsv" "${owner:-$2}")
  [ -z "$rate" ] || lr_times "$rate" "$([[ $spec == *\** ]] && echo "${spec#*\*}" || echo 1)"
}
# One worker: the plan in order, each unfinished run claimed (WORK/claims/UNIT, so that with JOBS
# workers no run is trained twice) and trained; the shared result files are written under the
# lock on fd 9 (WORK/results.lock). A run at the chosen rate waits for its check; a worker with
# nothing it can take while others train waits for them.
worker() {
  exec 9>> "$WORK/results.lock"
  local pending=1 progress order id family own stage seed lr hidden options unit
  while [ "$pending" = 1 ]; do
    pending=0 progress=0
    # The checks as they stand when the pass starts (a pass ends after a run).
    flock 9
    choose_lr
    flock -u 9
    while IFS=$'\t' read -r -u 3 order id family stage seed lr hidden options; do
      [ ! -e "$WORK/claims/.stop" ] || return 0  # the driver is stopping: no new run
      lr=$(resolved_lr "$lr" "$id")
      [ -n "$lr" ] || { pending=1; continue; }
      [ -z "$(run_row "$id" "$seed" "$lr")" ] || continue  # done already
      unit=$id-s$seed-lr$lr
      mkdir "$WORK/claims/$unit" 2> /dev/null || { pending=1; continue; }  # another worker's
      progress=1
      # Not in a condition: set -e stops the worker at a failed translation or score rather
      # than record a row without them (a failed training is recorded, and the study goes on).
      # shellcheck disable=SC2086
      own=${family%%,*}
      run_one "$id" "${own#+}" "$seed" "$lr" "$hidden" $options
      if has_stage probes; then probe_unit "$id" "$seed" "$lr"; fi
      refresh "$family" "$id seed $seed (lr $lr)"
      flock -u 9
      # From the top again, with the checks as they stand now: the first run the plan's order
      # allows is the next (a check just finished lets its scorer's later seeds go before the
      # runs planned after them).
      pending=1
      break
    done 3< <(tail -n +2 "$RESULTS/plan.tsv")
    [ "$pending" = 0 ] || [ "$progress" = 1 ] || sleep 30
  done
}
# The probes of runs finished before (or by a driver without the stage, or without a probe it
# has now), before any training: a new probe reads every finished run at once.
if has_stage probes; then
  while IFS=$'\t' read -r -u 3 id _ seed lr _ status _; do
    [ "$status" = ok ] && probe_unit "$id" "$seed" "$lr"
  done 3< <(tail -n +2 "$RESULTS/runs.tsv")
fi
if has_stage runs; then
  # Claims are this call's: a run an earlier call left unfinished is free to take (heed-train's
  # own lock keeps two trainings out of one run directory).
  rm -rf "$WORK/claims"
  mkdir -p "$WORK/claims"
  workers=()
  for _ in $(seq "$JOBS"); do
    worker &
    workers+=($!)
  done
  # Stopping: the first worker to stop on an error, or a SIGTERM (or SIGINT, where the driver
  # runs in the foreground; a background job of a script ignores it) to the driver, stops the
  # others. Their trainings get SIGINT, so that each saves its checkpoint (heed-train's Ctrl-C)
  # and the next call resumes it; a worker between trainings finishes its probes and page, and
  # the stop file keeps every worker from starting another run.
  stop_workers() {
    touch "$WORK/claims/.stop"
    local pid child
    for pid in "${workers[@]}"; do
      for child in $(pgrep -P "$pid"); do
        [[ $(ps -o args= -p "$child") != "$BIN/heed-train "* ]] || kill -INT "$child" 2> /dev/null || true
      done
    done
  }
  stop_on_signal() {  # exit code
    stopped=$1
    log "stopping: the trainings save their checkpoints"
    stop_workers
  }
  stopped=0 failed=0
  trap 'stop_on_signal 130' INT
  trap 'stop_on_signal 143' TERM
  while [ "${#workers[@]}" -gt 0 ]; do
    code=0 finished=""
    wait -n -p finished "${workers[@]}" || code=$?
    if [ -z "${finished:-}" ]; then
      # A signal's trap ends the wait with no worker finished: wait again, unless none is left
      # to wait for (127: killed with the driver, say), which is a stop too.
      [ "$code" = 127 ] || continue
      [ "$stopped" != 0 ] || [ "$failed" != 0 ] || failed=70
      break
    fi
    rest=()
    for pid in "${workers[@]}"; do [ "$pid" = "$finished" ] || rest+=("$pid"); done
    workers=("${rest[@]}")
    if [ "$code" != 0 ] && [ "$failed" = 0 ]; then
      failed=$code
      stop_workers
    fi
  done
  trap - INT TERM
  [ "$stopped" = 0 ] || die "$stopped" "stopped; call the driver again to resume"
  [ "$failed" = 0 ] || die "$failed" "a worker stopped (exit $failed); call the driver again to resume"
fi
# --- share --------------------------------------------------------------------------------------
# The phase benchmarks at the study's sizes: hidden HIDDEN, the embedding of MODEL, the target
# vocabulary the training text gives (at most VOCAB), sentences of its mean length in tokens;
# batches of 64 for training and greedy decoding, beam 5 over one sentence. Each mechanism of
# the baseline's family (none has no attention: its "attention" is Luong's attentional layer).
if has_stage share; then
  BENCH=${BENCH:-$BIN/../bench}
  for b in train_phases decode_phases; do
    [ -x "$BENCH/heed_bench_$b" ] || die 66 "$BENCH/heed_bench_$b not found (set BENCH to a build's bench directory)"
  done
  SHARE_REPEATS=${SHARE_REPEATS:-5} SHARE_ROUNDS=${SHARE_ROUNDS:-3}
  for n in "$SHARE_REPEATS" "$SHARE_ROUNDS"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die 64 "SHARE_REPEATS/SHARE_ROUNDS '$n' is not a count"
  done
  embed=$(grep -oE -- '--embed [0-9]+' <<< "$MODEL" | cut -d' ' -f2)
  vocab=$(tr ' ' '\n' < "$WORK/train.bpe.$TGT" | sort -u | wc -l)
  vocab=$((vocab + 4 < VOCAB ? vocab + 4 : VOCAB))  # + <unk> <s> </s> <pad>
  length=$(awk '{ n += NF } END { printf "%d", n / NR + 0.5 }' "$WORK/train.bpe.$TGT")
  base_family=$(head -n 1 <<< "$planned_own" | cut -f2)
  mkdir -p "$RESULTS/share"
  share_mechanisms=$(awk -F'\t' -v f="$base_family" '$2 == f && match($6, /--attention [^ ]+/) {
    print substr($6, RSTART + 12, RLENGTH - 12) }' <<< "$planned_own" | awk '!seen[$0]++')
  # Rounds interleaved (every mechanism and mode once per round): the machine's drift hits all
  # alike; the report takes the median over the rounds.
  for round in $(seq "$SHARE_ROUNDS"); do
   for m in $share_mechanisms; do
    model=(--attention "$m" --precision "$PRECISION" --threads "$THREADS" --hidden "$HIDDEN"
           --embed "${embed:-256}" --vocab "$vocab" --repeats "$SHARE_REPEATS")
    for mode in train greedy beam5; do
      out=$RESULTS/share/$m.$mode.r$round.tsv
      [ -s "$out" ] && continue
      log "share: round $round, $m, $mode"
      case $mode in
        train) "$BENCH/heed_bench_train_phases" "${model[@]}" --batch 64 --length "$length" ;;
        greedy) "$BENCH/heed_bench_decode_phases" "${model[@]}" --beam 1 --batch 64 --sentences 128 \
                  --length "$length" --steps "$length" ;;
        beam5) "$BENCH/heed_bench_decode_phases" "${model[@]}" --beam 5 --batch 1 --sentences 20 \
                 --length "$length" --steps "$length" ;;
      esac > "$out.tmp"
      mv "$out.tmp" "$out"
    done
   done
  done
fi

has_stage stats && stats
has_stage report && report && log "report: $REPORT"
log "$(($(wc -l < "$RESULTS/runs.tsv") - 1)) of $(($(wc -l < "$RESULTS/plan.tsv") - 1)) runs done"
exit 0
}
