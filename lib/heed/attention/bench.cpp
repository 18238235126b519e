#include "heed/attention/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/common/timer.h"
#include "heed/onednn/context.h"
#include "heed/onednn/matmul.h"

namespace heed::attention {

std::string format_number(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out << line << '\n';
  }
}

namespace {

using tensor::Shape;
using tensor::Tensor;

constexpr double kNotApplicable = std::numeric_limits<double>::quiet_NaN();

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

AttentionConfig config_of(const BenchPoint& point) {
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

// Whether the mechanism has a key-side precomputation that a step could redo instead.
bool can_skip_precompute(const std::string& mechanism, const AttentionConfig& config) {
  if (stateful(mechanism)) return false;
  return attention_flops(mechanism, AttentionShape{1, 1, 1}, config).precompute > 0;
}

void fill_uniform(Tensor& t, std::mt19937_64& rng, float scale) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  float* data = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = uniform(rng);
}

int64_t tape_bytes(const AttentionTape& tape) {
  size_t bytes = tape.weights.bytes() + tape.normalized.bytes() + tape.centres.bytes() +
                 tape.spans.size() * sizeof(Span);
  for (const Tensor& t : tape.saved) bytes += t.bytes();
  return int64_t(bytes);
}

std::string dash_or(int64_t value) {
  return value > 0 ? std::to_string(value) : "-";
}

double peak_of(const BenchMachine& machine, const BenchPoint& point) {
  auto found = machine.peak.find(point.threads);
  if (found == machine.peak.end()) return 0;
  return point.precision == onednn::Precision::kBF16 ? found->second.bf16_gflops
                                                     : found->second.f32_gflops;
}

// The columns that say what was run, as text ("-" where not applicable); the source length
// only with_source (a growth fit spans several).
std::vector<std::string> point_columns(const BenchPoint& p, bool with_source) {
  std::vector<std::string> cells = {p.mechanism,
                                    to_string(p.mode),
                                    to_string(p.pass),
                                    onednn::precision_name(p.precision),
                                    std::to_string(p.threads),
                                    std::to_string(p.batch)};
  if (with_source) cells.push_back(std::to_string(p.source_length));
  for (const std::string& cell :
       {std::to_string(p.target_length), std::to_string(p.hidden), dash_or(p.heads),
        dash_or(p.window), std::string(p.precompute < 0 ? "-" : (p.precompute ? "on" : "off"))}) {
    cells.push_back(cell);
  }
  return cells;
}

// A result's row: bench_columns().
std::vector<std::string> row_of(const BenchResult& r, const BenchMachine& machine) {
  const double gflops = r.flops / 1e9 / (r.median_ms / 1000);
  const double peak = peak_of(machine, r.point);
  std::vector<std::string> cells = point_columns(r.point, true);
  for (const std::string& cell :
       {format_number(r.median_ms, 4), format_number(r.p10_ms, 4), format_number(r.p90_ms, 4),
        format_number(r.flops / 1e9, 9), format_number(r.flops > 0 ? gflops : kNotApplicable, 3),
        format_number(peak > 0 && r.flops > 0 ? gflops / peak : kNotApplicable, 4),
        std::to_string(r.bytes)}) {
    cells.push_back(cell);
  }
  return cells;
}

// A growth fit's row: growth_columns().
std::vector<std::string> growth_row(const GrowthFit& fit) {
  std::vector<std::string> cells = {"growth"};
  for (const std::string& cell : point_columns(fit.point, false)) cells.push_back(cell);
  cells.push_back(format_number(fit.exponent, 3));
  cells.push_back(std::to_string(fit.points));
  return cells;
}

const std::vector<std::string>& growth_columns() {
  static const std::vector<std::string> columns = {
      "section",       "mechanism", "mode",  "pass",   "precision",  "threads",       "batch",
      "target_length", "hidden",    "heads", "window", "precompute", "time_exponent", "points"};
  return columns;
}

std::vector<std::string> machine_lines(const BenchMachine& machine) {
  std::vector<std::string> lines = {"cpu: " + machine.cpu_model, "isa: " + machine.isa,
                                    "onednn: " + machine.onednn_version};
  for (const auto& [threads, peak] : machine.peak) {
    lines.push_back("matmul_peak_gflops: threads=" + std::to_string(threads) +
                    " size=" + std::to_string(machine.peak_size) +
                    " f32=" + format_number(peak.f32_gflops, 1) +
                    " bf16=" + (peak.bf16_gflops > 0 ? format_number(peak.bf16_gflops, 1) : "-"));
  }
  if (machine.peak_size == 0) lines.push_back("matmul_peak_gflops: not measured");
  return lines;
}

nlohmann::json json_value(const std::string& text, bool number) {
  if (text == "-") return nullptr;
  if (number && text.find('.') == std::string::npos) return std::stoll(text);
  if (number) return std::stod(text);
  return text;
}

void write_json(std::ostream& out, const BenchMachine& machine,
                const std::vector<BenchResult>& results) {
  nlohmann::json report;
  report["machine"] = {{"cpu", machine.cpu_model},
                       {"isa", machine.isa},
                       {"onednn", machine.onednn_version},
                       {"peak_size", machine.peak_size}};
  nlohmann::json peaks = nlohmann::json::array();
  for (const auto& [threads, peak] : machine.peak) {
    peaks.push_back({{"threads", threads},
                     {"f32_gflops", peak.f32_gflops},
                     {"bf16_gflops", peak.bf16_gflops > 0 ? nlohmann::json(peak.bf16_gflops)
                                                          : nlohmann::json(nullptr)}});
  }
  report["machine"]["matmul_peak"] = peaks;
  // Columns that hold words; the others are numbers (or null where not applicable).
  const std::set<std::string> words = {"mechanism", "mode",       "pass",
                                       "precision", "precompute", "section"};
  const auto object = [&](const std::vector<std::string>& columns,
                          const std::vector<std::string>& row) {
    nlohmann::json o = nlohmann::json::object();
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c] != "section") o[columns[c]] = json_value(row[c], !words.count(columns[c]));
    }
    return o;
  };
  report["results"] = nlohmann::json::array();
  for (const BenchResult& r : results) {
    report["results"].push_back(object(bench_columns(), row_of(r, machine)));
  }
  report["growth"] = nlohmann::json::array();
  for (const GrowthFit& fit : growth_exponents(results)) {
    report["growth"].push_back(object(growth_columns(), growth_row(fit)));
  }
  out << report.dump(2) << '\n';
}

}  // namespace

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

