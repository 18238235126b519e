// What each attention mechanism costs on this machine (heed-bench-attn, issue 16): times of
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
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "heed/onednn/precision.h"

namespace heed::attention {

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

// q-quantile (0..1) of times, interpolated linearly between order statistics.
double quantile(std::vector<double> times, double q);

// GFLOP/s of an f32 and a bf16 oneDNN GEMM [size × size] · [size × size], best of repeats
// (after one untimed run); bf16 is 0 where this machine has no bf16 matmul.
struct MatmulPeak {
  double f32_gflops = 0;
  double bf16_gflops = 0;
};
MatmulPeak measure_matmul_peak(int64_t size, int threads, int64_t repeats);

// The least-squares slope of log y on log x (NaN with fewer than two distinct x).
double log_log_slope(const std::vector<double>& x, const std::vector<double>& y);

// Growth of time in the source length: one fit per group of points equal in everything but S.
struct GrowthFit {
  BenchPoint point;  // the group (its source_length is meaningless)
  double exponent = 0;
  int64_t points = 0;
};
std::vector<GrowthFit> growth_exponents(const std::vector<BenchResult>& results);

// What the report names about the machine.
struct BenchMachine {
  std::string cpu_model, isa, onednn_version;
  int64_t peak_size = 0;               // 0: the peak was not measured
  std::map<int64_t, MatmulPeak> peak;  // by thread count
};

// The report on out: a table (aligned columns), TSV (machine and growth as "# " comment lines
// around the header and rows) or JSON ({"machine", "results", "growth"}). Column names are
// those of bench_columns().
const std::vector<std::string>& bench_columns();
void write_bench_report(std::ostream& out, BenchFormat format, const BenchMachine& machine,
                        const std::vector<BenchResult>& results);

// Shared by the reports (bench_stats.h): value with that many decimals, "-" when not finite;
// rows (the header first) as columns aligned by padding with spaces.
std::string format_number(double value, int decimals);
void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& rows);

}  // namespace heed::attention
