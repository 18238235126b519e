#!/usr/bin/env bash
# Speed and memory, heed beside Marian (issue 65), in interleaved rounds on this machine.
#
# Both read Multi30k de→en segmented by ONE joint BPE (heed-tokenize learn-bpe), Marian with its
# own vocabularies made by marian-vocab from the same files: the quality study's rules make them
# (experiments/marian/Snakefile, run by Snakemake: the Multi30k recipe's multi30k_prepare,
# test2016's BPE, marian-vocab), into WORK. Three systems (bench/peers/marian/systems.yaml):
#   marian            --type s2s, bi-LSTM 512+512, conditional LSTM decoder 512, MLP attention
#   heed-marian-like  --decoder bahdanau --attention additive, bi-LSTM 256+256, LSTM 512
#   heed-recipe       heed's Multi30k recipe's model: Luong + input feeding, general attention
# (heed's: the recipe's model_options without its dropout, and the system's own.)
# Where they differ and what it does to FLOPs per target token: docs/benchmarks.md.
#
# Parts, each in every round, the systems one after the other (heed, Marian, heed ...):
#   peak    the f32 and bf16 matmul peaks of THREADS threads (heed-bench-attn's: the best of 3
#           GEMMs of 2048), the denominators of the training FLOP/s of each precision
#           (docs/benchmarks.md's FLOPs table)
#   train   UPDATES updates of 64 sentence pairs, Adam, clipping 5, no dropout, no label
#           smoothing, f32 (Marian has no bf16: its --precision float16 is GPU training; heed
#           also in bf16 where the CPU has bf16 arithmetic): the median target tokens/s of the
#           windows of WINDOW updates after the first (heed's metrics file, Marian's words/s
#           at --disp-freq), and the peak RSS of the process (GNU time).
#   decode  test2016 (the first SENTENCES lines; batch 1: the first BATCH1_SENTENCES), BPE
#           tokens in and out (heed-translate --pretokenized), greedy and beam 5, batch 1 and 64,
#           f32 and each one's fastest CPU settings (Marian: the model converted to int8 by
#           marian-conv --gemm-type intgemm8, when marian-conv is built, and f32 with a lexical
#           shortlist; heed: bf16 where the CPU has it, and with a shortlist): output tokens (+1 </s> a sentence) per second of the
#           whole process (start and model load included, the same for both), and its peak RSS.
# Decoding uses the models of the quality study when its runs have finished (MODELS_DIR, its
# WORK: seed 1 of experiments/marian at equal updates), else the first training round's, copied
# once so that every round decodes the same model (a model of UPDATES updates: its outputs'
# lengths are not a trained model's; the TSV says which).
#
#   bash bench/marian_side_by_side.sh [BUILD_DIR] [MARIAN_BUILD_DIR]
#   QUICK=1 bash bench/marian_side_by_side.sh /tmp/heed-build /work/peers/marian-build
#
# stdout: the summary TSV (also written to RESULTS), "# key: value" lines first (machine, ISA,
# both commits). stderr: progress. Resumable: every finished measurement is a row of
# WORK/speed/raw.tsv and is not run again (a changed setting needs a fresh WORK or FRESH=1).
# Speed figures need an idle machine: the script says so and measures anyway. Each toolkit runs
# with its own threading as a user running it alone gets it: heed with libgomp's default wait
# policy, not the studies' OMP_WAIT_POLICY=passive (for a shared machine; on an idle one it costs
# heed 15–25 %, measured: docs/benchmarks.md); an OMP_WAIT_POLICY in the environment is kept and
# the TSV says which.
# PARTS=decode measures decoding alone (no peak, no training), of the quality study's models,
# which MODELS_DIR must then have: decoding again once trained models exist, into its own RESULTS
# (docs/benchmarks.md's decoding table reads marian_side_by_side-decode.tsv where it exists).
# Environment: PARTS ("train decode"), ROUNDS (5), THREADS (2), UPDATES (300), WINDOW (50), SENTENCES (1000),
# BATCH1_SENTENCES (200), SYSTEMS ("heed-marian-like marian heed-recipe"), WORK
# (/tmp/heed-marian), DATA (../shared/data/multi30k/raw), RESULTS
# (bench/results/marian_side_by_side.tsv), MODELS_DIR (WORK), QUICK=1 (ROUNDS 2,
# UPDATES 20, WINDOW 5, SENTENCES 64, BATCH1_SENTENCES 8, WORK /tmp/heed-marian-quick and the
# result in WORK, never in bench/results: a test of the pipeline, not a result).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
source "$here/peers/marian/common.sh"
die() { local code=$1; shift; echo "marian_side_by_side: $*" >&2; exit "$code"; }
BUILD=${1:-$root/build}
MARIAN=${2:-/work/peers/marian-build}
BIN=$BUILD/bin
[ -x "$BIN/heed-train" ] || die 69 "$BIN/heed-train not found (build heed, or give its build directory)"
marian_require "$MARIAN"
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  ROUNDS=${ROUNDS:-2} UPDATES=${UPDATES:-20} WINDOW=${WINDOW:-5} SENTENCES=${SENTENCES:-64}
  BATCH1_SENTENCES=${BATCH1_SENTENCES:-8} WORK=${WORK:-/tmp/heed-marian-quick}
  RESULTS=${RESULTS:-$WORK/marian_side_by_side-QUICK.tsv}
