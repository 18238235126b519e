#!/usr/bin/env bash
# Every attention mechanism, trained on Multi30k German→English by multi30k.sh for MINUTES (10)
# in PRECISION (bf16) with nothing else changed (EXTRA="--attention NAME"), then test2016 BLEU
# (greedy, lowercased, as multi30k.sh scores it). One row per mechanism:
#   mechanism  minutes  updates  first_train_ppl  last_train_ppl  best_val_ppl  val_bleu  test2016_bleu  target_tok_per_s
# (target_tok_per_s: the median of the training log's intervals).
#
#   bash share/heed/recipes/attention_family.sh
#   MECHANISMS="dot general" MINUTES=5 bash share/heed/recipes/attention_family.sh
#
# Resumable: RESULTS (default docs/results/attention_family-$PRECISION.tsv) keeps the row of each
# finished mechanism and a mechanism that has one is skipped, so the sweep (about MINUTES + 1
# per mechanism) can be stopped and continued in another session; the unfinished mechanism
# starts again. Environment: BIN, DATA, WORK, THREADS as multi30k.sh; MECHANISMS (default:
# every registered one, from heed-train --help), MINUTES, PRECISION, RESULTS.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
BIN=${BIN:-$root/build/bin}
MINUTES=${MINUTES:-10}
PRECISION=${PRECISION:-bf16}
WORK=${WORK:-/tmp/heed-multi30k}
RESULTS=${RESULTS:-$root/docs/results/attention_family-$PRECISION.tsv}
if [ -z "${MECHANISMS:-}" ]; then
  # The --attention line of heed-train --help lists the registry ("…: a, b, c"), maybe wrapped.
  MECHANISMS=$("$BIN/heed-train" --help | awk '
    /--attention arg/ { on = 1 }
    on && /^  --/ && !/--attention arg/ { exit }
    on { sub(/.*attention mechanism:/, ""); printf "%s ", $0 }' | tr -s ', ' ' ')
fi
header='mechanism\tminutes\tupdates\tfirst_train_ppl\tlast_train_ppl\tbest_val_ppl\tval_bleu\ttest2016_bleu\ttarget_tok_per_s'
mkdir -p "$(dirname "$RESULTS")"
[ -s "$RESULTS" ] || printf "$header\n" > "$RESULTS"
for mechanism in $MECHANISMS; do
  if awk -F'\t' -v m="$mechanism" -v min="$MINUTES" '$1 == m && $2 == min { found = 1 } END { exit !found }' "$RESULTS"; then
    echo "attention_family: $mechanism done already (in $RESULTS)" >&2
    continue
  fi
  echo "attention_family: $mechanism, $MINUTES minutes, $PRECISION" >&2
  run=family-$mechanism-$PRECISION
  table=$(BIN=$BIN WORK=$WORK MINUTES=$MINUTES STAGE_MIN=$MINUTES PRECISION=$PRECISION RUN=$run \
          EXTRA="--attention $mechanism" bash "$here/multi30k.sh")
  test_bleu=$(printf '%s\n' "$table" | tail -1 | cut -f3)
  # metrics columns: step epoch loss perplexity lr tokens/s val-ppl val-BLEU
  row=$(awk -F'\t' -v m="$mechanism" -v min="$MINUTES" -v bleu="$test_bleu" '
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
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m, min, step, first, last, best, vbleu, bleu, tps
    }' \
    "$WORK/metrics-$run.tsv")
  printf '%s\n' "$row" >> "$RESULTS"
  printf '%s\n' "$row"
done
column -t -s "$(printf '\t')" "$RESULTS" >&2
