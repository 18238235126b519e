# What bench/marian_side_by_side.sh (speed) and experiments/marian/run.sh (quality) share: the
# data both toolkits read, the two architectures, and the Marian build's description. Sourced,
# not run; needs bench/machine.sh sourced first.

# The closest architectures (docs/benchmarks.md, "heed beside Marian", tables where they differ).
# Marian's RNN encoder-decoder: bi-LSTM encoder 512 per direction (context 1,024), the
# conditional LSTM decoder (cell 1 on the previous word, MLP attention queried by its output,
# cell 2 on the context), deep output tanh(W[emb; state; context]) of dim-emb, then the vocabulary.
MARIAN_ARCH=(--type s2s --enc-type bidirectional --enc-cell lstm --dec-cell lstm --dim-rnn 512
             --dim-emb 256 --enc-depth 1 --dec-depth 1)
# marian_dim_vocabs WORK: Marian's --dim-vocabs for WORK/vocab.{de,en}.yml. Given a size, Marian
# makes its embeddings and output layer that wide even when the vocabulary is smaller (with
# "--dim-vocabs 10000 10000" on Multi30k's 4,369 English types it computed a softmax over 10,000),
# so each is the vocabulary's own size rounded up to a multiple of 32: intgemm's int8 kernels need
# the output layer's columns in multiples of 32 (marian-decoder asserts `cols % RegisterElems == 0`
# on 4,369), and 15 unused rows at most cost Marian under 0.4 % more output work than heed's
# vocabularies of the same types (heed's --vocab-size 10000 is a cap it does not reach).
marian_dim_vocabs() {
  local l n dims=()
  for l in de en; do
    n=$(grep -c ':' "$1/vocab.$l.yml")
    [ "$n" -le 10000 ] || n=10000
    dims+=($(( (n + 31) / 32 * 32 )))
  done
  echo "--dim-vocabs ${dims[*]}"
}
# heed's nearest: Bahdanau's arrangement (the query is the previous state, the context is fed
# into the one RNN) with additive (MLP) attention, encoder 256 per direction, decoder 512.
HEED_MARIAN_LIKE=(--decoder bahdanau --attention additive --cell lstm --hidden 512 --embed 256
                  --vocab-size 10000)
# heed's own recipe's model (experiments/multi30k/run.sh): Luong with input feeding, general.
HEED_RECIPE_MODEL=(--decoder luong --attention general --cell lstm --hidden 512 --embed 256
                   --vocab-size 10000)

# marian_prepare BIN MARIAN WORK THREADS DATA: heed's Multi30k preparation (the recipe's rule
# multi30k_prepare of experiments/common/multi30k.smk, run by Snakemake: lowercased aggressive
# tokenization, ONE joint BPE of 8,000 merges learnt by heed-tokenize learn-bpe) into WORK, plus
# what Marian reads: WORK/test.bpe.de (test2016, the same tokenization and BPE) and its
# vocabularies WORK/vocab.{de,en}.yml, made by marian-vocab from the same segmented training
# text. Skipped when done.
marian_prepare() {
  local bin=$1 marian=$2 work=$3 threads=$4 data=$5 l
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
  command -v snakemake > /dev/null ||
    { echo "marian: snakemake not found (apt-get install snakemake): it prepares the data" >&2; exit 69; }
  mkdir -p "$work"
  snakemake -s "$root/experiments/multi30k/Snakefile" -d "$work" \
    --profile "$root/experiments/profiles/local" --cores "$threads" multi30k_prepare \
    --config bin="$bin" data="$data" work="$work" threads="$threads" > "$work/prepare.log" 2>&1 ||
    { echo "marian: preparing the data failed (Snakemake's log: $work/prepare.log)" >&2; tail -n 5 "$work/prepare.log" >&2; exit 70; }
  if [ ! -s "$work/test.bpe.de" ]; then
    "$bin/heed-tokenize" --mode aggressive --lowercase --threads "$threads" --bpe "$work/codes" \
      -i "$data/test_2016_flickr.de" -o "$work/test.bpe.de.tmp"
    mv "$work/test.bpe.de.tmp" "$work/test.bpe.de"
  fi
  for l in de en; do
    if [ ! -s "$work/vocab.$l.yml" ]; then
      "$marian/marian-vocab" < "$work/train.bpe.$l" > "$work/vocab.$l.yml.tmp" 2>> "$work/marian-vocab.log"
      mv "$work/vocab.$l.yml.tmp" "$work/vocab.$l.yml"
    fi
  done
}

# marian_require MARIAN: exits 69 unless MARIAN holds the binaries of bench/peers/marian/build.sh.
marian_require() {
  local b
  for b in marian marian-decoder marian-vocab; do
    [ -x "$1/$b" ] || { echo "marian: $1/$b not found (bash bench/peers/marian/build.sh $1)" >&2; exit 69; }
  done
}

# "# key: value" lines: the two builds (heed's commit, Marian's and intgemm's from build-info.txt).
marian_builds_report() {
  local root=$1 marian=$2
  echo "# heed: $(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- lib tools 2>/dev/null || echo ' (lib/tools modified)')"
  if [ -f "$marian/build-info.txt" ]; then
    sed -n -e 's/^marian_commit: /# marian: /p' -e 's/^marian_version: /# marian version: /p' \
      -e 's/^intgemm_commit: /# intgemm: /p' -e 's/^intgemm_note: /# intgemm note: /p' \
      -e 's/^build_arch: /# marian build arch: /p' -e 's/^blas: /# marian blas: /p' "$marian/build-info.txt"
  else
    echo "# marian: unknown (no $marian/build-info.txt)"
  fi
}

# marian_words_per_s LOG: Marian's target words/s of every display window (its "N words/s" field).
marian_words_per_s() {
  sed -n 's/.* \([0-9][0-9.,]*\) words\/s.*/\1/p' "$1" | tr -d ','
}
