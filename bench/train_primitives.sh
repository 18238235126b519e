#!/usr/bin/env bash
# Where a training update's oneDNN time goes, primitive by primitive (docs/benchmarks.md "heed
# beside Marian", bf16 training against its peak): one heed-train run of UPDATES updates with
# ONEDNN_VERBOSE=1, each primitive's executions summed by propagation and problem (calls, ms an
# update; GFLOP/s and the fraction of the matmul peak for RNN and matmul primitives), against the
# peak heed-bench-attn measures just before, and the update's time from heed-train --profile of
# the same run. The verbose lines cost the run time of their own (one line per execution), so
# compare the rows with each other, not the total with an unverbose run.
#
#   bash bench/train_primitives.sh BUILD_DIR TRAIN_SRC TRAIN_TGT [heed-train model options...]
# e.g. the marian bench's nearest arrangement on its BPE text:
#   bash bench/train_primitives.sh build /work/heed-marian/train.bpe.{de,en} \
#     --hidden 512 --embed 256 --decoder bahdanau --attention additive
# Environment: UPDATES (40), THREADS (2), PRECISION (bf16 where the CPU has bf16, else f32),
# TOP (25 rows). The training options are the marian bench's (batch 64, Adam 1e-3 constant,
# clip 5, no dropout, no label smoothing, seed 1).
# Output (stdout): "# " machine and run lines, then train_primitives.py's TSV.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/machine.sh"
die() { local code=$1; shift; echo "train_primitives: $*" >&2; exit "$code"; }
[ $# -ge 3 ] || die 64 "usage: train_primitives.sh BUILD_DIR TRAIN_SRC TRAIN_TGT [options...]"
BIN=$1/bin src=$2 tgt=$3
shift 3
UPDATES=${UPDATES:-40}
THREADS=${THREADS:-2}
PRECISION=${PRECISION:-$(heed_default_precision)}
TOP=${TOP:-25}
[ -x "$BIN/heed-train" ] || die 69 "$BIN/heed-train not found"
for f in "$src" "$tgt"; do [ -r "$f" ] || die 66 "cannot read $f"; done
[[ "$UPDATES" =~ ^[1-9][0-9]*$ ]] || die 64 "UPDATES must be a positive number of updates"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

peak=$("$BIN/heed-bench-attn" --attention dot --batch 1 --source-length 8 --target-length 1 \
  --hidden 16 --mode all-steps --pass forward --threads "$THREADS" --warmup 0 --repeats 1 \
  --format tsv -q | sed -n "s/^# matmul_peak_gflops:.* $PRECISION=\([0-9.]*\).*/\1/p")
[ -n "$peak" ] || die 70 "heed-bench-attn printed no $PRECISION matmul peak"
# The profile counts the updates after the first window (WINDOW of them).
window=$(( UPDATES >= 20 ? UPDATES / 4 : 1 ))
ONEDNN_VERBOSE=1 "$BIN/heed-train" "$@" --vocab-size 10000 --train-src "$src" --train-tgt "$tgt" \
  --batch-size 64 --max-steps "$UPDATES" --log-every "$window" --valid-every 0 \
  --save-every 1000000 --lr 0.001 --lr-schedule constant --clip 5 --dropout 0 \
  --label-smoothing 0 --precision "$PRECISION" --threads "$THREADS" --seed 1 \
  --profile "$work/profile.tsv" -o "$work/run" -q > "$work/verbose" 2> "$work/stderr" ||
  die 70 "heed-train failed: $(tail -n 1 "$work/stderr")"

heed_machine_report
echo "# heed: $("$BIN/heed-train" --version 2>&1 | head -n 1)"
echo "# run: heed-train $* --precision $PRECISION --threads $THREADS, $UPDATES updates"
echo "# matmul peak ($PRECISION, heed-bench-attn, just before): $peak GFLOP/s"
awk -F'\t' '/^# heed-train --profile/ { sub(/^# /, ""); print "# " $0 }
  $1 == "update" { print "# update (--profile): " $4 " ms" }' "$work/profile.tsv"
/usr/bin/python3 "$here/train_primitives.py" --updates "$UPDATES" --peak "$peak" --top "$TOP" \
  < "$work/verbose"