fi
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-2}
UPDATES=${UPDATES:-300}
WINDOW=${WINDOW:-50}
SENTENCES=${SENTENCES:-1000}
BATCH1_SENTENCES=${BATCH1_SENTENCES:-200}
SYSTEMS=${SYSTEMS:-heed-marian-like marian heed-recipe}
WORK=${WORK:-/tmp/heed-marian}
DATA=${DATA:-$root/../shared/data/multi30k/raw}
RESULTS=${RESULTS:-$here/results/marian_side_by_side.tsv}
MODELS_DIR=${MODELS_DIR:-$WORK}
for v in ROUNDS THREADS UPDATES WINDOW SENTENCES BATCH1_SENTENCES; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die 64 "$v '${!v}' is not a positive count"
done
[ $((UPDATES % WINDOW)) = 0 ] && [ $((UPDATES / WINDOW)) -ge 2 ] ||
  die 64 "UPDATES ($UPDATES) must be a multiple of WINDOW ($WINDOW), two windows at least"
for s in $SYSTEMS; do
  case $s in heed-marian-like|heed-recipe|marian) ;; *) die 64 "SYSTEMS: no system '$s'" ;; esac
done
PARTS=${PARTS:-train decode}
for p in $PARTS; do
  case $p in train|decode) ;; *) die 64 "PARTS: no part '$p' (train, decode)" ;; esac
done
has_part() { [[ " $PARTS " == *" $1 "* ]]; }

speed=$WORK/speed
[ "${FRESH:-0}" = 1 ] && rm -rf "$speed"
mkdir -p "$speed"
raw=$speed/raw.tsv
load=$(cut -d' ' -f1 /proc/loadavg)
# The load when the run started (a resumed run, or one that only writes its summary again,
# reports the first start's)
if [ ! -s "$raw" ]; then
  printf 'round\tpart\tsystem\tsetting\tcase\ttokens_per_s\tpeak_rss_kib\tseconds\ttokens\tsentences\n' > "$raw"
  echo "$load" > "$speed/load-at-start"
fi
awk -v l="$load" 'BEGIN { exit !(l > 0.5) }' &&
  echo "marian_side_by_side: load average $load: the machine is not idle, speed figures are not valid" >&2

marian_prepare "$BIN" "$MARIAN" "$WORK" "$THREADS" "$DATA"
head -n "$SENTENCES" "$WORK/test.bpe.de" > "$speed/input.64"
head -n "$BATCH1_SENTENCES" "$WORK/test.bpe.de" > "$speed/input.1"

