#!/usr/bin/env bash
# heed-train --bpe-dropout: the training text tokenized but not BPE-segmented, segmented afresh
# every epoch; a run killed (SIGKILL) between checkpoints and resumed ends with the model of an
# uninterrupted run, byte for byte (the model file: the checkpoint also records the seconds
# spent); heed-translate then reads raw text with the recorded codes
# (plain BPE); and the refusals: no codes, BPE-segmented training text, P outside [0, 1), a
# vocabulary size or vocabulary files.
source "$(dirname "$0")/lib.sh"
T=$BIN/heed-train
TOK=$BIN/heed-tokenize
sample_pairs 300 20
for f in src tgt vsrc vtgt; do "$TOK" -i "$TMP/$f" -o "$TMP/$f.tok"; done
"$TOK" learn-bpe --merges 200 -i "$TMP/src.tok" -i "$TMP/tgt.tok" -o "$TMP/codes" 2>/dev/null
"$TOK" --bpe "$TMP/codes" -i "$TMP/src" -o "$TMP/src.bpe"
data=(--train-src "$TMP/src.tok" --train-tgt "$TMP/tgt.tok" --valid-src "$TMP/vsrc.tok"
      --valid-tgt "$TMP/vtgt.tok" --bpe "$TMP/codes")
model=(--hidden 16 --embed 8 --batch-size 16 --threads 1)
run=("${data[@]}" "${model[@]}" --seed 5 --bpe-dropout 0.1 --max-steps 60 --save-every 10
     --valid-every 30)

# 300 pairs in batches of 16 make 19 updates an epoch: 60 updates reach the fourth epoch, and the
# kill after update 35 falls in the second, between the checkpoints at 30 and 40.
expect_exit 0 straight -- "$T" "${run[@]}" -o "$TMP/a"
for epoch in 1 2 3 4; do
  grep -q "\[bpe-dropout\] epoch $epoch: 300 pairs segmented afresh" "$TMP/err" && ok ||
    fail "straight: no segmentation logged for epoch $epoch"
done
expect_exit 137 killed -- env HEED_TEST_KILL_AFTER_STEP=35 "$T" "${run[@]}" -q -o "$TMP/b"
expect_exit 0 resumed -- "$T" "${run[@]}" -q -o "$TMP/b" --resume
expect_same resume-exact "$TMP/a/model.heed" "$TMP/b/model.heed"

# The same run (seed, vocabularies, initial weights) with another probability draws other
# segmentations: another model.
expect_exit 0 other-p -- "$T" "${run[@]/0.1/0.5}" -q -o "$TMP/c"
cmp -s "$TMP/a/model.heed" "$TMP/c/model.heed" && fail "other-p: the same model" || ok

# The model records the codes: raw text in, plain BPE applied, a translation per line out.
expect_exit 0 translate -- "$BIN/heed-translate" -m "$TMP/a/model.heed" -i "$TMP/vsrc"
expect_eq translate-lines "$(wc -l < "$TMP/out")" 20

# Refusals, each one line before any training.
expect_exit 64 no-codes -- "$T" --train-src "$TMP/src.tok" --train-tgt "$TMP/tgt.tok" \
  "${model[@]}" --bpe-dropout 0.1 --max-steps 1 -o "$TMP/x"
expect_last_error_line train no-codes "--bpe-dropout needs --bpe CODES"
expect_exit 65 segmented -- "$T" --train-src "$TMP/src.bpe" --train-tgt "$TMP/tgt.tok" \
  --bpe "$TMP/codes" "${model[@]}" --bpe-dropout 0.1 --max-steps 1 -o "$TMP/x"
expect_last_error_line train segmented "src.bpe:[0-9]+: token [0-9]+ '[^']*￭' is a BPE piece .*not BPE-segmented"
[ -e "$TMP/x/checkpoint.heed" ] && fail "segmented: a checkpoint was written" || ok
for p in 1 1.5 -0.1; do
  expect_exit 64 "p=$p" -- "$T" "${data[@]}" "${model[@]}" --bpe-dropout "$p" --max-steps 1 -o "$TMP/x"
  expect_last_error_line train "p=$p" "--bpe-dropout.*\[0, 1\)"
done
expect_exit 64 vocab-size -- "$T" "${run[@]}" --vocab-size 300 -o "$TMP/x"
expect_last_error_line train vocab-size "--vocab-size does not apply with --bpe-dropout"
"$TOK" vocab -i "$TMP/src.tok" > "$TMP/vocab"
expect_exit 64 vocab-files -- "$T" "${run[@]}" --src-vocab "$TMP/vocab" --tgt-vocab "$TMP/vocab" -o "$TMP/x"
expect_last_error_line train vocab-files "--bpe-dropout builds the vocabularies itself"
finish
