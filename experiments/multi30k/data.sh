# Sourced by the Multi30k studies (experiments/multi30k/run.sh, experiments/ablation/run.sh): the
# data preparation they share.
#   multi30k_prepare BIN DATA WORK THREADS
# Lowercased aggressive tokenization, one joint BPE of 8,000 merges learnt on the German and
# English training text, applied to train and val: WORK/codes, WORK/{train,val}.bpe.{de,en},
# and the lowercased test2016 reference WORK/test.ref.lc.en (scored as the PyTorch peer
# ../shared/peers/multi30k_quality.py scores: detokenized output against the raw lowercased
# reference, 13a, as sacreBLEU -lc). Skipped when WORK/codes exists.
multi30k_prepare() {
  local bin=$1 data=$2 work=$3 threads=$4 f l split
  for f in train.de train.en val.de val.en test_2016_flickr.de test_2016_flickr.en; do
    [ -f "$data/$f" ] || { echo "multi30k: $data/$f not found (set DATA)" >&2; return 66; }
  done
  mkdir -p "$work"
  [ -f "$work/codes" ] && return 0
  local tok=(--mode aggressive --lowercase --threads "$threads")
  for l in de en; do "$bin/heed-tokenize" "${tok[@]}" -i "$data/train.$l" -o "$work/train.tok.$l"; done
  "$bin/heed-tokenize" learn-bpe --merges 8000 -i "$work/train.tok.de" -i "$work/train.tok.en" \
    -o "$work/codes.tmp"
  for split in train val; do
    for l in de en; do
      "$bin/heed-tokenize" "${tok[@]}" --bpe "$work/codes.tmp" -i "$data/$split.$l" -o "$work/$split.bpe.$l"
    done
  done
  tr '[:upper:]' '[:lower:]' < "$data/test_2016_flickr.en" > "$work/test.ref.lc.en"
  mv "$work/codes.tmp" "$work/codes"  # last: its presence means everything above is complete
}