std::vector<BenchPoint> expand_grid(const BenchGrid& grid) {
  std::vector<std::string> mechanisms;
  for (const std::string& name : grid.mechanisms) {
    mechanisms.push_back(canonical_attention_name(name));
  }
  if (grid.mechanisms.empty()) mechanisms = attention_names();
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
                    const AttentionConfig config = config_of(point);
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
      resolved_config(point.mechanism, config_of(point));
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
  const AttentionFlops f = attention_flops(point.mechanism, shape, config_of(point));
  const double prepares = point.precompute == 0 ? double(calls) : 1.0;
  double total = prepares * f.precompute + double(calls) * f.forward;
  if (point.pass == BenchPass::kForwardBackward) {
    total += double(calls) * f.backward + prepares * f.precompute_backward;
  }
  return total;
}

BenchResult run_point(const BenchPoint& point, int64_t warmup, int64_t repeats, uint64_t seed) {
  onednn::set_threads(int(point.threads));
  const AttentionConfig config = config_of(point);
  layers::ParameterStore store;
  const auto attention = make_attention(point.mechanism, config, store, "decoder/attention/");
  std::mt19937_64 rng(seed);
  for (layers::Parameter* p : store.all()) fill_uniform(p->value, rng, 0.05f);
  attention->weights_changed();

  const bool step = point.mode == BenchMode::kStep;
  const bool training = point.pass == BenchPass::kForwardBackward;
  const bool precompute_each_step = point.precompute == 0;
  const int64_t n = point.batch, s = point.source_length, t = point.target_length;
  const int64_t q = config.query_size, k = config.key_size;
  const int64_t c = context_size(point.mechanism, config);
  const int64_t calls = step ? t : 1, tq = step ? 1 : t;

  Tensor keys(Shape{s, n, k});
  fill_uniform(keys, rng, 1.f);
  const std::vector<int64_t> lengths(size_t(n), s);
  std::vector<Tensor> queries, contexts, tapes_d_context, d_queries;
  for (int64_t i = 0; i < calls; ++i) {
    queries.emplace_back(Shape{tq, n, q});
    fill_uniform(queries.back(), rng, 1.f);
    contexts.emplace_back();
    if (training) {
      tapes_d_context.emplace_back(Shape{tq, n, c});
      fill_uniform(tapes_d_context.back(), rng, 1.f);
      d_queries.emplace_back();
    }
  }
  std::vector<AttentionTape> tapes(training ? size_t(calls) : 0);
  Tensor d_keys;
  if (training) d_keys = Tensor(Shape{s, n, k});

  const auto run_once = [&] {
    for (int64_t i = 0; i < calls; ++i) {
      const size_t at = size_t(i);
      if (i == 0 || precompute_each_step) attention->prepare(keys, lengths, training);
      attention->forward(queries[at], step ? i : 0, contexts[at], nullptr,
                         training ? &tapes[at] : nullptr);
      if (training && precompute_each_step) {
        attention->backward(tapes[at], tapes_d_context[at], d_queries[at]);
        attention->finish_backward(d_keys);
      }
    }
    if (training && !precompute_each_step) {
      for (int64_t i = calls - 1; i >= 0; --i) {
        attention->backward(tapes[size_t(i)], tapes_d_context[size_t(i)], d_queries[size_t(i)]);
      }
      attention->finish_backward(d_keys);
    }
  };

  for (int64_t i = 0; i < warmup; ++i) run_once();
  std::vector<double> times;
  for (int64_t i = 0; i < repeats; ++i) {
    Timer timer;
    run_once();
    times.push_back(timer.seconds() * 1000);
  }

  BenchResult result;
  result.point = point;
  result.median_ms = quantile(times, 0.5);
  result.p10_ms = quantile(times, 0.1);
  result.p90_ms = quantile(times, 0.9);
  result.flops = point_flops(point);
  size_t bytes = keys.bytes() + d_keys.bytes();
  for (const auto* list : {&queries, &contexts, &tapes_d_context, &d_queries}) {
    for (const Tensor& tensor : *list) bytes += tensor.bytes();
  }
  for (const layers::Parameter* p : store.all()) bytes += p->value.bytes() + p->grad.bytes();
  result.bytes = int64_t(bytes);
  for (const AttentionTape& tape : tapes) result.bytes += tape_bytes(tape);
  return result;
}

