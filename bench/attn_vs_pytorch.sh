#!/usr/bin/env bash
# Attention alone, heed beside PyTorch, in one run on this machine (issue 16): forward+backward
# of every target step at once (heed-bench-attn --mode all-steps --pass forward-backward), batch
# 64, hidden 512 (Q = K = A), source length = target length L, f32, for dot, general,
# scaled-dot, multi-head (4 heads) and additive. The PyTorch side is bench/attn_pytorch.py (the
# forms PyTorch NMT toolkits use: bmm/softmax/bmm, OpenNMT-py's broadcast "mlp" for additive,
# torch.nn.MultiheadAttention), on Debian's python3-torch with OpenBLAS.
#
# Repeats are interleaved: ROUNDS rounds of (heed L, PyTorch L) for every mechanism and length,
# each side's figure the median of its rounds' medians, so the machine's drift hits both sides.
# heed-bench-attn measures the machine's f32 GEMM peak at the start of each call, so every
# peak_fraction is against the peak measured beside it.
#
#   bash bench/attn_vs_pytorch.sh [BUILD_DIR]
# Environment: THREADS (2), ROUNDS (2), REPEATS (5 per round), MECHANISMS ("dot general
# scaled-dot multi-head additive"), LENGTHS ("10 20 50 100 200 500"), BLAS_DIR (OpenBLAS for
# PyTorch, made by ../shared/peers/setup_blas.sh; /tmp/blas by default).
# Output (stdout, TSV after "# " machine lines): mechanism length heed_ms pytorch_ms speedup
# heed_gflops peak_fraction pytorch_peak_fraction ceiling; pytorch_ms is n/a where its broadcast
# form needs more memory than the machine has (attn_pytorch.py --max-gib). pytorch_peak_fraction
# is the mechanism's FLOPs in PyTorch's time against the same peak; ceiling = 1 /
# pytorch_peak_fraction is the largest speed-up any implementation could show over PyTorch
# without exceeding the machine's measured matmul peak.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/machine.sh"
BUILD=${1:-$root/build}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-2}
REPEATS=${REPEATS:-5}
MECHANISMS=${MECHANISMS:-dot general scaled-dot multi-head additive}
LENGTHS=${LENGTHS:-10 20 50 100 200 500}
BLAS_DIR=${BLAS_DIR:-/tmp/blas}
bench=$BUILD/bin/heed-bench-attn
[ -x "$bench" ] || { echo "attn_vs_pytorch.sh: $bench not built (cmake --build $BUILD)" >&2; exit 66; }
/usr/bin/python3 -c 'import torch' 2>/dev/null || {
  echo "attn_vs_pytorch.sh: /usr/bin/python3 has no torch (apt-get install python3-torch)" >&2; exit 69; }
[ -d "$BLAS_DIR/openblas-openmp" ] || {
  echo "attn_vs_pytorch.sh: no OpenBLAS in $BLAS_DIR (sh ../shared/peers/setup_blas.sh $BLAS_DIR);" \
       "PyTorch on Debian's generic libblas would not be at its best" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

heed_machine_report
echo "# pytorch: $(/usr/bin/python3 -c 'import torch; print(torch.__version__)') on $BLAS_DIR/openblas-openmp, $THREADS threads"
echo "# shape: batch 64, hidden 512, source = target length, f32, forward+backward, all steps;" \
     "$ROUNDS interleaved rounds of $REPEATS repeats"

for round in $(seq "$ROUNDS"); do
  for mechanism in $MECHANISMS; do
    for length in $LENGTHS; do
      echo "attn_vs_pytorch: round $round, $mechanism, L = $length" >&2
      # heed: name every column by the TSV header (stable names, heed-bench-attn(1)).
      "$bench" --attention "$mechanism" --mode all-steps --pass forward-backward --precision f32 \
        --threads "$THREADS" --batch 64 --hidden 512 --heads 4 --source-length "$length" \
        --target-length "$length" --warmup 1 --repeats "$REPEATS" --format tsv 2>"$work/heed.log" |
        awk -F'\t' -v machine="$work/heed-machine" -v peaks="$work/heed-peaks" '
          /^# matmul_peak_gflops: / { match($0, /f32=[0-9.]+/); print substr($0, RSTART + 4, RLENGTH - 4) >> peaks; next }
          /^# [a-z_]+: / { print > machine; next }
          /^#/ { next }
          !header { for (i = 1; i <= NF; i++) col[$i] = i; header = 1; next }
          { print $col["mechanism"], $col["source_length"], $col["median_ms"], $col["gflops"],
                  $col["peak_fraction"] }' OFS='\t' >> "$work/heed.tsv" ||
        { cat "$work/heed.log" >&2; exit 1; }
      env "LD_LIBRARY_PATH=$BLAS_DIR/openblas-openmp" OMP_NUM_THREADS="$THREADS" \
        OPENBLAS_NUM_THREADS="$THREADS" /usr/bin/python3 "$here/attn_pytorch.py" \
        --attention "$mechanism" --batch 64 --hidden 512 --heads 4 --source-length "$length" \
        --warmup 1 --repeats "$REPEATS" --threads "$THREADS" |
        cut -f1,2,4,7 >> "$work/pytorch.tsv"
    done
  done
done

# heed-bench-attn's own machine lines, and the f32 GEMM peak it measured at each call.
sed 's/^# /# heed-bench-attn /' "$work/heed-machine"
mapfile -t peaks < <(sort -g "$work/heed-peaks")
echo "# heed-bench-attn f32 matmul peak: median $(heed_median "${peaks[@]}") GFLOP/s over" \
     "${#peaks[@]} calls (${peaks[0]} to ${peaks[-1]})"
printf 'mechanism\tlength\theed_ms\tpytorch_ms\tspeedup\theed_gflops\tpeak_fraction\tpytorch_peak_fraction\tceiling\n'
awk -F'\t' '
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
      t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
    }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  FNR == 1 { file++ }
  file == 1 {
    key = $1 "\t" $2
    if (!(key in heed)) order[++keys] = key
    heed[key] = heed[key] " " $3; gflops[key] = gflops[key] " " $4; frac[key] = frac[key] " " $5
  }
  file == 2 { key = $1 "\t" $2; if ($3 == "n/a") na[key] = 1; else torch[key] = torch[key] " " $3 }
  END {
    for (k = 1; k <= keys; k++) {
      key = order[k]; h = median(heed[key])
      f = median(frac[key])
      if (key in na || !(key in torch)) { p = "n/a"; ratio = "n/a"; pf = "n/a"; ceiling = "n/a" }
      else {
        p = sprintf("%.3f", median(torch[key])); ratio = sprintf("%.2f", p / h)
        # The same FLOPs in PyTorch'"'"'s time, and the speed-up heed would show at the full peak.
        pf = sprintf("%.3f", f * h / p); ceiling = sprintf("%.2f", p / (h * f))
      }
      printf "%s\t%.3f\t%s\t%s\t%.1f\t%.3f\t%s\t%s\n", key, h, p, ratio, median(gflops[key]), f, pf,
             ceiling
    }
  }' "$work/heed.tsv" "$work/pytorch.tsv"
