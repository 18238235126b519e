#include "tokenize/options.h"

#include <algorithm>

#include "common/shared_options.h"
#include "heed/common/error.h"
#include "heed/io/line_writer.h"

namespace heed::tokenize_tool {
namespace {

const std::vector<std::string> kModes = {"tokenize", "detokenize", "learn-bpe", "vocab"};

}  // namespace

cli::ToolInfo tool_info() {
  return {"tokenize",
          "[tokenize|detokenize|learn-bpe|vocab] [options] [-i IN] [-o OUT]",
          "Tokenizes text with ICU word boundaries and joiner marks so that 'heed-tokenize "
          "detokenize' restores it exactly; learns and applies BPE (subword-nmt codes); counts "
          "vocabularies. Reads stdin and writes stdout unless -i/-o are given.",
          LogLevel::kWarn,
          1,
          kModes};
}

void add_options(cli::CommandLine& cl, TokenizeCliConfig& cfg) {
  // clang-format off
  cl.group("Input/output")
      ("input,i",       cli::texts_with_default(&cfg.inputs, "-"),
                        "input file ('-' = stdin); learn-bpe and vocab accept several")
      ("output,o",      cli::text_with_default(&cfg.output),
                        "output file ('-' = stdout), written atomically");
  cli::add_on_invalid(cl.group("Input/output"), &cfg.on_invalid, /*allow_skip=*/true);
  cli::add_tokenizer_options(cl.group("Tokenization"), &cfg.tokenizer, cli::TokenizerUse::kApply);
  cl.group("Tokenization")
      ("bpe",           cli::text(&cfg.bpe_codes), "apply these BPE codes (subword-nmt format)")
      ("bpe-dropout",   cli::number(&cfg.bpe.dropout, cli::between(0, 1)),
                        "BPE-dropout probability (0 = off), seeded by --seed and the line number");
  cl.group("learn-bpe")
      ("merges",        cli::number(&cfg.learn.merges, cli::at_least(1)),
                        "number of merge operations to learn")
      ("min-frequency", cli::number(&cfg.learn.min_frequency, cli::at_least(1)),
                        "stop when the most frequent pair is rarer than this");
  cl.group("vocab")
      ("min-count",     cli::number(&cfg.vocab.min_count, cli::at_least(0)),
                        "drop tokens seen fewer times")
      ("max-size",      cli::number(&cfg.vocab.max_size, cli::at_least(0)),
                        "keep at most this many tokens (0 = all)");
  // clang-format on
}

bool parse_options(int argc, char** argv, TokenizeCliConfig& cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cfg);
  if (!cl.parse(argc, argv)) return false;
  const std::string& mode_name = cl.subcommand();
  cfg.mode = static_cast<Mode>(std::find(kModes.begin(), kModes.end(), mode_name) - kModes.begin());
  if (cfg.bpe.dropout > 0.0f && cfg.bpe_codes.empty()) {
    throw ConfigError("--bpe-dropout needs --bpe CODES");
  }
  if (cfg.mode != Mode::kLearnBpe && cfg.mode != Mode::kVocab && cfg.inputs.size() != 1) {
    throw ConfigError("--input: " + mode_name + " reads one input");
  }
  cfg.tokenizer.validate();
  cfg.threads = cl.threads();
  cfg.seed = cl.common().seed;
  io::check_writable(cfg.output);
  return true;
}

}  // namespace heed::tokenize_tool
