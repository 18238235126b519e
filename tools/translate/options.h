// heed-translate's configuration and option table.
#pragma once

#include <string>

#include "common/options.h"
#include "heed/decode/translator.h"
#include "heed/onednn/precision.h"
#include "heed/text/input_check.h"

namespace heed::translate_tool {

struct TranslateCliConfig {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  decode::TranslationOptions translation;
  int window_batches = 8;  // lines read ahead and sorted by length: batch_size × this
  onednn::Precision precision = onednn::Precision::kF32;
  text::OnInvalid on_invalid = text::OnInvalid::kError;
  int threads = 0;

  // As the command line gives them; parse_options resolves them into translation.
  std::string alignment;          // a format, hard or a threshold; empty: none
  std::string sampling = "none";  // full, topk:K, nucleus:P or none
};

cli::ToolInfo tool_info();
// Declares heed-translate's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, TranslateCliConfig& cfg);
// Parses argv into cfg and checks it; false when the tool must exit 0 at once (--help,
// --version, --print-config).
bool parse_options(int argc, char** argv, TranslateCliConfig& cfg);

}  // namespace heed::translate_tool