done_already() {  # ROUND PART SYSTEM SETTING CASE
  awk -F'\t' -v r="$1" -v p="$2" -v s="$3" -v g="$4" -v c="$5" \
    '$1 == r && $2 == p && $3 == s && $4 == g && $5 == c { f = 1 } END { exit !f }' "$raw"
}
# measured TIMES_FILE CMD...: runs CMD, writes its wall seconds (to the nanosecond: GNU time's
# %e has only hundredths) and its maximum RSS in KiB (GNU time's, the "Maximum resident set
# size" of time -v) to TIMES_FILE.
measured() {
  local times=$1 start end; shift
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$times.rss" "$@" || return
  end=$(date +%s.%N)
  printf '%s\t%s\n' "$(echo "$end - $start" | bc -l)" "$(tail -n 1 "$times.rss")" > "$times"
}

# The systems' model options (systems.yaml): Marian's architecture; heed's, its dropout aside.
declare -A model_options
for s in $SYSTEMS; do
  model_options[$s]=$(marian_system_options "$s" --no-dropout) || die 70 "systems.py $s failed"
done

# --- training ------------------------------------------------------------------------------
train_settings() {  # SYSTEM: the precisions it trains in here
  if [ "$1" = marian ]; then echo f32; return; fi
  if [ "$(heed_default_precision)" = bf16 ]; then echo f32 bf16; else echo f32; fi
}
train_once() {  # ROUND SYSTEM SETTING
  local round=$1 system=$2 setting=$3 dir=$speed/train.$2.$3 tps secs rss
  done_already "$round" train "$system" "$setting" "u$UPDATES" && return 0
  rm -rf "$dir"; mkdir -p "$dir"
  echo "marian_side_by_side: round $round: training $system ($setting, $UPDATES updates)" >&2
  if [ "$system" = marian ]; then
    local arch
    mapfile -t arch <<< "${model_options[marian]}"
    # shellcheck disable=SC2046
    OPENBLAS_NUM_THREADS=1 measured "$dir/time" "$MARIAN/marian" "${arch[@]}" $(marian_dim_vocabs "$WORK") \
      -t "$WORK/train.bpe.de" "$WORK/train.bpe.en" -v "$WORK/vocab.de.yml" "$WORK/vocab.en.yml" \
      -m "$dir/model.npz" --mini-batch 64 --maxi-batch 100 --after-batches "$UPDATES" \
      --disp-freq "$WINDOW" --save-freq 1000000 --valid-freq 1000000 --optimizer adam \
      --learn-rate 0.001 --clip-norm 5 --dropout-rnn 0 --label-smoothing 0 --max-length 100 \
      --cpu-threads "$THREADS" --workspace 2048 --seed 1 --log "$dir/train.log" \
      > /dev/null 2> "$dir/stderr" || die 70 "marian training failed: $(tail -n 1 "$dir/stderr")"
    local windows
    windows=$(marian_words_per_s "$dir/train.log" | tail -n +2)
    [ -n "$windows" ] || die 70 "marian training: no words/s window after the first in $dir/train.log"
    # shellcheck disable=SC2086
    tps=$(heed_median $windows)
  else
    local options
    mapfile -t options <<< "${model_options[$system]}"
    # --vocab-size: the recipe's cap (experiments/common/multi30k.smk), not reached on Multi30k
    measured "$dir/time" "$BIN/heed-train" "${options[@]}" --vocab-size 10000 \
      --train-src "$WORK/train.bpe.de" --train-tgt "$WORK/train.bpe.en" --batch-size 64 \
      --max-steps "$UPDATES" --log-every "$WINDOW" --valid-every 0 --save-every 1000000 \
      --lr 0.001 --lr-schedule constant --clip 5 --dropout 0 --label-smoothing 0 \
      --precision "$setting" --threads "$THREADS" --seed 1 --metrics-file "$dir/metrics.tsv" \
      -o "$dir/run" -q 2> "$dir/stderr" || die 70 "heed-train failed: $(tail -n 1 "$dir/stderr")"
    [ "$(awk 'END { print NR }' "$dir/metrics.tsv")" -ge 3 ] ||
      die 70 "heed-train: no window after the first in $dir/metrics.tsv"
    tps=$(heed_window_tokens "$dir/metrics.tsv")
  fi
  IFS=$'\t' read -r secs rss < "$dir/time"
  printf '%s\ttrain\t%s\t%s\tu%s\t%.0f\t%s\t%s\t-\t-\n' "$round" "$system" "$setting" "$UPDATES" \
    "$tps" "$rss" "$secs" >> "$raw"
}

