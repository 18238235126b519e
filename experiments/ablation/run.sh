#!/usr/bin/env bash
# The ablation of docs/ablation.md: one Multi30k German→English model per attention
# configuration, all with the same budget (STEPS updates of 64 sentence pairs, bf16, hidden 512,
# embed 256, the multi30k.sh recipe otherwise) and the same seeds, then for each model:
# test2016 BLEU and chrF (greedy, lowercased), BLEU by source-length bucket, best validation
# perplexity, the parameters in the attention, and the AER of its attention on the RWTH
# German–English gold (out of domain: Europarl sentences, read by models trained on image
# captions), by argmax and by shift; the report adds a paired bootstrap against dot with the
# same decoder (first seed).
#
#   bash experiments/ablation/run.sh           # everything: about four hours here, resumable
#   bash experiments/ablation/run.sh --quick   # a smoke run: one seed, seven configurations,
#                                                 # STEPS=150, under 20 minutes
#
# Stages, in this order, each unit skipped when its row is in RESULTS (so the recipe can be
# stopped at any point and called again; an interrupted training resumes from its checkpoint):
#   data    tokenize, learn BPE (experiments/multi30k/data.sh); the RWTH gold without its empty last line
#   cost    heed-bench-attn: time against source length and against hidden size, and --stats
#   runs    CONFIGS × seed 1, then the dimension SWEEP (seed 1; hidden 512 is the main run),
#           then CONFIGS × the other SEEDS: RESULTS/runs.tsv, buckets.tsv
#   speed   each configuration's training tokens/s and translation sentences/s in short runs
#           of their own, SPEED_ROUNDS interleaved rounds (RESULTS/speed-runs.tsv), so that the
#           speed columns come from moments when the recipe had the machine to itself even if
#           the long runs shared it
#   report  docs/ablation.md and its SVG plots from the files above: report.py renders the Jinja2
#           template ablation.md.j2 and draws the plots with matplotlib, so this stage needs
#           Debian's python3-jinja2 and python3-matplotlib. The recipe installs nothing: it checks
#           for them before its first stage and stops (69) naming the package that is missing.
# STAGES (default "data cost runs speed report") picks stages.
#
# Environment: BIN (build/bin), DATA (../shared/data/multi30k/raw), GOLD
# (../shared/data/rwth-deen-gold), WORK (/tmp/heed-ablation), RESULTS (experiments/ablation/results),
# STEPS (1000), SEEDS ("1 2 3"), SWEEP_HIDDEN ("128 256 1024"), SPEED_ROUNDS (3), PRECISION
# (bf16), THREADS (2), REPORT (docs/ablation.md). --quick changes the defaults of WORK
# (/tmp/heed-ablation-quick), RESULTS (WORK/results: a smoke run's numbers stay out of docs/),
# REPORT (RESULTS/ablation.md), STEPS, SEEDS, SWEEP_HIDDEN, SPEED_ROUNDS (1) and the
# configurations.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/experiments/multi30k/data.sh"

quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: ablation.sh [--quick]" >&2; exit 64 ;;
esac

BIN=${BIN:-$root/build/bin}
DATA=${DATA:-$root/../shared/data/multi30k/raw}
GOLD=${GOLD:-$root/../shared/data/rwth-deen-gold}
PRECISION=${PRECISION:-bf16}
THREADS=${THREADS:-2}
STAGES=${STAGES:-data cost runs speed report}
# id | heed-train options. dot-luong first: every other run is compared with it.
CONFIGS="dot-luong|--attention dot --decoder luong
none-luong|--attention none --decoder luong
general-luong|--attention general --decoder luong
additive-luong|--attention additive --decoder luong
scaled-dot-luong|--attention scaled-dot --decoder luong
multi-head-luong|--attention multi-head --decoder luong
location-luong|--attention location --decoder luong
local-m-luong|--attention local-m --decoder luong
local-p-luong|--attention local-p --decoder luong
linear-luong|--attention linear --decoder luong
dot-bahdanau|--attention dot --decoder bahdanau
general-bahdanau|--attention general --decoder bahdanau
additive-bahdanau|--attention additive --decoder bahdanau"
SWEEP_MECHANISMS="dot scaled-dot additive"
if [ "$quick" = 1 ]; then
  WORK=${WORK:-/tmp/heed-ablation-quick}
  RESULTS=${RESULTS:-$WORK/results}
  REPORT=${REPORT:-$RESULTS/ablation.md}
  STEPS=${STEPS:-150}
  SEEDS=${SEEDS:-1}
  SWEEP_HIDDEN=${SWEEP_HIDDEN:-128}
  SPEED_ROUNDS=${SPEED_ROUNDS:-1}
  CONFIGS=$(printf '%s\n' "$CONFIGS" | grep -E '^(dot-luong|none-luong|general-luong|additive-luong|scaled-dot-luong|linear-luong|dot-bahdanau)\|')
  cost_lengths=10,50,200
  cost_hidden=128,512