double quantile(std::vector<double> times, double q) {
  if (times.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(times.begin(), times.end());
  const double at = q * double(times.size() - 1);
  const size_t below = size_t(std::floor(at));
  const size_t above = std::min(below + 1, times.size() - 1);
  return times[below] + (at - double(below)) * (times[above] - times[below]);
}

MatmulPeak measure_matmul_peak(int64_t size, int threads, int64_t repeats) {
  onednn::set_threads(threads);
  MatmulPeak peak;
  const double flops = 2.0 * double(size) * double(size) * double(size);
  const auto best_gflops = [&](onednn::Precision precision, tensor::DType dtype) {
    onednn::MatMul matmul(precision);
    Tensor a(Shape{size, size}, dtype), b(Shape{size, size}, dtype), c(Shape{size, size});
    double best = 0;
    for (int64_t i = 0; i <= repeats; ++i) {
      Timer timer;
      matmul.run(onednn::MatrixRef::of(a), onednn::MatrixRef::of(b), onednn::MatrixRef::of(c));
      const double seconds = timer.seconds();
      if (i > 0) best = std::max(best, flops / seconds / 1e9);  // the first run sets up
    }
    return best;
  };
  peak.f32_gflops = best_gflops(onednn::Precision::kF32, tensor::DType::kF32);
  if (onednn::bf16_supported()) {
    peak.bf16_gflops = best_gflops(onednn::Precision::kBF16, tensor::DType::kBF16);
  }
  return peak;
}

double log_log_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t m = std::min(x.size(), y.size());
  double mean_x = 0, mean_y = 0;
  for (size_t i = 0; i < m; ++i) {
    mean_x += std::log(x[i]);
    mean_y += std::log(y[i]);
  }
  mean_x /= double(m);
  mean_y /= double(m);
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < m; ++i) {
    const double dx = std::log(x[i]) - mean_x;
    sxx += dx * dx;
    sxy += dx * (std::log(y[i]) - mean_y);
  }
  if (m < 2 || sxx <= 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / sxx;
}

