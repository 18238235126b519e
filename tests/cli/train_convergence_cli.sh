#!/usr/bin/env bash
# heed-train's convergence tools, end to end: the inv-sqrt and cosine schedules reach the metrics
# file at every logged update, exponential smoothing resumes exactly after kill -9, tied target
# embeddings train, save and translate, --keep-models keeps the last N models and heed-average
# averages them, and early stopping says when and why it stopped.
source "$(dirname "$0")/lib.sh"
T=$BIN/heed-train
sample_pairs 400 20
valid=(--valid-src "$TMP/vsrc" --valid-tgt "$TMP/vtgt")
base=(--train-src "$TMP/src" --train-tgt "$TMP/tgt" --vocab-size 300 --batch-size 16 --threads 1
      --seed 5 -q)
tiny=("${base[@]}" --hidden 16 --embed 8)

# Schedules: the rate of every logged update, by hand. cosine, warm-up 4, peak 1e-3, floor 1e-5,
# 20 updates: update 12 is halfway (5.05e-4), update 20 at the floor.
expect_exit 0 cosine -- "$T" "${tiny[@]}" -o "$TMP/cos" --max-steps 20 --lr-schedule cosine \
  --warmup-steps 4 --min-lr 1e-5 --log-every 2 --valid-every 0 --metrics-file "$TMP/cos.tsv"
expect_eq cosine-rows "$(awk -F'\t' 'NR > 1' "$TMP/cos.tsv" | wc -l)" 10
expect_eq cosine-header-event "$(head -1 "$TMP/cos.tsv" | cut -f10)" event
expect_eq cosine-warmup "$(awk -F'\t' '$1 == 2 { print $5 }' "$TMP/cos.tsv")" 0.0005
expect_eq cosine-half "$(awk -F'\t' '$1 == 12 { print $5 }' "$TMP/cos.tsv")" 0.000505
expect_eq cosine-end "$(awk -F'\t' '$1 == 20 { print $5 }' "$TMP/cos.tsv")" 1e-05
expect_exit 0 inv-sqrt -- "$T" "${tiny[@]}" -o "$TMP/isq" --max-steps 16 --lr-schedule inv-sqrt \
  --warmup-steps 4 --log-every 4 --valid-every 0 --metrics-file "$TMP/isq.tsv"
expect_eq inv-sqrt-16 "$(awk -F'\t' '$1 == 16 { print $5 }' "$TMP/isq.tsv")" 0.0005
expect_exit 64 inv-sqrt-no-warmup -- "$T" "${tiny[@]}" -o "$TMP/x" --max-steps 5 --lr-schedule inv-sqrt
expect_last_error_line train inv-sqrt-no-warmup "inv-sqrt needs --warmup-steps"
expect_exit 64 cosine-no-budget -- "$T" "${tiny[@]}" -o "$TMP/x" --time-limit 5 --lr-schedule cosine
expect_last_error_line train cosine-no-budget "cosine .*--max-steps"

# Exponential smoothing: kill -9 between checkpoints, resume, and the averaged model, the kept
# models are byte-identical to an uninterrupted run's.
ema=(--exponential-smoothing 0.05 --max-steps 40 --save-every 10 --keep-models 2)
expect_exit 0 ema-straight -- "$T" "${tiny[@]}" -o "$TMP/ea" "${ema[@]}"
expect_exit 137 ema-killed -- env HEED_TEST_KILL_AFTER_STEP=25 "$T" "${tiny[@]}" -o "$TMP/eb" "${ema[@]}"
expect_exit 0 ema-resumed -- "$T" "${tiny[@]}" -o "$TMP/eb" "${ema[@]}" --resume
expect_same ema-resume-exact "$TMP/ea/model.heed" "$TMP/eb/model.heed"
expect_same ema-resume-kept "$TMP/ea/model.step-30.heed" "$TMP/eb/model.step-30.heed"
expect_eq keep-models "$(cd "$TMP/ea" && ls model.step-*.heed | sort | tr '\n' ' ')" \
  "model.step-30.heed model.step-40.heed "
# Without smoothing the same run ends with other weights in model.heed.
expect_exit 0 no-ema -- "$T" "${tiny[@]}" -o "$TMP/ec" --max-steps 40 --save-every 10
cmp -s "$TMP/ea/model.heed" "$TMP/ec/model.heed" && fail "ema: model.heed is the live weights" || ok
expect_exit 64 ema-range -- "$T" "${tiny[@]}" -o "$TMP/x" --max-steps 5 --exponential-smoothing 1
expect_last_error_line train ema-range "exponential-smoothing"

# Whole-word dropout (--dropout-src, --dropout-trg): its draws come from the checkpointed stream,
# so a killed run resumes byte-identically; it changes what is learnt; its range is checked.
words=(--dropout-src 0.2 --dropout-trg 0.2 --max-steps 30 --save-every 10)
expect_exit 0 words-straight -- "$T" "${tiny[@]}" -o "$TMP/wa" "${words[@]}"
expect_exit 137 words-killed -- env HEED_TEST_KILL_AFTER_STEP=15 "$T" "${tiny[@]}" -o "$TMP/wb" "${words[@]}"
expect_exit 0 words-resumed -- "$T" "${tiny[@]}" -o "$TMP/wb" "${words[@]}" --resume
expect_same words-resume-exact "$TMP/wa/model.heed" "$TMP/wb/model.heed"
expect_exit 0 no-words -- "$T" "${tiny[@]}" -o "$TMP/wc" --max-steps 30 --save-every 10
cmp -s "$TMP/wa/model.heed" "$TMP/wc/model.heed" && fail "word dropout: no effect" || ok
expect_exit 64 words-range -- "$T" "${tiny[@]}" -o "$TMP/x" --max-steps 5 --dropout-trg 1
expect_last_error_line train words-range "dropout-trg"

