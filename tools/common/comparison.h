// The multi-run comparison of heed/eval/multi_run.h as the tools write it: systems given as
// --system NAME=RUN[,RUN...], one row per system and metric (TSV or an aligned table), and the
// "# " lines that say how it was computed. heed-score compares BLEU and chrF with it,
// heed-align score AER.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/eval/multi_run.h"

namespace heed::cli {

// One system (--system NAME=RUN[,RUN...]): its runs' files, as indices into a list of files.
struct NamedSystem {
  std::string name;
  std::vector<size_t> runs;
  // heed-score --minus: run r is scored as its score minus that of minus[r] (empty: no --minus).
  std::vector<size_t> minus;
};
// "NAME=RUN[,RUN...]" split, its files appended to files; ConfigError naming option (--system,
// or heed-score's --minus) when it is not that.
NamedSystem parse_system(const std::string& spec, std::vector<std::string>& files,
                         const std::string& option = "--system");
// Every spec parsed, in order of first mention (the baseline first); a name given again adds
// runs to its system. A file given twice for one system (by name, or the same file by another
// path) is a ConfigError: one run counted as several would shrink its spread and interval.
std::vector<NamedSystem> parse_systems(const std::vector<std::string>& specs,
                                       std::vector<std::string>& files,
                                       const std::string& option = "--system");

// The TSV columns, in order.
const std::vector<std::string>& comparison_columns();
// One system's cells: comparison_columns() (tsv) or the table's (header: comparison_header).
std::vector<std::string> comparison_row(const std::string& name, const std::string& metric,
                                        const eval::SystemComparison& r, bool baseline,
                                        int decimals, bool table);
std::vector<std::string> comparison_header(const std::string& margin, bool table);
// The "# " lines after the rows: the resampling, the p-values over comparisons per metric,
// Welch's test over the runs, the equivalence margin and verdict.
std::vector<std::string> comparison_method(int resamples, std::uint64_t seed,
                                           const std::string& baseline, size_t comparisons,
                                           const std::string& margin);

}  // namespace heed::cli
