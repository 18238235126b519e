// heed-bench-attn's grid (issue 16): what each attention mechanism costs on this machine — times of
// prepare/forward/backward/finish_backward on random inputs over a grid of shapes, their FLOPs
// (registry.h AttentionFlops), the fraction of the machine's own matmul peak, the bytes of the
// working buffers, and the growth exponent of time in the source length.
//
// One timed run is one batch as a decoder drives it: prepare() on the keys [S, N, K], then
//   all-steps  one forward() of every target step at once (query [T, N, Q]),
//   step       T forward() calls of one step each (query [1, N, Q] at position t),
// and for forward-backward the backward() of each forward in reverse order and finish_backward().
// Without the precomputation (precompute off, step mode only, for the stateless mechanisms
// that have one) every step prepares the keys again, as a mechanism without it would do that
// work at every step; with forward-backward each step is then a prepare, forward, backward and
// finish_backward of its own. Stateful mechanisms (coverage) always step: all-steps points are
// left out for them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/attention/attention.h"
#include "heed/onednn/precision.h"

namespace heed::bench_attn {

enum class BenchMode { kAllSteps, kStep };
enum class BenchPass { kForward, kForwardBackward };
enum class BenchFormat { kTable, kTsv, kJson };

std::string to_string(BenchMode mode);  // "all-steps", "step"
std::string to_string(BenchPass pass);  // "forward", "forward-backward"
// Parsers: ConfigError naming the option and the accepted values.
BenchMode parse_bench_mode(const std::string& text);
BenchPass parse_bench_pass(const std::string& text);
BenchFormat parse_bench_format(const std::string& text);
bool parse_on_off(const std::string& option, const std::string& text);

// A comma list of integers, each a value or a range FIRST:LAST:xFACTOR (geometric) or
// FIRST:LAST:+STEP (arithmetic; :STEP alike), LAST included when reached: "10:500:x2" = 10, 20,
// 40, 80, 160, 320. Every value at least min; ConfigError naming option otherwise.
std::vector<int64_t> parse_int_list(const std::string& option, const std::string& text,
                                    int64_t min = 1);

// The grid: every combination is a point. Options a mechanism does not declare (heads,
// window) do not multiply its points.
struct BenchGrid {
  std::vector<std::string> mechanisms;  // empty: every registered mechanism
  std::vector<BenchMode> modes = {BenchMode::kAllSteps, BenchMode::kStep};
  std::vector<BenchPass> passes = {BenchPass::kForward, BenchPass::kForwardBackward};
  std::vector<onednn::Precision> precisions = {onednn::Precision::kF32};
  std::vector<int64_t> threads = {0};  // 0: every core
  std::vector<int64_t> batch = {64};
  std::vector<int64_t> source_lengths = {10, 20, 50, 100, 200, 500};
  std::vector<int64_t> target_lengths = {50};
  std::vector<int64_t> hidden = {512};  // Q = K = A
  std::vector<int64_t> heads = {4};     // for the mechanisms that declare --heads
  std::vector<int64_t> windows = {10};  // for the mechanisms that declare --window
  std::vector<bool> precompute = {true};
  int64_t warmup = 1;
  int64_t repeats = 5;
  uint64_t seed = 1;
};

struct BenchPoint {
  std::string mechanism;
  BenchMode mode = BenchMode::kAllSteps;
  BenchPass pass = BenchPass::kForward;
  onednn::Precision precision = onednn::Precision::kF32;
  int64_t threads = 1;
  int64_t batch = 1;
  int64_t source_length = 1;
  int64_t target_length = 1;
  int64_t hidden = 1;
  int64_t heads = 0;    // 0: the mechanism has no --heads
  int64_t window = 0;   // 0: the mechanism has no --window
  int precompute = -1;  // 1 on, 0 off, -1: the mechanism has nothing to precompute
};

// The points of a grid in a fixed order (mechanism, mode, pass, precision, threads, batch,
// hidden, heads, window, precompute, target length, source length), after building every
// distinct mechanism configuration once so that anything the mechanisms refuse (unknown name,
// heads not dividing the hidden size, bf16 on a CPU without it) is a ConfigError before any
// work. ConfigError also for a grid with no points.
std::vector<BenchPoint> expand_grid(const BenchGrid& grid);

// FLOPs of one timed run of a point (the composition above of its mechanism's AttentionFlops).
double point_flops(const BenchPoint& point);

// FLOPs of one timed run of a point (the composition above of its mechanism's AttentionFlops).

// The mechanism's configuration at a point: query, key and attention width = hidden, its heads
// and window where it declares them, and location's positions covering the source length.
attention::AttentionConfig attention_config(const BenchPoint& point);

}  // namespace heed::bench_attn