# heed-average: the mean of a model with itself is that model, byte for byte; the mean of the two
# kept models translates; another architecture is refused naming both files.
expect_exit 0 average-self -- "$BIN/heed-average" -o "$TMP/self.heed" "$TMP/ea/model.step-40.heed" \
  "$TMP/ea/model.step-40.heed"
expect_same average-self-identity "$TMP/self.heed" "$TMP/ea/model.step-40.heed"
expect_exit 0 average -- "$BIN/heed-average" -o "$TMP/avg.heed" "$TMP/ea"/model.step-*.heed
cmp -s "$TMP/avg.heed" "$TMP/ea/model.step-40.heed" && fail "average: equals one input" || ok
expect_exit 0 average-translates -- "$BIN/heed-translate" -m "$TMP/avg.heed" -i "$TMP/vsrc" --threads 1
expect_eq average-lines "$(wc -l < "$TMP/out")" 20
expect_exit 0 average-checkpoint -- "$BIN/heed-average" -o "$TMP/ck.heed" "$TMP/ea/checkpoint.heed"
expect_exit 0 other-arch -- "$T" "${base[@]}" -o "$TMP/wide" --max-steps 2 --hidden 24 --embed 8
expect_exit 65 average-other -- "$BIN/heed-average" -o "$TMP/bad.heed" "$TMP/avg.heed" "$TMP/wide/model.heed"
expect_error_line average average-other "wide/model.heed: another architecture .*avg.heed"
[ -e "$TMP/bad.heed" ] && fail "average-other: wrote an output" || ok

# Issue 62. heed-average averages like with like: a checkpoint that keeps a moving average gives
# it (the weights its run's models hold), so with the kept model of its own step it averages to
# that model byte for byte (it mixed the checkpoint's live weights in); a moving average and live
# weights together are refused (65) with a sentence, and nothing is written.
expect_exit 0 average-like-with-like -- "$BIN/heed-average" -o "$TMP/like.heed" \
  "$TMP/ea/model.step-40.heed" "$TMP/ea/checkpoint.heed"
expect_same average-like-with-like-same "$TMP/like.heed" "$TMP/ea/model.step-40.heed"
expect_exit 65 average-mixed -- "$BIN/heed-average" -o "$TMP/mixed.heed" \
  "$TMP/ea/model.step-40.heed" "$TMP/ec/checkpoint.heed"
expect_error_line average average-mixed "ec/checkpoint.heed holds live weights, .*model.step-40.heed a moving average of the weights .*: average like with like"
[ -e "$TMP/mixed.heed" ] && fail "average-mixed: wrote an output" || ok

# Tied target embeddings: the log counts the saving; the model translates and resumes.
tied=("${base[@]}" --hidden 16 --embed 16 --tie-embeddings)
expect_exit 0 tied -- "$T" "${tied[@]}" -o "$TMP/tied" --max-steps 6 --save-every 3 -v
grep -q "saved by tying" "$TMP/err" && ok || fail "tied: no parameter saving in the log"
expect_exit 0 tied-translates -- "$BIN/heed-translate" -m "$TMP/tied/model.heed" -i "$TMP/vsrc" --threads 1 --beam-size 3
expect_eq tied-lines "$(wc -l < "$TMP/out")" 20
expect_exit 0 tied-resume -- "$T" "${tied[@]}" -o "$TMP/tied" --max-steps 9 --resume
expect_exit 64 tied-sizes -- "$T" "${tiny[@]}" -o "$TMP/x" --max-steps 2 --tie-embeddings
expect_last_error_line train tied-sizes "tie-embeddings needs --embed equal to --hidden"

# Early stopping: SGD at 1e-30 leaves the weights as they are, so no validation after the first
# is better; patience 2 stops at the third validation, and the log and the metrics say so.
expect_exit 0 early-stop -- "$T" "${tiny[@]}" -o "$TMP/es" "${valid[@]}" --max-steps 100 \
  --optimizer sgd --lr 1e-30 --min-lr 0 --lr-schedule constant --valid-every 2 --patience 2 \
  --log-every 0 --metrics-file "$TMP/es.tsv" --log-level info
grep -q "early stopping: 2 validations without a better perplexity since step 2" "$TMP/err" && ok ||
  fail "early-stop: no reason in the log: $(grep -i early "$TMP/err")"
grep -q "done: 6 updates.*stopped by early-stopping; best model at step 2" "$TMP/err" && ok ||
  fail "early-stop: $(grep done: "$TMP/err")"
expect_eq early-stop-events "$(cut -f1,10 "$TMP/es.tsv" | tail -n +2 | tr '\t\n' ': ')" \
  "2:best 4: 6:early-stop "
finish