# --- decoding ------------------------------------------------------------------------------
# quality_model SYSTEM → the quality study's seed-1 model at equal updates, the one it scores
# (the best on validation, or the one its rule marian_model chose; Marian's last without a
# validation), once that run has finished (its train.done).
quality_model() {
  local run=$MODELS_DIR/marian/updates/s1
  if [ "$1" = marian ]; then
    [ -f "$run/train.done" ] || return 0
    # The study's choice when it made one (model.scored: its rule marian_model), else the best.
    if [ -s "$run/model.scored" ]; then cut -f1 "$run/model.scored"
    elif [ -f "$run/model.npz.best-cross-entropy.npz" ]; then echo "$run/model.npz.best-cross-entropy.npz"
    else echo "$run/model.npz"; fi
  else
    [ -f "$MODELS_DIR/runs/$1-updates/s1/train.done" ] && echo "$MODELS_DIR/runs/$1-updates/s1/model.heed"
  fi
  return 0
}
# model_of SYSTEM → path: the quality study's model, else a copy of the first training round's
# model, frozen, so that every round decodes the same model (each round retrains, and two barely
# trained models can differ in their outputs' lengths by 100×).
model_of() {
  local q trained frozen
  q=$(quality_model "$1")
  if [ "$1" = marian ]; then
    trained=$speed/train.marian.f32/model.npz frozen=$speed/decode.marian.npz
  else
    trained=$speed/train.$1.f32/run/model.heed frozen=$speed/decode.$1.heed
  fi
  [ -n "$q" ] && [ -f "$q" ] && { echo "$q"; return; }
  [ -f "$frozen" ] || { cp "$trained" "$frozen.tmp" && mv "$frozen.tmp" "$frozen"; }
  echo "$frozen"
}
# A setting ending in -shortlist scores only a lexical shortlist of target words (shortlist_table:
# the same table, the same sizes for both), the other part the precision (Marian's int8: its
# intgemm8 model). Marian's int8 with a shortlist is not run: on its s2s model it dies of a
# segmentation fault (marian-decoder c9f287db, 2026-12-05, AVX-512 and AVX2 alike untested apart).
decode_settings() {  # SYSTEM
  if [ "$1" = marian ]; then
    if [ -x "$MARIAN/marian-conv" ]; then echo f32 f32-shortlist int8; else echo f32 f32-shortlist; fi
  elif [ "$(heed_default_precision)" = bf16 ]; then echo f32 bf16 bf16-shortlist
  else echo f32 f32-shortlist; fi
}
# The lexical table both decoders' shortlists read, once: t(en | de) of fast_align's model as
# heed-align ibm2 trains it on the training text (fast_align's recommended -d -o -v), as heed
# writes it (de, en, p) and as Marian reads it (en de p); each batch's shortlist takes the
# SHORTLIST_FREQUENT most frequent target words and each source word's SHORTLIST_BEST most
# probable translations (heed-translate's defaults, 100 and 50; Marian's --shortlist FILE 100 50).
SHORTLIST_FREQUENT=100 SHORTLIST_BEST=50
shortlist_table() {  # heed|marian: the table's path
  local table=$speed/lex.de-en.tsv
  if [ ! -s "$table" ]; then
    echo "marian_side_by_side: the shortlists' lexical table (heed-align ibm2 on the training text)" >&2
    "$BIN/heed-align" ibm2 --threads "$THREADS" --quiet --favor-diagonal --optimize-tension \
      --variational-bayes "$WORK/train.bpe.de" "$WORK/train.bpe.en" -o /dev/null \
      --lexical-table "$table.tmp" || die 70 "heed-align ibm2 failed"
    awk -F'\t' '{ print $2 " " $1 " " $3 }' "$table.tmp" > "$speed/lex.marian.s2t"
    mv "$table.tmp" "$table"
  fi
  if [ "$1" = heed ]; then echo "$table"; else echo "$speed/lex.marian.s2t"; fi
}
int8_model() {  # the Marian model converted for intgemm8 (once)
  local model out stamp
  model=$(model_of marian) out=$speed/marian.intgemm8.bin
  # converted again for another model (its path and time: a link may point elsewhere now)
  stamp="$(readlink -f "$model") $(stat -L -c %Y "$model")"
  if [ ! -s "$out" ] || [ "$(cat "$out.source" 2> /dev/null)" != "$stamp" ]; then
    # marian-conv picks the format by the name's ending: the temporary name ends in .bin too.
    "$MARIAN/marian-conv" -f "$model" -t "$out.tmp.bin" --gemm-type intgemm8 2> "$speed/marian-conv.log" ||
      die 70 "marian-conv --gemm-type intgemm8 failed: $(grep -m1 'Error:' "$speed/marian-conv.log" || tail -n 1 "$speed/marian-conv.log")"
    mv "$out.tmp.bin" "$out"
    echo "$stamp" > "$out.source"
  fi
  echo "$out"
}
decode_once() {  # ROUND SYSTEM SETTING BEAM BATCH
  local round=$1 system=$2 setting=$3 beam=$4 batch=$5 case="beam$4-batch$5"
  done_already "$round" decode "$system" "$setting" "$case" && return 0
  local input=$speed/input.64 out=$speed/out.$system.$setting.$case secs rss tokens sentences
  [ "$batch" = 1 ] && input=$speed/input.1
  echo "marian_side_by_side: round $round: decoding $system ($setting, $case)" >&2
  local precision=${setting%-shortlist} shortlist=()
  if [ "$system" = marian ]; then
    local model sort=()
    model=$(model_of marian)
    [ "$precision" = int8 ] && model=$(int8_model)
    [ "$batch" -gt 1 ] && sort=(--maxi-batch 100 --maxi-batch-sort src)
    [ "$precision" != "$setting" ] &&
      shortlist=(--shortlist "$(shortlist_table marian)" "$SHORTLIST_FREQUENT" "$SHORTLIST_BEST")
    OPENBLAS_NUM_THREADS=1 measured "$out.time" "$MARIAN/marian-decoder" -m "$model" \
      -v "$WORK/vocab.de.yml" "$WORK/vocab.en.yml" --beam-size "$beam" --mini-batch "$batch" \
      "${sort[@]}" "${shortlist[@]}" --normalize 0.6 --cpu-threads "$THREADS" --quiet \
      --log "$out.log" -i "$input" -o "$out" 2>> "$out.log" ||
      die 70 "marian-decoder failed: $(grep -m1 'Error:' "$out.log" || tail -n 1 "$out.log")"
  else
    [ "$precision" != "$setting" ] &&
      shortlist=(--shortlist "$(shortlist_table heed)" --shortlist-frequent "$SHORTLIST_FREQUENT"
                 --shortlist-best "$SHORTLIST_BEST")
    measured "$out.time" "$BIN/heed-translate" -m "$(model_of "$system")" \
      --pretokenized --beam-size "$beam" --batch-size "$batch" --precision "$precision" \
      "${shortlist[@]}" --threads "$THREADS" -i "$input" -o "$out" 2> "$out.log" ||
      die 70 "heed-translate failed: $(tail -n 1 "$out.log")"
  fi
  IFS=$'\t' read -r secs rss < "$out.time"
  sentences=$(wc -l < "$out")
  tokens=$(( $(wc -w < "$out") + sentences ))
  awk -v r="$round" -v s="$system" -v g="$setting" -v c="$case" -v t="$tokens" -v n="$sentences" \
      -v sec="$secs" -v m="$rss" 'BEGIN { printf "%s\tdecode\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\n",
      r, s, g, c, (sec > 0 ? t / sec : 0), m, sec, t, n }' >> "$raw"
}

