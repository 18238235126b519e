// One timed point of heed-bench-attn's grid (grid.h says what a run is): warm-up runs, timed
// repeats, their median and p10/p90, the point's FLOPs and the bytes its buffers hold.
#pragma once

#include <cstdint>

#include "grid.h"

namespace heed::bench_attn {

struct BenchResult {
  BenchPoint point;
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  double flops = 0;
  // Bytes of the buffers the run holds at its end, its peak: keys, queries, contexts, for
  // forward-backward their gradients and every tape's tensors (weights, spans' centres, what
  // the mechanism saved), and the parameters with their gradients. The mechanism's private
  // scratch (precomputed keys, packed copies) is not reachable from here and not counted.
  int64_t bytes = 0;
};

// warmup untimed runs, then repeats timed ones.
BenchResult run_point(const BenchPoint& point, int64_t warmup, int64_t repeats, uint64_t seed);

}  // namespace heed::bench_attn
