#include "score/compare.h"

#include <cmath>
#include <cstdio>

#include "common/table.h"
#include "heed/common/strings.h"
#include "heed/eval/bleu.h"
#include "heed/eval/chrf.h"

namespace heed::score_tool {
namespace {

std::string signed_number(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%+.*f", decimals, value);
  return text;
}

// One row per system: the TSV cells (comparison_columns()), or the table's.
std::vector<std::string> tsv_row(const std::string& name, const std::string& metric,
                                 const eval::SystemComparison& r, bool baseline, int width) {
  std::vector<std::string> scores;
  for (double s : r.run_scores) scores.push_back(cli::format_number(s, width));
  std::vector<std::string> row = {name, metric, std::to_string(r.runs),
                                  cli::format_number(r.mean, width),
                                  cli::format_number(r.sd, width)};
  if (baseline) {
    row.insert(row.end(), 9, "-");
  } else {
    const auto& e = r.equivalence;
    row.insert(row.end(), {signed_number(r.difference, width), signed_number(r.ci95.low, width),
                           signed_number(r.ci95.high, width), eval::format_p_value(r.p),
                           eval::format_p_value(r.p_holm), signed_number(e.ci90.low, width),
                           signed_number(e.ci90.high, width), eval::format_p_value(e.p),
                           e.equivalent ? "yes" : "no"});
  }
  row.push_back(join(scores, ","));
  return row;
}

std::vector<std::string> table_row(const std::string& name, const std::string& metric,
                                   const eval::SystemComparison& r, bool baseline, int width) {
  std::string mean = cli::format_number(r.mean, width);
  if (std::isfinite(r.sd)) mean += " ± " + cli::format_number(r.sd, width);
  std::vector<std::string> row = {name, metric, std::to_string(r.runs), mean};
  if (baseline) {
    row.push_back("baseline");
  } else {
    const auto& e = r.equivalence;
    row.insert(row.end(),
               {signed_number(r.difference, width) + " [" + signed_number(r.ci95.low, width) +
                    ", " + signed_number(r.ci95.high, width) + "]",
                eval::format_p_value(r.p), eval::format_p_value(r.p_holm),
                eval::format_p_value(e.p), e.equivalent ? "yes" : "no"});
  }
  return row;
}

}  // namespace

const std::vector<std::string>& comparison_columns() {
  static const std::vector<std::string> columns = {
      "system",     "metric",    "runs",      "mean",       "sd",
      "difference", "ci95_low",  "ci95_high", "p_value",    "p_holm",
      "ci90_low",   "ci90_high", "tost_p",    "equivalent", "run_scores"};
  return columns;
}

std::vector<std::string> comparison_report(const ScoreCliConfig& cfg,
                                           const std::vector<MetricComparison>& metrics,
                                           int references) {
  const bool table = cfg.format == ScoreFormat::kTable;
  const std::string margin = cli::format_number(cfg.equivalence_margin, cfg.width);
  std::vector<std::vector<std::string>> rows;
  if (table) {
    rows.push_back({"system", "metric", "runs", "mean ± sd", "difference [95% CI]", "p", "p Holm",
                    "TOST p", "equivalent ±" + margin});
  } else {
    rows.push_back(comparison_columns());
  }
  size_t comparisons = 0;
  for (const MetricComparison& m : metrics) {
    comparisons = m.result.size() - 1;
    for (size_t s = 0; s < m.result.size(); ++s) {
      const std::string& name = cfg.systems[s].name;
      rows.push_back(table ? table_row(name, m.metric, m.result[s], s == 0, cfg.width)
                           : tsv_row(name, m.metric, m.result[s], s == 0, cfg.width));
    }
  }
  std::vector<std::string> lines;
  if (table) {
    lines = cli::aligned_lines(rows);
  } else {
    for (const auto& row : rows) lines.push_back(join(row, "\t"));
  }
  const std::string resamples = std::to_string(cfg.bootstrap);
  lines.push_back("# hierarchical bootstrap: " + resamples +
                  " resamples, each drawing every system's runs and one shared set of segments "
                  "with replacement; seed " +
                  std::to_string(cfg.seed) + "; baseline " + cfg.systems[0].name);
  lines.push_back(
      "# p: two-sided, twice the share of resamples whose difference is on the far "
      "side of 0; '< x' when none is (x = 1/(" +
      resamples + "+1)); Holm over the " + std::to_string(comparisons) +
      " comparisons of each metric");
  lines.push_back("# equivalence (TOST, alpha 0.05): the 90% interval inside (-" + margin + ", +" +
                  margin + ")");
  for (const MetricComparison& m : metrics) {
    lines.push_back("# " + m.metric + " signature: " +
                    (m.metric == "BLEU" ? eval::bleu_signature(cfg.bleu_options, references)
                                        : eval::chrf_signature(cfg.chrf_options, references)));
  }
  return lines;
}

}  // namespace heed::score_tool
