// heed-bench-attn --stats (issue 16): the saturation argument of Vaswani et al. 2017's footnote 4,
// measured with heed's own mechanisms. For q and k with i.i.d. components of mean 0 and variance
// 1, q·k has variance d: unscaled dot-product scores grow with the width d, the softmax saturates
// (one weight near 1, the others near 0) and its gradient vanishes; dividing by √d keeps the
// scores' variance at 1 whatever d.
//
// For each input distribution and width d, `samples` sentences of `source_length` keys and one
// query each are drawn once and scored by "dot" and by "scaled-dot" (the registered mechanisms'
// forward and backward, f32): per query row the entropy of the weights and the largest weight;
// then, given a random unit upstream gradient g on the weights (the guided-alignment hook
// AttentionTape::d_weights, with no gradient on the context), the norm of dL/dscores (the
// softmax's backward, normalization.h) and of dL/dq (the mechanism's backward, which includes
// the 1/√d of scaled-dot). Each is the mean over the rows; dL/dscores also their median.
//
// Inputs: "normal" draws N(0, 1) components (Vaswani's assumption); "tanh" draws tanh(z), z ~
// N(0, 1): components bounded in (−1, 1) like an RNN's outputs, of variance about 0.39, so q·k
// has variance about 0.155 d. (Bounded but still independent: trained RNN states are neither.)
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report.h"

namespace heed::bench_attn {

enum class StatsInput { kNormal, kTanh };
std::string to_string(StatsInput input);  // "normal", "tanh"
// ConfigError naming --input and the accepted values.
StatsInput parse_stats_input(const std::string& text);

struct StatsConfig {
  std::vector<int64_t> dims = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  std::vector<StatsInput> inputs = {StatsInput::kNormal, StatsInput::kTanh};
  int64_t source_length = 50;
  int64_t samples = 100;
  uint64_t seed = 1;
};

struct StatsRow {
  StatsInput input = StatsInput::kNormal;
  std::string mechanism;
  int64_t dim = 0;
  int64_t source_length = 0;
  int64_t samples = 0;
  double entropy = 0;           // nats, mean over rows
  double entropy_fraction = 0;  // entropy / log S (1: uniform weights, 0: one-hot; 0 at S = 1)
  double max_weight = 0;        // mean over rows of the largest weight
  double grad_scores_norm = 0;  // mean ‖dL/dscores‖ for a unit upstream gradient on the weights
  double grad_scores_median = 0;  // its median over the rows (the typical row; the mean is
                                  // carried by the few rows whose two largest scores are close)
  double grad_query_norm = 0;     // mean ‖dL/dq‖ for the same
};

// The statistics of one row of weights (w[0..count), summing to 1) and of the gradient of the
// scores behind them given the upstream gradient on the weights (count values).
struct WeightRowStats {
  double entropy = 0;  // −Σ w log w over w > 0, nats
  double max_weight = 0;
  double grad_scores_norm = 0;  // ‖dL/dscores‖ through the softmax: w ⊙ (g − ⟨w, g⟩)
};
WeightRowStats weight_row_stats(const float* weights, const float* upstream, int64_t count);

// One row per input, width and mechanism, in that order. The draws for an (input, d) depend on
// the seed, the input and d only (not on the other widths asked for), and every mechanism sees
// the same ones. ConfigError for sizes below 1.
std::vector<StatsRow> saturation_stats(const StatsConfig& config);

// The columns of the stats report: input mechanism dim source_length samples entropy
// entropy_fraction max_weight grad_scores_norm grad_scores_median grad_query_norm.
const std::vector<std::string>& stats_columns();
// An aligned table, TSV, or JSON {"stats": [one object per row]}.
void write_stats_report(std::ostream& out, BenchFormat format, const std::vector<StatsRow>& rows);

}  // namespace heed::bench_attn