# --- the matmul peaks: f32 and (where the CPU has it) bf16 GEMMs of 2048 (heed-bench-attn's own
# measurement, the best of 3), on THREADS threads, once a round, so that the training FLOP/s of
# each precision is a fraction of this run's peak of that precision (peak.tsv: round, f32, bf16
# or -) ---
peak=$speed/peak.tsv
peak_once() {  # ROUND
  awk -F'\t' -v r="$1" '$1 == r { f = 1 } END { exit !f }' "$peak" 2>/dev/null && return 0
  local line f32 bf16
  line=$("$BIN/heed-bench-attn" --attention dot --batch 1 --source-length 8 --target-length 1 \
    --hidden 16 --mode all-steps --pass forward --threads "$THREADS" --warmup 0 --repeats 1 \
    --format tsv -q | grep '^# matmul_peak_gflops:')
  f32=$(sed -n 's/.* f32=\([0-9.]*\).*/\1/p' <<<"$line")
  bf16=$(sed -n 's/.* bf16=\([0-9.]*\).*/\1/p' <<<"$line")
  [ -n "$f32" ] || die 70 "heed-bench-attn printed no matmul peak"
  printf '%s\t%s\t%s\n' "$1" "$f32" "${bf16:--}" >> "$peak"
}
# peak_summary COLUMN NAME: the median over rounds and the range, or nothing without the column.
peak_summary() {
  local values
  [ -f "$peak" ] || return 0
  values=$(awk -F'\t' -v c="$1" '$c != "" && $c != "-" { print $c }' "$peak")
  [ -n "$values" ] || return 0
  # shellcheck disable=SC2086
  echo "# matmul peak $2: $(heed_median $values) GFLOP/s (median of $(wc -l <<<"$values") rounds, $(sort -g <<<"$values" | head -n 1)–$(sort -g <<<"$values" | tail -n 1); GEMMs of 2048, $THREADS threads)"
}

