#include "saturation.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "grid.h"
#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/memory.h"
#include "heed/common/stats.h"
#include "heed/common/strings.h"

namespace heed::bench_attn {

using namespace heed::attention;
namespace {

using tensor::Shape;
using tensor::Tensor;

// The two mechanisms footnote 4 compares.
const char* const kMechanisms[] = {"dot", "scaled-dot"};

void fill(Tensor& t, StatsInput input, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.f, 1.f);
  float* data = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float z = normal(rng);
    data[i] = input == StatsInput::kTanh ? std::tanh(z) : z;
  }
}

double norm(const float* values, int64_t count) {
  double sum = 0;
  for (int64_t i = 0; i < count; ++i) sum += double(values[i]) * double(values[i]);
  return std::sqrt(sum);
}

// The rows' statistics for one mechanism on the drawn keys and queries.
StatsRow measure(const std::string& mechanism, const Tensor& keys, const Tensor& queries,
                 const Tensor& upstream) {
  const int64_t s = keys.shape()[0], n = keys.shape()[1], d = keys.shape()[2];
  AttentionConfig config;
  config.query_size = config.key_size = config.attention_dim = d;
  layers::ParameterStore store;
  const auto attention = make_attention(mechanism, config, store, "decoder/attention/");
  const std::vector<int64_t> lengths(size_t(n), s);
  attention->prepare(keys, lengths, /*training=*/true);
  Tensor context, weights;
  AttentionTape tape;
  attention->forward(queries, 0, context, &weights, &tape);
  // Only the weights receive a gradient (the guided-alignment hook): what the softmax lets
  // through to the scores and, through them, to the query.
  tape.d_weights = &upstream;
  Tensor d_context(Shape{1, n, d}), d_query, d_keys(Shape{s, n, d});
  attention->backward(tape, d_context, d_query);
  attention->finish_backward(d_keys);

  StatsRow row;
  row.mechanism = mechanism;
  row.dim = d;
  row.source_length = s;
  row.samples = n;
  std::vector<double> grad_scores;
  for (int64_t r = 0; r < n; ++r) {
    const WeightRowStats stats =
        weight_row_stats(weights.data() + r * s, upstream.data() + r * s, s);
    row.entropy += stats.entropy / double(n);
    row.max_weight += stats.max_weight / double(n);
    row.grad_scores_norm += stats.grad_scores_norm / double(n);
    row.grad_query_norm += norm(d_query.data() + r * d, d) / double(n);
    grad_scores.push_back(stats.grad_scores_norm);
  }
  row.grad_scores_median = median(grad_scores);
  row.entropy_fraction = s > 1 ? row.entropy / std::log(double(s)) : 0;
  return row;
}

std::vector<std::string> cells_of(const StatsRow& r) {
  return {to_string(r.input),
          r.mechanism,
          std::to_string(r.dim),
          std::to_string(r.source_length),
          std::to_string(r.samples),
          format_number(r.entropy, 4),
          format_number(r.entropy_fraction, 4),
          format_number(r.max_weight, 4),
          format_number(r.grad_scores_norm, 6),
          format_number(r.grad_scores_median, 6),
          format_number(r.grad_query_norm, 6)};
}

}  // namespace

std::string to_string(StatsInput input) {
  return input == StatsInput::kTanh ? "tanh" : "normal";
}

StatsInput parse_stats_input(const std::string& text) {
  if (text == "normal") return StatsInput::kNormal;
  if (text == "tanh") return StatsInput::kTanh;
  throw ConfigError("--input: unknown input '" + text + "' (valid: normal, tanh)");
}

WeightRowStats weight_row_stats(const float* weights, const float* upstream, int64_t count) {
  WeightRowStats stats;
  for (int64_t i = 0; i < count; ++i) {
    const double w = weights[i];
    if (w > 0) stats.entropy -= w * std::log(w);
    stats.max_weight = std::max(stats.max_weight, w);
  }
  // The softmax's backward as every mechanism runs it (normalization.h), on a copy.
  std::vector<float> d(upstream, upstream + count);
  normalize_rows_backward(Normalizer::kSoftmax, weights, d.data(), 1, count);
  stats.grad_scores_norm = norm(d.data(), count);
  return stats;
}

std::vector<StatsRow> saturation_stats(const StatsConfig& config) {
  if (config.source_length < 1 || config.samples < 1) {
    throw ConfigError("--stats: the source length and the samples must be at least 1");
  }
  const int64_t s = config.source_length, n = config.samples;
  std::vector<StatsRow> rows;
  for (const StatsInput input : config.inputs) {
    for (const int64_t d : config.dims) {
      if (d < 1) throw ConfigError("--dims: every width must be at least 1");
      // Keys [S, n, d], their gradient, and the queries: f32.
      check_fits_in_memory(4.0 * (2.0 * double(s) + 1.0) * double(n) * double(d),
                           "--dims " + std::to_string(d) + " --source-length " + std::to_string(s) +
                               " --samples " + std::to_string(n) + ": the keys and their gradient");
      // Draws that depend on (seed, input, d) only.
      std::seed_seq seeds{uint32_t(config.seed), uint32_t(config.seed >> 32), uint32_t(input),
                          uint32_t(d)};
      std::mt19937_64 rng(seeds);
      Tensor keys(Shape{s, n, d}), queries(Shape{1, n, d}), upstream(Shape{n, 1, s});
      fill(keys, input, rng);
      fill(queries, input, rng);
      fill(upstream, StatsInput::kNormal, rng);
      for (int64_t r = 0; r < n; ++r) {  // unit norm per row
        float* g = upstream.data() + r * s;
        const double length = norm(g, s);
        for (int64_t i = 0; i < s; ++i) g[i] = float(double(g[i]) / length);
      }
      for (const char* mechanism : kMechanisms) {
        rows.push_back(measure(mechanism, keys, queries, upstream));
        rows.back().input = input;
      }
    }
  }
  return rows;
}

const std::vector<std::string>& stats_columns() {
  static const std::vector<std::string> columns = {
      "input",          "mechanism",        "dim",        "source_length",    "samples",
      "entropy",        "entropy_fraction", "max_weight", "grad_scores_norm", "grad_scores_median",
      "grad_query_norm"};
  return columns;
}

void write_stats_report(std::ostream& out, BenchFormat format, const std::vector<StatsRow>& rows) {
  if (format == BenchFormat::kJson) {
    nlohmann::json report = {{"stats", nlohmann::json::array()}};
    for (const StatsRow& r : rows) {
      report["stats"].push_back({{"input", to_string(r.input)},
                                 {"mechanism", r.mechanism},
                                 {"dim", r.dim},
                                 {"source_length", r.source_length},
                                 {"samples", r.samples},
                                 {"entropy", r.entropy},
                                 {"entropy_fraction", r.entropy_fraction},
                                 {"max_weight", r.max_weight},
                                 {"grad_scores_norm", r.grad_scores_norm},
                                 {"grad_scores_median", r.grad_scores_median},
                                 {"grad_query_norm", r.grad_query_norm}});
    }
    out << report.dump(2) << '\n';
    return;
  }
  std::vector<std::vector<std::string>> table = {stats_columns()};
  for (const StatsRow& r : rows) table.push_back(cells_of(r));
  if (format == BenchFormat::kTsv) {
    for (const auto& row : table) out << join(row, "\t") << '\n';
    return;
  }
  write_aligned(out, table);
}

}  // namespace heed::bench_attn
