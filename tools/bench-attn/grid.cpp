#include "grid.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/memory.h"
#include "heed/common/strings.h"

namespace heed::bench_attn {

using namespace heed::attention;

namespace {

// A grid above this many values per option is a typing slip, not a benchmark.
constexpr size_t kMaxListValues = 10000;

// The one message for a bad item of an integer list.
[[noreturn]] void refuse_item(const std::string& option, int64_t min, const std::string& item) {
  throw ConfigError("option '--" + option + "' must be an integer >= " + std::to_string(min) +
                    " (a comma list; ranges FIRST:LAST:xFACTOR or FIRST:LAST:+STEP with FIRST "
                    "<= LAST, FACTOR >= 2, STEP >= 1), not '" +
                    item + "'");
}

bool declares(const std::string& mechanism, const std::string& option) {
  for (const OptionSpec& spec : attention_info(mechanism).options) {
    if (spec.name == option) return true;
  }
  return false;
}

bool stateful(const std::string& mechanism) {
  return attention_info(mechanism).traits.stateful;
}

// Whether the mechanism has a key-side precomputation that a step could redo instead.
bool can_skip_precompute(const std::string& mechanism, const AttentionConfig& config) {
  if (stateful(mechanism)) return false;
  return attention_flops(mechanism, AttentionShape{1, 1, 1}, config).precompute > 0;
}

}  // namespace

AttentionConfig attention_config(const BenchPoint& point) {
  AttentionConfig config;
  config.query_size = config.key_size = config.attention_dim = point.hidden;
  config.precision = point.precision;
  if (point.heads > 0) config.options["heads"] = double(point.heads);
  if (point.window > 0) config.options["window"] = double(point.window);
  // location scores at most --max-positions positions: give it the source length.
  if (declares(point.mechanism, "max-positions")) {
    config.options["max-positions"] = double(std::max<int64_t>(100, point.source_length));
  }
  return config;
}

std::string to_string(BenchMode mode) {
  return mode == BenchMode::kStep ? "step" : "all-steps";
}

std::string to_string(BenchPass pass) {
  return pass == BenchPass::kForward ? "forward" : "forward-backward";
}

BenchMode parse_bench_mode(const std::string& text) {
  if (text == "all-steps") return BenchMode::kAllSteps;
  if (text == "step") return BenchMode::kStep;
  throw ConfigError("--mode: unknown mode '" + text + "' (valid: all-steps, step)");
}

BenchPass parse_bench_pass(const std::string& text) {
  if (text == "forward") return BenchPass::kForward;
  if (text == "forward-backward") return BenchPass::kForwardBackward;
  throw ConfigError("--pass: unknown pass '" + text + "' (valid: forward, forward-backward)");
}

BenchFormat parse_bench_format(const std::string& text) {
  if (text == "table") return BenchFormat::kTable;
  if (text == "tsv") return BenchFormat::kTsv;
  if (text == "json") return BenchFormat::kJson;
  throw ConfigError("--format: unknown format '" + text + "' (valid: table, tsv, json)");
}

bool parse_on_off(const std::string& option, const std::string& text) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw ConfigError("--" + option + ": '" + text + "' is neither on nor off");
}

std::vector<int64_t> parse_int_list(const std::string& option, const std::string& text,
                                    int64_t min) {
  std::vector<int64_t> values;
  for (const std::string& item : split(text, ",")) {
    const std::vector<std::string> parts = split(item, ":");
    if (parts.size() == 1) {
      const std::optional<int64_t> value = parse_int64(item);
      if (!value || *value < min) refuse_item(option, min, item);
      values.push_back(*value);
      continue;
    }
    if (parts.size() != 3 || parts[2].empty()) refuse_item(option, min, item);
    const bool geometric = parts[2][0] == 'x';
    const std::optional<int64_t> first = parse_int64(parts[0]), last = parse_int64(parts[1]),
                                 by = parse_int64(geometric ? parts[2].substr(1) : parts[2]);
    if (!first || !last || !by || *first < min || *last < *first || *by < (geometric ? 2 : 1)) {
      refuse_item(option, min, item);
    }
    for (int64_t v = *first;; v = geometric ? v * *by : v + *by) {
      if (values.size() >= kMaxListValues) {
        throw ConfigError("option '--" + option + "' has more than " +
                          std::to_string(kMaxListValues) + " values");
      }
      values.push_back(v);
      if (v > (geometric ? *last / *by : *last - *by)) break;  // the next would pass LAST
    }
  }
  return values;
}

