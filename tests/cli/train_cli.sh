#!/usr/bin/env bash
# Contract tests of heed-train: exact resume after kill -9 between checkpoints, Ctrl-C saves a
# resumable checkpoint (exit 130; SIGTERM 143), a diverging run stops on the non-finite loss with the last
# checkpoint intact, and bad input fails with one error line before any training.
source "$(dirname "$0")/lib.sh"
T=$BIN/heed-train
SAMPLE=$(dirname "$0")/../../share/heed/sample
head -400 "$SAMPLE/train.en" > "$TMP/src"
head -400 "$SAMPLE/train.fr" > "$TMP/tgt"
head -20 "$SAMPLE/valid.en" > "$TMP/vsrc"
head -20 "$SAMPLE/valid.fr" > "$TMP/vtgt"
tiny=(--train-src "$TMP/src" --train-tgt "$TMP/tgt" --hidden 16 --embed 8 --vocab-size 300
      --batch-size 16 --threads 1 --seed 5 -q)

# Exact resume: an uninterrupted run and a run killed (SIGKILL) after update 25 — between the
# checkpoints at 20 and 30 — then resumed, end with byte-identical models.
expect_exit 0 straight -- "$T" "${tiny[@]}" -o "$TMP/a" --max-steps 40 --save-every 10
expect_exit 137 killed -- "$T" "${tiny[@]}" -o "$TMP/b" --max-steps 40 --save-every 10 --kill-after-step 25
expect_exit 0 resumed -- "$T" "${tiny[@]}" -o "$TMP/b" --max-steps 40 --save-every 10 --resume
expect_same resume-exact "$TMP/a/model.heed" "$TMP/b/model.heed"

# Ctrl-C (SIGINT) and SIGTERM: a checkpoint is saved, exit 130 / 143, and --resume finishes the run.
for sig in INT:130 TERM:143; do
  name=${sig%%:*} code=${sig##*:} dir=$TMP/sig-$name
  "$T" "${tiny[@]}" -o "$dir" --max-steps 100000 --save-every 0 --valid-every 0 \
    >"$TMP/out" 2>"$TMP/err" &
  pid=$!
  for _ in $(seq 100); do
    sleep 0.1
    [ -s "$TMP/err" ] && break
    kill -0 $pid 2>/dev/null || break
  done
  sleep 1
  kill -"$name" $pid
  wait $pid
  expect_eq "sig$name-exit" $? "$code"
  [ -f "$dir/checkpoint.heed" ] && ok || fail "sig$name: no checkpoint"
  expect_exit 0 "sig$name-resume" -- "$T" "${tiny[@]}" -o "$dir" --max-steps 1 --resume
  # (--max-steps 1 is already reached: the resumed run stops at once and saves the model.)
  [ -f "$dir/model.heed" ] && ok || fail "sig$name-resume: no model"
done

# A diverging run stops on the non-finite loss; the checkpoint from before stays loadable.
diverging=(--optimizer sgd --lr 1e38 --clip 0 --lr-schedule constant)
expect_exit 65 diverge -- "$T" "${tiny[@]}" -o "$TMP/d" --max-steps 200 --save-every 1 "${diverging[@]}"
expect_last_error_line train diverge "step 2: the loss is not finite.*checkpoint.heed \(step 1\) is intact"
expect_exit 0 diverge-resumable -- "$T" "${tiny[@]}" -o "$TMP/d" --max-steps 1 --resume "${diverging[@]}"

# Validation: perplexity and BLEU reach the metrics file.
expect_exit 0 valid -- "$T" "${tiny[@]}" -o "$TMP/e" --max-steps 6 --valid-every 3 \
  --valid-src "$TMP/vsrc" --valid-tgt "$TMP/vtgt" --metrics-file "$TMP/m.tsv"
expect_eq metrics-header "$(head -1 "$TMP/m.tsv" | cut -f1-8)" \
  $'step\tepoch\tloss\tperplexity\tlr\ttokens_per_s\tval_ppl\tval_bleu'
expect_eq metrics-rows "$(awk -F'\t' 'NR > 1 && $7 != "" && $8 != ""' "$TMP/m.tsv" | wc -l)" 2

# Bad input: one error line, before any training.
head -399 "$SAMPLE/train.fr" > "$TMP/short"
expect_exit 65 mismatch -- "$T" --train-src "$TMP/src" --train-tgt "$TMP/short" -o "$TMP/f" --max-steps 1
expect_last_error_line train mismatch "400.*399|399.*400"
{ head -10 "$TMP/src"; echo; tail -n +12 "$TMP/src"; } > "$TMP/holey"
expect_exit 65 empty-line -- "$T" --train-src "$TMP/holey" --train-tgt "$TMP/tgt" -o "$TMP/f" --max-steps 1
expect_last_error_line train empty-line "holey:11: empty line"
{ head -6 "$TMP/src"; printf 'caf\xe9 au lait\n'; tail -n +8 "$TMP/src"; } > "$TMP/latin1"
expect_exit 65 invalid-utf8 -- "$T" --train-src "$TMP/latin1" --train-tgt "$TMP/tgt" -o "$TMP/f" --max-steps 1
expect_last_error_line train invalid-utf8 "latin1:7: invalid UTF-8"
expect_exit 64 unknown-option -- "$T" --train-src "$TMP/src" --train-tgt "$TMP/tgt" -o "$TMP/f" --max-steps 1 --frobnicate
expect_last_error_line train unknown-option "frobnicate"
expect_exit 64 bad-attention -- "$T" "${tiny[@]}" -o "$TMP/f" --max-steps 1 --attention nope
expect_last_error_line train bad-attention "unknown attention 'nope'"
expect_exit 64 no-limit -- "$T" "${tiny[@]}" -o "$TMP/f"
expect_last_error_line train no-limit "max-steps"
expect_exit 74 unwritable -- "$T" "${tiny[@]}" -o /proc/heed-no/dir --max-steps 1
expect_last_error_line train unwritable "/proc/heed-no/dir"
expect_exit 66 missing -- "$T" --train-src "$TMP/nope" --train-tgt "$TMP/tgt" -o "$TMP/f" --max-steps 1
expect_last_error_line train missing "nope"
printf 'heed-model?' > "$TMP/g.heed"
mkdir -p "$TMP/g" && cp "$TMP/g.heed" "$TMP/g/checkpoint.heed"
expect_exit 65 corrupt-checkpoint -- "$T" "${tiny[@]}" -o "$TMP/g" --max-steps 1 --resume
expect_last_error_line train corrupt-checkpoint "checkpoint.heed"
finish
