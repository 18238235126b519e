#!/usr/bin/env bash
# Every attention mechanism, trained on Multi30k German→English by experiments/multi30k/run.sh
# for UPDATES updates (3400, about 10 idle minutes here) in PRECISION (bf16) with nothing else
# changed (EXTRA="--attention NAME"), then test2016 BLEU, greedy and beam (lowercased, as that
# recipe scores it). One row per mechanism:
#   mechanism  updates  minutes  first_train_ppl  last_train_ppl  best_val_ppl  val_bleu  test2016_greedy  test2016_beam  target_tok_per_s
# (target_tok_per_s: the median of the training log's intervals; minutes grow with the load of
# the machine, the updates do not).
#
#   bash experiments/attention-family/run.sh
#   MECHANISMS="dot general" UPDATES=1700 bash experiments/attention-family/run.sh
#
# Resumable: RESULTS (default results/attention-family-PRECISION-uUPDATES.tsv here) keeps the row
# of each finished mechanism and a mechanism that has one is skipped; an interrupted one resumes
# from its checkpoint. Environment: BIN, DATA, WORK, THREADS as experiments/multi30k/run.sh;
# MECHANISMS (default: every registered one, from heed-train --help), UPDATES, PRECISION, RESULTS.
# (results/attention_family-bf16.tsv is an earlier sweep of 10 minutes of wall-clock each.)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/build/bin}
[ -x "$BIN/heed-train" ] ||
  { echo "attention-family: $BIN/heed-train not found (build heed, or set BIN to a copy of build/bin)" >&2; exit 69; }
UPDATES=${UPDATES:-3400}
PRECISION=${PRECISION:-bf16}
WORK=${WORK:-/tmp/heed-multi30k}
RESULTS=${RESULTS:-$here/results/attention-family-$PRECISION-u$UPDATES.tsv}
if [ -z "${MECHANISMS:-}" ]; then
  # The --attention line of heed-train --help lists the registry ("…: a, b, c"), maybe wrapped.
  MECHANISMS=$("$BIN/heed-train" --help | awk '
    /--attention arg/ { on = 1 }
    on && /^  --/ && !/--attention arg/ { exit }
    on { sub(/.*attention mechanism:/, ""); printf "%s ", $0 }' | tr -s ', ' ' ')
fi
header='mechanism\tupdates\tminutes\tfirst_train_ppl\tlast_train_ppl\tbest_val_ppl\tval_bleu\ttest2016_greedy\ttest2016_beam\ttarget_tok_per_s'
mkdir -p "$(dirname "$RESULTS")"
[ -s "$RESULTS" ] || printf "$header\n" > "$RESULTS"
for mechanism in $MECHANISMS; do
  if awk -F'\t' -v m="$mechanism" '$1 == m { found = 1 } END { exit !found }' "$RESULTS"; then
    echo "attention_family: $mechanism done already (in $RESULTS)" >&2
    continue
  fi
  echo "attention_family: $mechanism, $UPDATES updates, $PRECISION" >&2
  run=family-$mechanism-$PRECISION-u$UPDATES
  # One stage; the length penalty of the beam is the recipe's chosen 0.6 (not searched per run).
  table=$(BIN=$BIN WORK=$WORK UPDATES=$UPDATES STAGES=1 ALPHA=${ALPHA:-0.6} PRECISION=$PRECISION \
          RUN=$run EXTRA="--attention $mechanism" bash "$root/experiments/multi30k/run.sh")
  # The recipe's row: stage updates minutes val_ppl val_bleu test2016_greedy test2016_beam alpha
  last=$(printf '%s\n' "$table" | tail -1)
  minutes=$(cut -f3 <<< "$last") greedy=$(cut -f6 <<< "$last") beam=$(cut -f7 <<< "$last")
  # metrics columns: step epoch loss perplexity lr tokens/s val-ppl val-BLEU
  row=$(awk -F'\t' -v m="$mechanism" -v min="$minutes" -v greedy="$greedy" -v beam="$beam" '
    NR == 1 { next }
    $4 != "" {
      if (first == "") first = $4
      last = $4
      # tokens/s: the median over logging intervals; the short last one (a few steps before the
      # time limit) says nothing.
      if ($6 != "" && $1 - step >= 10) speeds[++n] = $6
      step = $1
    }
    $7 != "" && (best == "" || $7 + 0 < best + 0) { best = $7 }
    $8 != "" { vbleu = $8 }
    END {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && speeds[j - 1] + 0 > speeds[j] + 0; j--) {
        t = speeds[j]; speeds[j] = speeds[j - 1]; speeds[j - 1] = t
      }
      tps = n % 2 ? speeds[(n + 1) / 2] : int((speeds[n / 2] + speeds[n / 2 + 1]) / 2 + 0.5)
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m, step, min, first, last, best, vbleu, greedy, beam, tps
    }' \
    "$WORK/metrics-$run.tsv")
  printf '%s\n' "$row" >> "$RESULTS"
  printf '%s\n' "$row"
done
column -t -s "$(printf '\t')" "$RESULTS" >&2