namespace {

int64_t largest(const std::vector<int64_t>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

// The grid's largest sizes together, checked before any mechanism is built: a coarse bound of
// one point's buffers in f32 — keys, their gradient and projections [N, S, H]; queries,
// contexts and their gradients [N, T, H]; scores, weights and their gradients [N, T, S];
// parameters and gradients, at most four H × H matrices. (Additive's tanh over [N, T, S, H] is
// not stored: at N 16, S 200, T 50, H 512 all steps forward and backward, whose tanh would be
// 328 MB, heed-bench-attn's resident set was 72 MB.) A bound to refuse what cannot fit, not a
// prediction.
void check_grid_memory(const BenchGrid& grid) {
  const double n = double(largest(grid.batch)), s = double(largest(grid.source_lengths)),
               t = double(largest(grid.target_lengths)), h = double(largest(grid.hidden));
  const double floats = 4.0 * n * s * h + 4.0 * n * t * h + 4.0 * n * t * s + 8.0 * h * h;
  check_fits_in_memory(4.0 * floats,
                       "--batch " + std::to_string(largest(grid.batch)) + " --source-length " +
                           std::to_string(largest(grid.source_lengths)) + " --target-length " +
                           std::to_string(largest(grid.target_lengths)) + " --hidden " +
                           std::to_string(largest(grid.hidden)) + ": the largest point's buffers");
}

}  // namespace

std::vector<BenchPoint> expand_grid(const BenchGrid& grid) {
  std::vector<std::string> mechanisms;
  for (const std::string& name : grid.mechanisms) {
    mechanisms.push_back(canonical_attention_name(name));
  }
  if (grid.mechanisms.empty()) mechanisms = attention_names();
  check_grid_memory(grid);
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  std::vector<BenchPoint> points;
  std::set<std::tuple<std::string, int64_t, int64_t, int64_t, int>> built;
  for (const std::string& mechanism : mechanisms) {
    // Options the mechanism does not declare do not multiply its points.
    const std::vector<int64_t> heads =
        declares(mechanism, "heads") ? grid.heads : std::vector<int64_t>{0};
    const std::vector<int64_t> windows =
        declares(mechanism, "window") ? grid.windows : std::vector<int64_t>{0};
    for (const BenchMode mode : grid.modes) {
      if (mode == BenchMode::kAllSteps && stateful(mechanism)) continue;
      for (const BenchPass pass : grid.passes) {
        for (const onednn::Precision precision : grid.precisions) {
          for (const int64_t threads : grid.threads) {
            for (const int64_t batch : grid.batch) {
              for (const int64_t hidden : grid.hidden) {
                for (const int64_t head_count : heads) {
                  for (const int64_t window : windows) {
                    BenchPoint point;
                    point.mechanism = mechanism;
                    point.mode = mode;
                    point.pass = pass;
                    point.precision = precision;
                    point.threads = threads > 0 ? threads : cores;
                    point.batch = batch;
                    point.hidden = hidden;
                    point.heads = head_count;
                    point.window = window;
                    const AttentionConfig config = attention_config(point);
                    // Anything the mechanism refuses, refused now (once per configuration).
                    if (built.insert({mechanism, hidden, head_count, window, int(precision)})
                            .second) {
                      layers::ParameterStore store;
                      make_attention(mechanism, config, store, "decoder/attention/");
                    }
                    // Without a precomputation to skip, "on" and "off" are one run ("-").
                    std::vector<int> precompute = {-1};
                    if (can_skip_precompute(mechanism, config)) {
                      precompute.clear();
                      for (const bool on : grid.precompute) {
                        if (on || mode == BenchMode::kStep) precompute.push_back(int(on));
                      }
                    }
                    for (const int on : precompute) {
                      point.precompute = on;
                      for (const int64_t target : grid.target_lengths) {
                        for (const int64_t source : grid.source_lengths) {
                          point.target_length = target;
                          point.source_length = source;
                          points.push_back(point);
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (points.empty()) {
    throw ConfigError(
        "the grid has no points (--precompute off applies to --mode step only; coverage has no "
        "all-steps mode)");
  }
  // Sizes the mechanisms' config checks do not see: location's positions.
  for (const BenchPoint& point : points) {
    try {
      resolved_config(point.mechanism, attention_config(point));
    } catch (const ConfigError& e) {
      throw ConfigError("--source-length " + std::to_string(point.source_length) + ": attention '" +
                        point.mechanism + "': " + e.what());
    }
  }
  return points;
}

double point_flops(const BenchPoint& point) {
  const bool step = point.mode == BenchMode::kStep;
  const int64_t calls = step ? point.target_length : 1;
  const AttentionShape shape{point.batch, point.source_length, step ? 1 : point.target_length};
  const AttentionFlops f = attention_flops(point.mechanism, shape, attention_config(point));
  const double prepares = point.precompute == 0 ? double(calls) : 1.0;
  double total = prepares * f.precompute + double(calls) * f.forward;
  if (point.pass == BenchPass::kForwardBackward) {
    total += double(calls) * f.backward + prepares * f.precompute_backward;
  }
  return total;
}

}  // namespace heed::bench_attn
