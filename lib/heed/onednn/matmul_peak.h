// The machine's own matmul peak, the yardstick of heed-bench-attn and the phase benchmarks: a
// fraction of it means the same on machines whose peaks differ (up to 2× within one CPU family).
#pragma once

#include <cstdint>

namespace heed::onednn {

// GFLOP/s of an f32 and a bf16 oneDNN GEMM [size × size] · [size × size], best of repeats
// (after one untimed run); bf16 is 0 where this machine has no bf16 matmul.
struct MatmulPeak {
  double f32_gflops = 0;
  double bf16_gflops = 0;
};
MatmulPeak measure_matmul_peak(int64_t size, int threads, int64_t repeats);

}  // namespace heed::onednn
