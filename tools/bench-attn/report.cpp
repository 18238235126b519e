#include "report.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "heed/common/strings.h"

namespace heed::bench_attn {

namespace {

constexpr double kNotApplicable = std::numeric_limits<double>::quiet_NaN();

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

}  // namespace heed::bench_attn
