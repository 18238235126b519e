// heed-score's configuration and option table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/options.h"
#include "heed/eval/bleu.h"
#include "heed/eval/chrf.h"
#include "heed/text/input_check.h"

namespace heed::score_tool {

struct ScoreCliConfig {
  std::vector<std::string> references;
  std::vector<std::string> hypotheses;
  std::string output = "-";
  std::string metrics = "bleu,chrf";  // as given; bleu and chrf say which
  bool bleu = true;
  bool chrf = true;
  eval::BleuOptions bleu_options;
  eval::ChrfOptions chrf_options;
  bool sentence = false;
  int bootstrap = 0;
  int width = 2;
  std::uint64_t seed = 12345;
  text::OnInvalid on_invalid = text::OnInvalid::kError;
};

cli::ToolInfo tool_info();
// Declares heed-score's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, ScoreCliConfig& cfg);
// Parses argv into cfg and checks it; false when the tool must exit 0 at once (--help,
// --version, --print-config).
bool parse_options(int argc, char** argv, ScoreCliConfig& cfg);

}  // namespace heed::score_tool
