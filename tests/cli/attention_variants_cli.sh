#!/usr/bin/env bash
# The attention ablation's variants (issue 32) end to end: a tiny model of each — the concat
# decoder, general with W_a starting at the identity, scaled-dot with a learned temperature,
# one-head multi-head without the 1/√d — trains for a few updates, records its options in the
# model and the log, replays from its --print-config to the same model, and translates (greedy,
# beam, n-best, alignments) and aligns (heed-align) from the model file alone. Bad values and
# combinations fail with one error line.
source "$(dirname "$0")/lib.sh"
T=$BIN/heed-train
X=$BIN/heed-translate
A=$BIN/heed-align
sample_pairs 300 10
base=(--train-src "$TMP/src" --train-tgt "$TMP/tgt" --hidden 16 --vocab-size 200 --batch-size 16
      --dropout 0 --threads 1 --seed 3 --max-steps 8)
head -5 "$TMP/vsrc" > "$TMP/in"
head -5 "$TMP/vtgt" > "$TMP/ref"

# A model's config and its tensors' checksum (docs/model-format.md), one line.
model_identity() {
  /usr/bin/python3 - "$1" <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
meta = json.loads(data[8:8 + struct.unpack("<Q", data[:8])[0]])["__metadata__"]
print(meta["config"], meta["checksum"])
PY
}

# name | options | what the log's model line and the model file's config must say
variants=(
  "concat|--decoder concat --embed 8|decoder=concat input_feeding=off|\"decoder\":\"concat\""
  "concat-tied|--decoder concat --embed 32 --tie-embeddings|decoder=concat.* tied|\"tie_target_embeddings\":true"
  "identity|--attention general --identity-init 1 --embed 8|attention=general identity-init=1|\"identity-init\":1.0"
  "temperature|--attention scaled-dot --learn-temperature 1 --embed 8|attention=scaled-dot learn-temperature=1|\"learn-temperature\":1.0"
  "unscaled|--attention multi-head --heads 1 --attention-dim 32 --scale-scores 0 --decoder concat --embed 8|attention=multi-head heads=1 scale-scores=0 decoder=concat|\"scale-scores\":0.0"
)
for variant in "${variants[@]}"; do
  IFS='|' read -r name options logged recorded <<< "$variant"
  read -ra opts <<< "$options"
  dir=$TMP/$name
  expect_exit 0 "$name-train" -- "$T" "${base[@]}" "${opts[@]}" -o "$dir"
  grep -qE "model: .*$logged" "$TMP/err" && ok || fail "$name: log lacks '$logged': $(grep 'model:' "$TMP/err")"
  grep -qaF "${recorded//\"/\\\"}" "$dir/model.heed" && ok || fail "$name: model config lacks $recorded"
  # --print-config replays: the same options give the same config and the same weights.
  expect_exit 0 "$name-print" -- "$T" "${base[@]}" "${opts[@]}" -o "$dir" --print-config
  cp "$TMP/out" "$TMP/$name.cfg"
  expect_exit 0 "$name-replay" -- "$T" --config "$TMP/$name.cfg" -o "$dir-replay" -q
  expect_eq "$name-replay-model" "$(model_identity "$dir-replay/model.heed")" \
    "$(model_identity "$dir/model.heed")"
  # Decoding from the model file alone.
  expect_exit 0 "$name-greedy" -- "$X" -m "$dir/model.heed" -i "$TMP/in" -b 1 --threads 1
  expect_eq "$name-greedy-lines" "$(wc -l < "$TMP/out")" 5
  expect_exit 0 "$name-nbest" -- "$X" -m "$dir/model.heed" -i "$TMP/in" -b 3 --n-best 2 --threads 1
  expect_eq "$name-nbest-lines" "$(wc -l < "$TMP/out")" 10
  expect_exit 0 "$name-hard" -- "$X" -m "$dir/model.heed" -i "$TMP/in" -b 3 --alignment hard --threads 1
  grep -qE ' \|\|\| ([0-9]+-[0-9]+( |$))*$' "$TMP/out" && ok || fail "$name: hard alignment: $(head -2 "$TMP/out")"
  expect_exit 0 "$name-align" -- "$A" -m "$dir/model.heed" "$TMP/in" "$TMP/ref" --threads 1
  expect_eq "$name-align-lines" "$(wc -l < "$TMP/out")" 5
  grep -qE '^([0-9]+-[0-9]+( |$))+$' "$TMP/out" && ok || fail "$name: heed-align: $(head -2 "$TMP/out")"
done

# Bad values and combinations: exit 64, one error line naming the option.
expect_exit 64 tie-width -- "$T" "${base[@]}" --decoder concat --tie-embeddings --embed 16 -o "$TMP/bad"
expect_last_error_line train tie-width "--tie-embeddings with --decoder concat needs --embed equal to the output layer's input width, context \+ hidden = 32 \(the embeddings are 16 wide\)"
expect_exit 64 concat-feeding -- "$T" "${base[@]}" --decoder concat --input-feeding true -o "$TMP/bad"
expect_last_error_line train concat-feeding "--input-feeding is a Luong notion; the concat decoder"
expect_exit 64 decoder-name -- "$T" "${base[@]}" --decoder plain -o "$TMP/bad"
expect_last_error_line train decoder-name "expected luong, bahdanau or concat"
expect_exit 64 temperature-range -- "$T" "${base[@]}" --attention scaled-dot --learn-temperature 2 -o "$TMP/bad"
expect_last_error_line train temperature-range "--learn-temperature"
expect_exit 64 scale-scores-elsewhere -- "$T" "${base[@]}" --attention general --scale-scores 0 -o "$TMP/bad"
expect_last_error_line train scale-scores-elsewhere "--scale-scores does not apply to attention 'general'"
expect_exit 64 identity-elsewhere -- "$T" "${base[@]}" --attention dot --identity-init 1 -o "$TMP/bad"
expect_last_error_line train identity-elsewhere "--identity-init does not apply to attention 'dot'"
[ -e "$TMP/bad" ] && fail "a refused run left an output directory" || ok

# --print-config of a Bahdanau or concat run does not write --input-feeding (which those refuse
# as true), so it replays.
expect_exit 0 bahdanau-print -- "$T" "${base[@]}" --decoder bahdanau -o "$TMP/b" --print-config
grep -q '^input-feeding' "$TMP/out" && fail "bahdanau --print-config writes input-feeding" || ok
cp "$TMP/out" "$TMP/b.cfg"
expect_exit 0 bahdanau-replay -- "$T" --config "$TMP/b.cfg" -q
finish
