// heed-score --system: the multi-run comparison of heed/eval/multi_run.h per metric, written as
// an aligned table or as TSV, with the method, seed and signatures in "# " lines after it.
#pragma once

#include <string>
#include <vector>

#include "heed/eval/multi_run.h"
#include "score/options.h"

namespace heed::score_tool {

struct MetricComparison {
  std::string metric;                          // "BLEU", "chrF2"
  std::vector<eval::SystemComparison> result;  // one per cfg.systems, the baseline first
};

// The report's lines (cfg.format: table or TSV); references is the number of --ref files.
std::vector<std::string> comparison_report(const ScoreCliConfig& cfg,
                                           const std::vector<MetricComparison>& metrics,
                                           int references);

}  // namespace heed::score_tool