else
  WORK=${WORK:-/tmp/heed-ablation}
  RESULTS=${RESULTS:-$root/experiments/ablation/results}
  REPORT=${REPORT:-$root/docs/ablation.md}
  STEPS=${STEPS:-1000}
  SEEDS=${SEEDS:-1 2 3}
  SWEEP_HIDDEN=${SWEEP_HIDDEN:-128 256 1024}
  SPEED_ROUNDS=${SPEED_ROUNDS:-3}
  cost_lengths=10,20,50,100,200,500
  cost_hidden=128:1024:x2
fi
VALID_EVERY=$(( (STEPS + 3) / 4 ))
mkdir -p "$WORK" "$RESULTS"
log() { echo "ablation: $*" >&2; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
first_seed=${SEEDS%% *}
# Debian's Python for the scripts beside this one (the python3 on PATH may be another
# interpreter). The report needs its python3-jinja2 and python3-matplotlib: checked now rather
# than after hours of training.
python=/usr/bin/python3
if has_stage report; then
  [ -x "$python" ] || { echo "ablation: $python not found (apt-get install python3)" >&2; exit 69; }
  "$python" "$here/report.py" --check || exit 69
fi

# --- data -------------------------------------------------------------------------------------
if has_stage data; then
  multi30k_prepare "$BIN" "$DATA" "$WORK" "$THREADS"
  # The gold files end with an empty line 509; heed-align refuses empty lines.
  for f in de.utf8 en.utf8 alignmentDeEn.talp; do
    [ -f "$GOLD/$f" ] || { echo "ablation: $GOLD/$f not found (set GOLD)" >&2; exit 66; }
    head -n 508 "$GOLD/$f" > "$WORK/gold.${f%%.*}"
  done
  awk '{ print NF }' "$DATA/test_2016_flickr.de" > "$WORK/test.src_words"
  # A reference point for the attention AERs: every target word j linked to the source word at
  # the same relative position, ⌊(j + ½)·|src|/|tgt|⌋.
  if [ ! -s "$RESULTS/aer-diagonal.tsv" ]; then
    paste -d'\t' "$WORK/gold.de" "$WORK/gold.en" | awk -F'\t' '{
      ns = split($1, s, " "); nt = split($2, t, " "); line = ""
      for (j = 0; j < nt; j++) line = line (j ? " " : "") int((j + 0.5) * ns / nt) "-" j
      print line }' > "$WORK/gold.diagonal"
    "$BIN/heed-align" score --gold "$WORK/gold.alignmentDeEn" --one-based \
      --test "$WORK/gold.diagonal" > "$RESULTS/aer-diagonal.tsv"
  fi
fi

# --- cost ---------------------------------------------------------------------------------------
# Forward+backward of every step at once (training's shape), batch 64, in the run precision.
if has_stage cost; then
  # location is left out: it scores at most --max-positions (100) source positions.
  mechanisms=dot,scaled-dot,general,additive,multi-head,local-m,local-p,linear
  bench=("$BIN/heed-bench-attn" --mode all-steps --pass forward-backward --threads "$THREADS"
         --batch 64 --warmup 1 --repeats 5 --format tsv)
  if [ ! -s "$RESULTS/cost-length.tsv" ]; then
    log "cost against source length ($cost_lengths), hidden 512"
    "${bench[@]}" --attention "$mechanisms" --precision "$PRECISION" --hidden 512 \
      --source-length "$cost_lengths" \
      --target-length 20 --plot "$RESULTS/cost-length.svg" > "$WORK/cost-length.tsv"
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

# --- runs ---------------------------------------------------------------------------------------
runs_header='id\tseed\thidden\tsteps\tminutes\tbleu\tchrf\tbest_val_ppl\tattention_params\tattentional_layer_params\ttrain_tok_per_s\taer_argmax\taer_shift\tbootstrap_p_vs_dot\tcpu'
# Sessions may run on different CPUs: every row says which.
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/\t/ /g')
[ -s "$RESULTS/runs.tsv" ] || printf "$runs_header\n" > "$RESULTS/runs.tsv"
[ -s "$RESULTS/buckets.tsv" ] || printf 'id\tseed\tbucket\tsentences\tbleu\n' > "$RESULTS/buckets.tsv"
mkdir -p "$RESULTS/hyps"

