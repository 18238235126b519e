#include "score/compare.h"

#include "common/comparison.h"
#include "common/table.h"
#include "heed/common/strings.h"
#include "heed/eval/bleu.h"
#include "heed/eval/chrf.h"

namespace heed::score_tool {

std::vector<std::string> comparison_report(const ScoreCliConfig& cfg,
                                           const std::vector<MetricComparison>& metrics,
                                           int references) {
  const bool table = cfg.format == ScoreFormat::kTable;
  const std::string margin = cli::format_number(cfg.equivalence_margin, cfg.width);
  std::vector<std::vector<std::string>> rows = {cli::comparison_header(margin, table)};
  size_t comparisons = 0;
  for (const MetricComparison& m : metrics) {
    comparisons = m.result.size() - 1;
    for (size_t s = 0; s < m.result.size(); ++s) {
      rows.push_back(cli::comparison_row(cfg.systems[s].name, m.metric, m.result[s], s == 0,
                                         cfg.width, table));
    }
  }
  std::vector<std::string> lines;
  if (table) {
    lines = cli::aligned_lines(rows);
  } else {
    for (const auto& row : rows) lines.push_back(join(row, "\t"));
  }
  for (auto& line :
       cli::comparison_method(cfg.bootstrap, cfg.seed, cfg.systems[0].name, comparisons, margin)) {
    lines.push_back(std::move(line));
  }
  if (!cfg.systems[0].minus.empty()) {
    lines.push_back(
        "# --minus: every run scored as its score minus that of its --minus run on the same "
        "resampled segments; means, differences and intervals are of these gains (a difference "
        "of differences)");
  }
  for (const MetricComparison& m : metrics) {
    lines.push_back("# " + m.metric + " signature: " +
                    (m.metric == "BLEU" ? eval::bleu_signature(cfg.bleu_options, references)
                                        : eval::chrf_signature(cfg.chrf_options, references)));
  }
  return lines;
}

}  // namespace heed::score_tool