std::vector<GrowthFit> growth_exponents(const std::vector<BenchResult>& results) {
  // Groups keyed by every column but the source length, in the order first seen.
  std::vector<std::string> order;
  std::map<std::string, std::pair<GrowthFit, std::vector<std::pair<double, double>>>> groups;
  for (const BenchResult& r : results) {
    const std::string key = join(growth_row(GrowthFit{r.point, 0, 0}), "\t");
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) {
      order.push_back(key);
      it->second.first.point = r.point;
    }
    it->second.second.emplace_back(double(r.point.source_length), r.median_ms);
  }
  std::vector<GrowthFit> fits;
  for (const std::string& key : order) {
    auto& [fit, samples] = groups.at(key);
    std::vector<double> x, y;
    for (const auto& [s, ms] : samples) {
      x.push_back(s);
      y.push_back(ms);
    }
    if (std::set<double>(x.begin(), x.end()).size() < 2) continue;
    fit.exponent = log_log_slope(x, y);
    fit.points = int64_t(x.size());
    fits.push_back(fit);
  }
  return fits;
}

const std::vector<std::string>& bench_columns() {
  static const std::vector<std::string> columns = {
      "mechanism", "mode",          "pass",          "precision", "threads",
      "batch",     "source_length", "target_length", "hidden",    "heads",
      "window",    "precompute",    "median_ms",     "p10_ms",    "p90_ms",
      "gflop",     "gflops",        "peak_fraction", "bytes"};
  return columns;
}

void write_bench_report(std::ostream& out, BenchFormat format, const BenchMachine& machine,
                        const std::vector<BenchResult>& results) {
  if (format == BenchFormat::kJson) {
    write_json(out, machine, results);
    return;
  }
  for (const std::string& line : machine_lines(machine)) out << "# " << line << '\n';
  std::vector<std::vector<std::string>> rows = {bench_columns()};
  for (const BenchResult& r : results) rows.push_back(row_of(r, machine));
  std::vector<std::vector<std::string>> growth = {growth_columns()};
  for (const GrowthFit& fit : growth_exponents(results)) growth.push_back(growth_row(fit));
  if (format == BenchFormat::kTsv) {
    for (const auto& row : rows) out << join(row, "\t") << '\n';
    // After the rows, as comments: a TSV reader skipping "#" lines sees one table.
    if (growth.size() > 1) {
      for (const auto& row : growth) out << "# " << join(row, "\t") << '\n';
    }
    return;
  }
  write_aligned(out, rows);
  if (growth.size() > 1) {
    out << "\n# growth of time in the source length: least-squares slope of log time on log S\n";
    write_aligned(out, growth);
  }
}

}  // namespace heed::attention