done_already() {  # id seed
  awk -F'\t' -v id="$1" -v s="$2" '$1 == id && $2 == s { f = 1 } END { exit !f }' "$RESULTS/runs.tsv"
}

# heed-score prints sacreBLEU's lines: "BLEU|<signature> = 34.56 …", "chrF2|<signature> = 60.12".
score_of() {  # metric < heed-score output
  sed -n "s/^$1|[^=]* = \([0-9.]*\).*/\1/p"
}

bleu_of() {  # ref hyp → corpus BLEU
  "$BIN/heed-score" --lowercase -m bleu -r "$1" --hyp "$2" | score_of BLEU
}

# Trains and evaluates one model; appends its row to runs.tsv and its buckets to buckets.tsv.
run_one() {  # id seed hidden heed-train-options...
  local id=$1 seed=$2 hidden=$3
  shift 3
  if done_already "$id" "$seed"; then
    log "$id seed $seed: done already"
    return
  fi
  local dir=$WORK/runs/$id-s$seed
  mkdir -p "$dir"
  local resume=()
  [ -f "$dir/checkpoint.heed" ] && resume=(--resume)
  log "$id seed $seed: training, $STEPS updates${resume:+ (resumed)}"
  "$BIN/heed-train" --train-src "$WORK/train.bpe.de" --train-tgt "$WORK/train.bpe.en" \
    --valid-src "$WORK/val.bpe.de" --valid-tgt "$WORK/val.bpe.en" \
    --bpe "$WORK/codes" --tokenizer-mode aggressive --tokenizer-lowercase \
    --hidden "$hidden" --embed 256 --dropout 0.3 --label-smoothing 0.1 \
    --lr 0.001 --lr-schedule plateau --lr-decay 0.5 --clip 5 --batch-size 64 \
    --vocab-size 10000 --valid-every "$VALID_EVERY" --save-every "$VALID_EVERY" \
    --valid-bleu-sentences 200 --max-steps "$STEPS" --seed "$seed" \
    --precision "$PRECISION" --threads "$THREADS" --metrics-file "$dir/metrics.tsv" \
    -o "$dir" "${resume[@]}" -q "$@"
  # Training minutes as heed-train counts them (its checkpoints carry them across a resume).
  local minutes
  minutes=$(awk -F'\t' 'NR > 1 { s = $9 } END { printf "%.1f", s / 60 }' "$dir/metrics.tsv")
  local model=$dir/model.heed

  "$BIN/heed-translate" -m "$model" --beam-size 1 --precision "$PRECISION" --threads "$THREADS" \
    -i "$DATA/test_2016_flickr.de" -o "$dir/test.hyp" -q
  local scores bleu chrf
  scores=$("$BIN/heed-score" --lowercase -r "$WORK/test.ref.lc.en" --hyp "$dir/test.hyp")
  bleu=$(score_of BLEU <<<"$scores")
  chrf=$(score_of chrF2 <<<"$scores")
  gzip -9nc "$dir/test.hyp" > "$RESULTS/hyps/$id-s$seed.txt.gz"

  # BLEU by source length (words of the German sentence).
  local bucket
  for bucket in 1-10 11-15 16-20 21-99; do
    awk -v lo="${bucket%-*}" -v hi="${bucket#*-}" 'NR == FNR { n[FNR] = $1; next }
      n[FNR] >= lo && n[FNR] <= hi' "$WORK/test.src_words" "$dir/test.hyp" > "$dir/bucket.hyp"
    awk -v lo="${bucket%-*}" -v hi="${bucket#*-}" 'NR == FNR { n[FNR] = $1; next }
      n[FNR] >= lo && n[FNR] <= hi' "$WORK/test.src_words" "$WORK/test.ref.lc.en" > "$dir/bucket.ref"
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$seed" "$bucket" "$(wc -l < "$dir/bucket.ref")" \
      "$(bleu_of "$dir/bucket.ref" "$dir/bucket.hyp")" >> "$dir/buckets.tsv"
  done

  # AER on the RWTH gold: German is the source (i), English the target (j), as in the talp file.
  # none and linear form no weights over source positions, so they have no alignments to read.
  local aer_argmax=n/a aer_shift=n/a method
  if [[ " $* " != *" --attention none "* && " $* " != *" --attention linear "* ]]; then
    for method in argmax shift; do
      "$BIN/heed-align" -m "$model" --method "$method" --precision "$PRECISION" \
        --threads "$THREADS" "$WORK/gold.de" "$WORK/gold.en" -o "$dir/gold.$method" -q
      local aer
      aer=$("$BIN/heed-align" score --gold "$WORK/gold.alignmentDeEn" --one-based \
              --test "$dir/gold.$method" | awk -F'\t' 'NR == 2 { print $1 }')
      if [ "$method" = argmax ]; then aer_argmax=$aer; else aer_shift=$aer; fi
    done
  fi

  local params best_ppl tok_s
  # The attention's parameters and the Luong attentional layer's, from the model file's header.
  params=$("$python" "$here/count_params.py" "$model")
  best_ppl=$(awk -F'\t' 'NR > 1 && $7 != "" && $7 != "nan" && (b == "" || $7 + 0 < b + 0) { b = $7 } END { print b }' "$dir/metrics.tsv")
  tok_s=$(awk -F'\t' 'NR > 1 && $6 + 0 > 0 { print $6 }' "$dir/metrics.tsv" | sort -n |
          awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "n/a" }')
  cat "$dir/buckets.tsv" >> "$RESULTS/buckets.tsv"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$seed" "$hidden" \
    "$STEPS" "$minutes" "$bleu" "$chrf" "$best_ppl" "$params" "$tok_s" "$aer_argmax" "$aer_shift" \
    - "$cpu" >> "$RESULTS/runs.tsv"  # bootstrap_p_vs_dot: kept in the format, bootstrap.tsv has them
  log "$id seed $seed: BLEU $bleu, chrF $chrf, AER $aer_argmax / $aer_shift, $minutes min"
}

