# Prints the machine a benchmark ran on (sourced by the bench scripts; output on stdout as
# "# key: value" comment lines so that TSV readers skip it).
heed_machine_report() {
  local cpu family model
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  # A virtual machine's model name can be as bare as "AMD EPYC": family and model tell Zen 4
  # (25) from Zen 5 (26), whose matmul peaks differ.
  family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
  model=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# cpu: ${cpu:-unknown} (family ${family:-?} model ${model:-?}, $(nproc) cores visible)"
  echo "# cpu flags: $(grep -m1 '^flags' /proc/cpuinfo | grep -oE 'avx512_bf16|amx_bf16|avx512f|avx2' | sort -u | tr '\n' ' ')"
  echo "# memory: $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "# kernel: $(uname -r)"
}

# The precision heed trains and translates in by default in the scripts: bf16 where the CPU has
# bf16 arithmetic (AVX512-BF16 or AMX), f32 elsewhere (bf16 emulated would be slower than f32).
heed_default_precision() {
  if grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo; then echo bf16; else echo f32; fi
}

# median of the numbers given as arguments
heed_median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# seconds taken by a command (its output discarded unless redirected inside)
heed_time() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

# What oneDNN dispatched for a command that runs primitives ("# onednn: ..." lines): its
# version, the ISA it detected and the matmul implementations it chose.
heed_onednn_report() {
  local log
  log=$(ONEDNN_VERBOSE=1 "$@" 2>/dev/null | grep '^onednn_verbose' || true)
  echo "# onednn: $(echo "$log" | grep -m1 -o 'oneDNN v[0-9.]*'); $(echo "$log" | grep -m1 -o 'isa:.*')"
  echo "# onednn matmul: $(echo "$log" | awk -F, '$2 == "exec" && $4 == "matmul" { print $5 }' | sort -u | tr '\n' ' ')"
}

# heed_synthetic_corpus DIR: DIR/src and DIR/tgt, 6,400 pairs (64 batches × 100) of random words
# from 7,996 (+ 4 specials = 8,000 ids), 20 source and 19 target words (+ </s> = 20 tokens) each:
# the training corpus of bench/train_speed.sh and bench/train_scaling.sh.
heed_synthetic_corpus() {
  awk -v seed=7 -v dir="$1" 'BEGIN {
    srand(seed)
    for (i = 0; i < 6400; i++) {
      s = ""; t = ""
      for (j = 0; j < 20; j++) s = s (j ? " " : "") "w" int(rand() * 7996)
      for (j = 0; j < 19; j++) t = t (j ? " " : "") "w" int(rand() * 7996)
      print s > (dir "/src"); print t > (dir "/tgt")
    }
  }'
}

# The bench model of train_speed.sh and parallel_training.sh, its options but the attention's:
# bi-LSTM 256+256, LSTM 512 with input feeding, embed 256, vocabularies 8,000, batches of 64,
# Adam at a constant rate, clipping 5, no dropout or label smoothing.
HEED_BENCH_MODEL=(--decoder luong --input-feeding true --cell lstm --hidden 512 --embed 256
                  --vocab-size 8000 --dropout 0 --label-smoothing 0 --batch-size 64 --clip 5
                  --lr-schedule constant)

# heed_window_tokens METRICS: the median target tokens/s of a heed-train metrics file's windows
# after the first (warm-up); the tokens_per_s column found by name, so that an earlier build's
# metrics file reads too.
heed_window_tokens() {
  heed_median $(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "tokens_per_s") c = i; next }
                            NR > 2 { print $c }' "$1")
}
