#!/usr/bin/env bash
# Where a training update goes, phase by phase (docs/benchmarks.md "Where a training update
# goes"): heed_bench_train_phases (bench/train_phases.cpp) for f32 and bf16, in ROUNDS rounds;
# with a second build directory, that build ("before") runs beside this one in every round
# (before f32, after f32, before bf16, after bf16, …), so the machine's drift hits both.
#
#   bash bench/train_phases.sh [BUILD_DIR] [BEFORE_BUILD_DIR]
# Environment: ROUNDS (3), THREADS (2), PRECISIONS ("f32 bf16"), STEPS (10 updates per repeat),
# REPEATS (5 repeats per run).
# Output (stdout): "# " machine lines, then TSV: build precision phase ms share gflop gflops
# peak_fraction — per phase the median over rounds of each run's median; peak_fraction against
# the matmul peak each run measured at its start (the median of those is printed).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
BEFORE=${2:-}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
PRECISIONS=${PRECISIONS:-f32 bf16}
STEPS=${STEPS:-10}
REPEATS=${REPEATS:-5}
builds=()
[ -n "$BEFORE" ] && builds+=("before=$BEFORE")
builds+=("after=$BUILD")
for entry in "${builds[@]}"; do
  [ -x "${entry#*=}/bench/heed_bench_train_phases" ] || {
    echo "train_phases.sh: ${entry#*=}/bench/heed_bench_train_phases not built" >&2; exit 66; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

heed_machine_report
for round in $(seq "$ROUNDS"); do
  for precision in $PRECISIONS; do
    for entry in "${builds[@]}"; do
      name=${entry%%=*}
      echo "train_phases: round $round, $name, $precision" >&2
      "${entry#*=}/bench/heed_bench_train_phases" --precision "$precision" --threads "$THREADS" \
        --steps "$STEPS" --repeats "$REPEATS" > "$work/run"
      grep -E '^# (cpu|isa|onednn|model):' "$work/run" > "$work/about" || true
      sed -n 's/^# matmul_peak_gflops: .*\b'"$precision"'=\([0-9.]*\).*/\1/p' "$work/run" \
        >> "$work/peak.$precision"
      awk -F'\t' -v b="$name" -v p="$precision" 'BEGIN { OFS = "\t" }
        !/^#/ && $1 != "phase" { print b, p, $0 }' "$work/run" >> "$work/rows"
    done
  done
done
cat "$work/about"
for precision in $PRECISIONS; do
  mapfile -t peaks < "$work/peak.$precision"
  echo "# matmul peak $precision: median $(heed_median "${peaks[@]}") GFLOP/s over ${#peaks[@]} runs"
done
echo "# $ROUNDS rounds of $REPEATS × $STEPS updates per build and precision, $THREADS threads"
printf 'build\tprecision\tphase\tms\tshare\tgflop\tgflops\tpeak_fraction\n'
# Medians over rounds of ms; share, GFLOP/s and the peak fraction recomputed from them.
awk -F'\t' -v peaks_f32="$(heed_median $(cat "$work/peak.f32" 2>/dev/null || echo 0))" \
    -v peaks_bf16="$(heed_median $(cat "$work/peak.bf16" 2>/dev/null || echo 0))" '
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
      t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
    }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  {
    key = $1 "\t" $2 "\t" $3
    if (!(key in ms)) order[++keys] = key
    ms[key] = ms[key] " " $4; gflop[key] = $6; group[key] = $1 "\t" $2
  }
  END {
    for (k = 1; k <= keys; k++) {
      key = order[k]; split(key, f, "\t")
      m[key] = median(ms[key])
      if (f[3] == "update") total[group[key]] = m[key]
    }
    for (k = 1; k <= keys; k++) {
      key = order[k]; split(key, f, "\t")
      peak = f[2] == "bf16" ? peaks_bf16 : peaks_f32
      if (gflop[key] + 0 > 0) {
        rate = gflop[key] / (m[key] / 1000)
        printf "%s\t%.2f\t%.3f\t%s\t%.1f\t%.3f\n", key, m[key], m[key] / total[group[key]],
               gflop[key], rate, (peak > 0 ? rate / peak : 0)
      } else {
        printf "%s\t%.2f\t%.3f\t0\t-\t-\n", key, m[key], m[key] / total[group[key]]
      }
    }
  }' "$work/rows"
