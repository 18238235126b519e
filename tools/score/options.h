// heed-score's configuration and option table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/comparison.h"
#include "common/options.h"
#include "heed/eval/bleu.h"
#include "heed/eval/chrf.h"
#include "heed/eval/multi_run.h"
#include "heed/text/input_check.h"

namespace heed::score_tool {

enum class ScoreFormat { kTable, kTsv };

struct ScoreCliConfig {
  std::vector<std::string> references;
  // The --hyp files; with --system, every run's file (systems says whose).
  std::vector<std::string> hypotheses;
  std::vector<std::string> system_specs;  // --system as given
  std::vector<std::string> minus_specs;   // --minus as given (NAME=RUN[,RUN...], like --system)
  std::vector<cli::NamedSystem> systems;  // resolved, in order of first mention; the baseline first
  std::string output = "-";
  // As given: words after -m ("-m bleu chrf", sacreBLEU's habit), each may be a comma list;
  // bleu and chrf say which.
  std::vector<std::string> metrics = {"bleu", "chrf"};
  bool bleu = true;
  bool chrf = true;
  eval::BleuOptions bleu_options;
  eval::ChrfOptions chrf_options;
  bool sentence = false;
  int bootstrap = 0;
  double equivalence_margin = eval::MultiRunOptions().equivalence_margin;
  // --system: auto (a table on a terminal, TSV otherwise), table or tsv; corpus scores: text
  // (also auto) or json (sacreBLEU 2's).
  std::string format_name = "auto";
  bool json = false;
  // --confidence: sacreBLEU's bootstrap interval of one system's scores (--bootstrap resamples,
  // 1000 unless given).
  bool confidence = false;
  ScoreFormat format = ScoreFormat::kTsv;
  int width = 2;
  std::uint64_t seed = 12345;
  int threads = 1;  // --threads, resolved (0 there = every core)
  text::OnInvalid on_invalid = text::OnInvalid::kError;
};

cli::ToolInfo tool_info();
// Declares heed-score's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, ScoreCliConfig& cfg);
// Parses argv into cfg and checks it; false when the tool must exit 0 at once (--help,
// --version, --print-config).
bool parse_options(int argc, char** argv, ScoreCliConfig& cfg);

}  // namespace heed::score_tool