# --- the rounds: every part, the systems one after the other ---------------------------------
if ! has_part train; then
  for system in $SYSTEMS; do
    [ -n "$(quality_model "$system")" ] ||
      die 64 "PARTS=$PARTS decodes the quality study's models, and MODELS_DIR ($MODELS_DIR) has none for $system"
  done
fi
for round in $(seq "$ROUNDS"); do
  if has_part train; then
    peak_once "$round"
    for system in $SYSTEMS; do
      for setting in $(train_settings "$system"); do train_once "$round" "$system" "$setting"; done
    done
  fi
  has_part decode || continue
  for case in "1 64" "5 64" "1 1" "5 1"; do
    read -r beam batch <<< "$case"
    for system in $SYSTEMS; do
      for setting in $(decode_settings "$system"); do
        decode_once "$round" "$system" "$setting" "$beam" "$batch"
      done
    done
  done
done

# --- the summary: medians over the rounds, min–max beside ------------------------------------
models="the first training round's models, frozen ($UPDATES updates: not a trained model's output lengths)"
[ -n "$(quality_model marian)" ] && [ "$(model_of marian)" = "$(quality_model marian)" ] &&
  models="experiments/marian's runs of the updates budget, as MODELS_DIR ($MODELS_DIR) has them: seed 1's, or the runs it links under their names (each model below)"
{
  heed_machine_report
  echo "# last measurement: $(date -u -r "$raw" +%Y-%m-%dT%H:%M:%SZ)"
  echo "# heed binaries: $("$BIN/heed-translate" --version 2>&1 | head -n 1)"
  echo "# load average at start: $(cat "$speed/load-at-start" 2> /dev/null || echo "$load")"
  echo "# lscpu flags: $(lscpu | sed -n 's/^Flags: *//p' | tr ' ' '\n' | grep -E '^(avx|fma|sse4|amx|vnni)' | tr '\n' ' ')"
  marian_builds_report "$root" "$MARIAN"
  peak_summary 2 f32
  peak_summary 3 bf16
  echo "# threads: $THREADS; rounds: $ROUNDS (interleaved)$(has_part train && echo "; updates: $UPDATES (windows of $WINDOW)")$(has_part decode && echo "; decode sentences: $SENTENCES (batch 1: $BATCH1_SENTENCES)")"
  echo "# parts: $PARTS"
  if has_part decode; then
    echo "# decoding models: $models"
    for system in $SYSTEMS; do
      echo "# decoding model $system: $(readlink -f "$(model_of "$system")")"
    done
  fi
  echo "# heed OMP_WAIT_POLICY: ${OMP_WAIT_POLICY:-unset (the libgomp default: threads spin a while, then sleep)}"
  # The sizes of docs/benchmarks.md's FLOPs table: tokens (+ </s>) of the training text.
  awk 'NR == FNR { s += NF + 1; n++; next } { t += NF + 1 } END {
         printf "# data: source_tokens %.2f; source_per_target %.3f; ", s / n, s / t }' \
    "$WORK/train.bpe.de" "$WORK/train.bpe.en"
  # The English types (marian-vocab's, without the placeholders that pad it to a multiple of 64).
  types=$(grep -v '^<unused-' "$WORK/vocab.en.yml" | grep -c ':')
  echo "target_vocabulary $(( types < 10000 ? types : 10000 ))"
  echo "# marian vocabularies: $(marian_dim_vocabs "$WORK") (the types and placeholder words up to a multiple of 64, for intgemm)"
  [ "$QUICK" = 1 ] && echo "# QUICK: a test of the pipeline, not a result"
  printf 'part\tsystem\tsetting\tcase\ttokens_per_s\ttokens_per_s_min\ttokens_per_s_max\tpeak_rss_mib\trounds\tseconds\toutput_tokens\tbleu\n'
  tail -n +2 "$raw" | cut -f2-5 | sort -u | while IFS=$'\t' read -r part system setting case; do
    rows=$(awk -F'\t' -v p="$part" -v s="$system" -v g="$setting" -v c="$case" \
      '$2 == p && $3 == s && $4 == g && $5 == c' "$raw")
    values=$(cut -f6 <<< "$rows")
    rss=$(awk -F'\t' '$7 > m { m = $7 } END { printf "%.0f", m / 1024 }' <<< "$rows")
    # Decoding: the median seconds for the same input (the outputs' lengths differ by model, and
    # tokens/s rewards the longer), the median output tokens, and the BLEU of the output (the last
    # round's, detokenized, against the lowercased reference of the same sentences): a fast
    # setting whose output is not a translation is seen as such.
    seconds=- out_tokens=- bleu=-
    if [ "$part" = decode ]; then
      out=$speed/out.$system.$setting.$case
      if [ -s "$out" ]; then
        bleu=$("$BIN/heed-tokenize" detokenize < "$out" |
          "$BIN/heed-score" --lowercase -m bleu -r <(head -n "$(wc -l < "$out")" "$WORK/test.ref.lc.en") --hyp - |
          sed -n 's/^BLEU[^=]*= \([0-9.]*\) .*/\1/p')
      fi
      # shellcheck disable=SC2046
      seconds=$(printf '%.3f' "$(heed_median $(cut -f8 <<< "$rows"))")
      # shellcheck disable=SC2046
      out_tokens=$(heed_median $(cut -f9 <<< "$rows"))
    fi
    # shellcheck disable=SC2086
    printf '%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$part" "$system" "$setting" "$case" \
      "$(heed_median $values)" "$(echo "$values" | sort -g | head -n 1)" \
      "$(echo "$values" | sort -g | tail -n 1)" "$rss" "$(echo "$values" | wc -l)" "$seconds" \
      "$out_tokens" "${bleu:--}"
  done
} > "$speed/summary.tsv"
mkdir -p "$(dirname "$RESULTS")"
cp "$speed/summary.tsv" "$RESULTS.tmp" && mv "$RESULTS.tmp" "$RESULTS"
echo "marian_side_by_side: $RESULTS" >&2
cat "$RESULTS"
