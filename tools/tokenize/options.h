// heed-tokenize's configuration and option table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/options.h"
#include "heed/text/bpe.h"
#include "heed/text/bpe_learner.h"
#include "heed/text/input_check.h"
#include "heed/text/tokenizer.h"
#include "heed/text/vocab.h"

namespace heed::tokenize_tool {

enum class Mode { kTokenize, kDetokenize, kLearnBpe, kVocab };

struct TokenizeCliConfig {
  Mode mode = Mode::kTokenize;
  std::vector<std::string> inputs{"-"};  // learn-bpe and vocab may read several files
  std::string output = "-";
  text::TokenizerOptions tokenizer;
  std::string bpe_codes;  // apply these BPE codes while tokenizing
  text::BpeOptions bpe;   // BPE-dropout
  text::OnInvalid on_invalid = text::OnInvalid::kError;
  text::BpeLearnOptions learn;    // learn-bpe
  text::VocabCountOptions vocab;  // vocab
  int threads = 1;
  std::uint64_t seed = 1;
};

cli::ToolInfo tool_info();
// Declares heed-tokenize's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, TokenizeCliConfig& cfg);
// Parses argv into cfg and checks it; false when the tool must exit 0 at once (--help,
// --version, --print-config).
bool parse_options(int argc, char** argv, TokenizeCliConfig& cfg);

}  // namespace heed::tokenize_tool
