# shellcheck shell=bash
# What bench/marian_side_by_side.sh (speed) and experiments/marian/Snakefile (quality) share
# in bash: the systems' options (systems.yaml, read by systems.py), Marian's vocabulary sizes,
# the data both toolkits read (prepared by the quality study's rules), and the Marian build's
# description. Sourced, not run; marian_builds_report needs bench/machine.sh sourced first.
MARIAN_PEER=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# marian_system_options SYSTEM [--no-dropout]: SYSTEM's model options, one a line (systems.yaml:
# Marian's architecture; heed's: the Multi30k recipe's model_options and the system's own).
marian_system_options() {
  /usr/bin/python3 "$MARIAN_PEER/systems.py" "$@"
}

# marian_dim_vocabs WORK: Marian's --dim-vocabs for WORK/vocab.{de,en}.yml. Given a size, Marian
# makes its embeddings and output layer that wide even when the vocabulary is smaller (with
# "--dim-vocabs 10000 10000" on Multi30k's 4,369 English types it computed a softmax over 10,000),
# so each is the vocabulary's own size, a multiple of 64: intgemm's int8 kernels need the output
# layer's columns in multiples of their register's int8 lanes, 32 with AVX2 and 64 with AVX-512BW
# (marian-decoder asserts `cols % RegisterElems == 0`: on 4,369 columns on an AVX2 CPU, and on
# 4,384, a multiple of 32 only, on an AVX-512 one). The study's rule marian_vocab pads the
# vocabularies with placeholder words to that size (an id without a word makes marian-decoder
# abort when a model chooses it); the sizes are rounded up here too. 63 unused rows at most cost
# Marian under 1.5 % more output work than heed's vocabularies of the same types (heed's
# --vocab-size 10000 is a cap it does not reach).
marian_dim_vocabs() {
  local l n dims=()
  for l in de en; do
    n=$(grep -c ':' "$1/vocab.$l.yml")
    [ "$n" -le 10000 ] || n=10000
    dims+=($(( (n + 63) / 64 * 64 )))
  done
  echo "--dim-vocabs ${dims[*]}"
}

# marian_prepare BIN MARIAN WORK THREADS DATA: the data both read, in WORK, made by the quality
# study's rules (experiments/marian/Snakefile, run by Snakemake with WORK its working directory):
# the Multi30k recipe's preparation (multi30k_prepare: lowercased aggressive tokenization, ONE
# joint BPE of 8,000 merges learnt by heed-tokenize learn-bpe, WORK/{train,val}.bpe.{de,en}),
# test2016 in the same tokenization and BPE (WORK/test.bpe.de), and Marian's vocabularies
# WORK/vocab.{de,en}.yml, made by marian-vocab from the same segmented training text. Nothing is
# made again that is up to date. Exits 69 without snakemake, 70 when a step fails.
marian_prepare() {
  local bin marian work threads=$4 data root
  bin=$(realpath -m "$1") marian=$(realpath -m "$2") work=$(realpath -m "$3") data=$(realpath -m "$5")
  root=$(cd "$MARIAN_PEER/../../.." && pwd)
  command -v snakemake > /dev/null ||
    { echo "marian: snakemake not found (apt-get install snakemake): it prepares the data" >&2; exit 69; }
  mkdir -p "$work"
  if ! snakemake -s "$root/experiments/marian/Snakefile" -d "$work" \
         --profile "$root/experiments/profiles/local" --cores "$threads" \
         "$work/test.bpe.de" "$work/vocab.de.yml" "$work/vocab.en.yml" \
         --config bin="$bin" marian="$marian" work="$work" threads="$threads" data="$data" \
         > "$work/prepare.log" 2>&1; then
    echo "marian: preparing the data failed (Snakemake's log: $work/prepare.log):" >&2
    grep -m 3 '^marian: \|^multi30k: \|Error\|Exception' "$work/prepare.log" >&2 || tail -n 3 "$work/prepare.log" >&2
    exit 70
  fi
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