options_of() { printf '%s\n' "$CONFIGS" | awk -F'|' -v id="$1" '$1 == id { print $2 }'; }

if has_stage runs; then
  # shellcheck disable=SC2046
  for id in $(printf '%s\n' "$CONFIGS" | cut -d'|' -f1); do
    run_one "$id" "$first_seed" 512 $(options_of "$id")
  done
  for mechanism in $SWEEP_MECHANISMS; do
    for hidden in $SWEEP_HIDDEN; do
      run_one "sweep-$mechanism-h$hidden" "$first_seed" "$hidden" --attention "$mechanism" --decoder luong
    done
  done
  for seed in $SEEDS; do
    [ "$seed" = "$first_seed" ] && continue
    # shellcheck disable=SC2046
    for id in $(printf '%s\n' "$CONFIGS" | cut -d'|' -f1); do
      run_one "$id" "$seed" 512 $(options_of "$id")
    done
  done
fi

# --- speed --------------------------------------------------------------------------------------
# Per configuration and sweep point: a short training (100 updates, tokens/s over them) and a
# greedy translation of test2016 by the seed-1 model (sentences/s of heed-translate's decoding
# loop, model loading excluded). SPEED_ROUNDS interleaved rounds, every configuration once per
# round, so that the machine's drift touches all of them alike; one row per measurement in
# speed-runs.tsv, the report takes medians.
if has_stage speed; then
  speed_runs=$RESULTS/speed-runs.tsv
  [ -s "$speed_runs" ] ||
    printf 'id\thidden\tround\ttrain_tok_per_s\ttranslate_sent_per_s\tcpu\n' > "$speed_runs"
  speed_one() {  # id hidden round options...
    local id=$1 hidden=$2 round=$3
    shift 3
    if awk -F'\t' -v id="$id" -v r="$round" '$1 == id && $3 == r { f = 1 } END { exit !f }' \
         "$speed_runs"; then
      return
    fi
    local model=$WORK/runs/$id-s$first_seed/model.heed
    [ -f "$model" ] || { log "speed: no model for $id yet (runs stage first)"; return; }
    local dir=$WORK/speed/$id
    rm -rf "$dir"
    mkdir -p "$dir"
    # The metrics row comes with a validation (one sentence: its time is not in tokens/s).
    "$BIN/heed-train" --train-src "$WORK/train.bpe.de" --train-tgt "$WORK/train.bpe.en" \
      --valid-src "$WORK/val.bpe.de" --valid-tgt "$WORK/val.bpe.en" --valid-bleu-sentences 1 \
      --hidden "$hidden" --embed 256 --dropout 0.3 --batch-size 64 --vocab-size 10000 \
      --max-steps 100 --valid-every 100 --save-every 0 --precision "$PRECISION" \
      --threads "$THREADS" --metrics-file "$dir/metrics.tsv" -o "$dir" -q "$@"
    local tok_s sent_s
    tok_s=$(awk -F'\t' 'NR > 1 { v = $6 } END { print v }' "$dir/metrics.tsv")
    "$BIN/heed-translate" -v -m "$model" --beam-size 1 --precision "$PRECISION" \
      --threads "$THREADS" -i "$DATA/test_2016_flickr.de" -o "$dir/test.hyp" 2> "$dir/translate.log"
    # "[translate] N lines, T target tokens in S s: …"
    sent_s=$(sed -n 's/.*\[translate\] \([0-9]*\) lines, [0-9]* target tokens in \([0-9.]*\) s.*/\1 \2/p' \
               "$dir/translate.log" | awk '{ printf "%.1f", $1 / $2 }')
    [ -n "$tok_s" ] && [ -n "$sent_s" ] || { echo "ablation: speed of $id: no figures in $dir" >&2; exit 70; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$hidden" "$round" "$tok_s" "$sent_s" "$cpu" \
      >> "$speed_runs"
    rm -rf "$dir"
  }
  for round in $(seq 1 "$SPEED_ROUNDS"); do
    log "speed: round $round of $SPEED_ROUNDS"
    # shellcheck disable=SC2046
    for id in $(printf '%s\n' "$CONFIGS" | cut -d'|' -f1); do
      speed_one "$id" 512 "$round" $(options_of "$id")
    done
    for mechanism in $SWEEP_MECHANISMS; do
      for hidden in $SWEEP_HIDDEN; do
        speed_one "sweep-$mechanism-h$hidden" "$hidden" "$round" --attention "$mechanism" --decoder luong
      done
    done
  done
fi

# --- report -------------------------------------------------------------------------------------
if has_stage report; then
  {
    echo "steps	$STEPS"
    echo "seeds	$SEEDS"
    echo "precision	$PRECISION"
    echo "threads	$THREADS"
    echo "valid_every	$VALID_EVERY"
    echo "quick	$quick"
    n_configs=$(printf '%s\n' "$CONFIGS" | wc -l)
    n_sweep=$(( $(wc -w <<< "$SWEEP_MECHANISMS") * $(wc -w <<< "$SWEEP_HIDDEN") ))
    echo "planned_runs	$(( n_configs * $(wc -w <<< "$SEEDS") + n_sweep ))"
  } > "$RESULTS/settings.tsv"
  if [ ! -s "$RESULTS/machine.txt" ]; then
    source "$root/bench/machine.sh"
    heed_machine_report > "$RESULTS/machine.txt"
    # The ISA oneDNN dispatched, as heed-bench-attn printed it in the cost stage.
    grep -E '^# (isa|onednn):' "$RESULTS/cost-length.tsv" >> "$RESULTS/machine.txt" || true
  fi
  # Paired bootstrap (1,000 resamples) of each configuration's first-seed output against `dot`
  # with the same decoder (dot-bahdanau against dot-luong), from the outputs kept in RESULTS.
  if [ -f "$DATA/test_2016_flickr.en" ]; then
    tr '[:upper:]' '[:lower:]' < "$DATA/test_2016_flickr.en" > "$WORK/bootstrap.ref"
    printf 'id\tbaseline\tseed\tp\n' > "$RESULTS/bootstrap.tsv.tmp"
    for id in $(printf '%s\n' "$CONFIGS" | cut -d'|' -f1); do
      case $id in
        dot-luong) continue ;;
        dot-bahdanau) baseline=dot-luong ;;
        *-bahdanau) baseline=dot-bahdanau ;;
        *) baseline=dot-luong ;;
      esac
      hyp=$RESULTS/hyps/$id-s$first_seed.txt.gz base=$RESULTS/hyps/$baseline-s$first_seed.txt.gz
      [ -f "$hyp" ] && [ -f "$base" ] || continue
      gzip -dc "$base" > "$WORK/bootstrap.base"
      gzip -dc "$hyp" > "$WORK/bootstrap.hyp"
      p=$("$BIN/heed-score" --lowercase -m bleu --bootstrap 1000 -r "$WORK/bootstrap.ref" \
            --hyp "$WORK/bootstrap.base" --hyp "$WORK/bootstrap.hyp" | awk -F'\t' 'NR == 3 { print $6 }')
      printf '%s\t%s\t%s\t%s\n' "$id" "$baseline" "$first_seed" "$p" >> "$RESULTS/bootstrap.tsv.tmp"
    done
    mv "$RESULTS/bootstrap.tsv.tmp" "$RESULTS/bootstrap.tsv"
  else
    log "report: $DATA/test_2016_flickr.en not found, bootstrap.tsv kept as it is"
  fi
  "$python" "$here/report.py" --results "$RESULTS" --template "$here/ablation.md.j2" \
    --output "$REPORT"
  log "report: $REPORT"
fi
