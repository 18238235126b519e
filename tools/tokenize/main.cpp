// heed-tokenize: tokenize / detokenize text, learn and apply BPE, count vocabularies.
// A filter: stdin → stdout by default, one sentence per line, line count preserved.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/options.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/common/timer.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/io/stream_pipeline.h"
#include "heed/text/bpe.h"
#include "heed/text/bpe_learner.h"
#include "heed/text/input_check.h"
#include "heed/text/tokenizer.h"
#include "heed/text/unicode.h"
#include "heed/text/vocab.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

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

const std::vector<std::string> kModes = {"tokenize", "detokenize", "learn-bpe", "vocab"};

// Parses options into cfg; returns false when the tool must exit 0 at once.
bool parse_options(int argc, char** argv, TokenizeCliConfig& cfg) {
  cli::CommandLine cl({"tokenize",
                       "[tokenize|detokenize|learn-bpe|vocab] [options] [-i IN] [-o OUT]",
                       "Tokenizes text with ICU word boundaries and joiner marks so that "
                       "'heed-tokenize detokenize' restores it exactly; learns and applies BPE "
                       "(subword-nmt codes); counts vocabularies. Reads stdin and writes stdout "
                       "unless -i/-o are given.",
                       LogLevel::kWarn, 1, kModes});
  std::string tok_mode = "conservative", normalize = "nfc", on_invalid = "error";
  const text::TokenizerOptions defaults;
  cl.group("Input/output")
      .add_options()("input,i", po::value(&cfg.inputs)->default_value(cfg.inputs, "-"),
                     "input file ('-' = stdin); learn-bpe and vocab accept several")(
          "output,o", po::value(&cfg.output)->default_value(cfg.output),
          "output file ('-' = stdout), written atomically");
  cli::add_on_invalid(cl.group("Input/output"), &on_invalid, /*allow_skip=*/true);
  cl.group("Tokenization")
      .add_options()("mode",
                     cli::checked(&tok_mode,
                                  [](const std::string& v) {
                                    cli::check_choice("mode", v, {"conservative", "aggressive"});
                                  }),
                     "conservative (keeps 2,000 and soft-landing) or aggressive (splits them)")(
          "normalize",
          cli::checked(&normalize,
                       [](const std::string& v) {
                         cli::check_choice("normalize", v, {"nfc", "nfkc", "none"});
                       }),
          "Unicode normalization: nfc, nfkc or none")(
          "lowercase", po::bool_switch(&cfg.tokenizer.lowercase), "lowercase every token (lossy)")(
          "case-feature", po::bool_switch(&cfg.tokenizer.case_feature),
          "lowercase tokens and mark their case so detokenize restores it")(
          "bpe", po::value(&cfg.bpe_codes), "apply these BPE codes (subword-nmt format)")(
          "bpe-dropout", cli::number(&cfg.bpe.dropout, cli::between(0, 1)),
          "BPE-dropout probability (0 = off), seeded by --seed and the line number");
  cl.group("learn-bpe")
      .add_options()("merges", cli::number(&cfg.learn.merges, cli::at_least(1)),
                     "number of merge operations to learn")(
          "min-frequency", cli::number(&cfg.learn.min_frequency, cli::at_least(1)),
          "stop when the most frequent pair is rarer than this");
  cl.group("vocab").add_options()("min-count", cli::number(&cfg.vocab.min_count, cli::at_least(0)),
                                  "drop tokens seen fewer times")(
      "max-size", cli::number(&cfg.vocab.max_size, cli::at_least(0)),
      "keep at most this many tokens (0 = all)");
  if (!cl.parse(argc, argv)) return false;
  const std::string& mode_name = cl.subcommand();
  cfg.mode = static_cast<Mode>(std::find(kModes.begin(), kModes.end(), mode_name) - kModes.begin());

  cfg.tokenizer.mode = tok_mode == "aggressive" ? text::TokenizeMode::kAggressive
                                                : text::TokenizeMode::kConservative;
  cfg.tokenizer.normalization = normalize == "nfkc"  ? text::Normalization::kNfkc
                                : normalize == "nfc" ? text::Normalization::kNfc
                                                     : text::Normalization::kNone;
  cfg.on_invalid = text::parse_on_invalid(on_invalid, /*allow_skip=*/true);
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

int run_stream(const TokenizeCliConfig& cfg) {
  std::shared_ptr<const text::Bpe> bpe;
  if (!cfg.bpe_codes.empty()) {
    bpe = std::make_shared<const text::Bpe>(text::BpeCodes::load(cfg.bpe_codes), cfg.bpe);
  }
  const text::Tokenizer tokenizer(cfg.tokenizer, bpe);
  io::LineReader reader(cfg.inputs[0]);
  io::LineWriter writer(cfg.output);
  const std::string file = reader.display_name();
  io::PipelineOptions pipeline;
  pipeline.threads = cfg.threads;
  const bool detok = cfg.mode == Mode::kDetokenize;
  const bool dropout = bpe && cfg.bpe.dropout > 0.0f;

  Timer timer;
  long long lines = 0;
  try {
    lines = io::process_lines(
        reader, writer, pipeline, [&](std::string_view line, long long number, std::string& out) {
          std::string repaired;
          const std::string_view text =
              text::checked_line(line, cfg.on_invalid, file, number, repaired);
          if (text.empty()) return;
          if (detok) {
            out = tokenizer.detokenize_line(text);
          } else if (dropout) {
            // One stream per line keeps the output independent of the thread count.
            Rng rng = make_rng(cfg.seed, static_cast<std::uint64_t>(number));
            out = tokenizer.tokenize_line(text, &rng);
          } else {
            out = tokenizer.tokenize_line(text);
          }
        });
  } catch (const DataError& e) {
    throw DataError(e.what() + writer.keep_partial(writer.lines()));
  } catch (const OutOfMemory& e) {
    throw OutOfMemory(e.what() + writer.keep_partial(writer.lines()));
  }
  writer.commit();
  spdlog::info("[tokenize] lines={} seconds={:.2f}", lines, timer.seconds());
  return 0;
}

int run_learn_bpe(const TokenizeCliConfig& cfg) {
  text::WordCounts counts = text::count_words(cfg.inputs, cfg.threads, cfg.on_invalid);
  spdlog::info("[learn-bpe] distinct words={}", counts.size());
  Timer timer;
  std::vector<text::BpeMerge> merges = text::learn_bpe(counts, cfg.learn);
  spdlog::info("[learn-bpe] merges={} seconds={:.2f}", merges.size(), timer.seconds());
  const text::BpeCodes codes(std::move(merges));
  io::LineWriter writer(cfg.output);
  writer.write(codes.to_string());
  writer.commit();
  return 0;
}

int run_vocab(const TokenizeCliConfig& cfg) {
  text::WordCounts counts = text::count_tokens(cfg.inputs, cfg.threads, cfg.on_invalid);
  io::LineWriter writer(cfg.output);
  writer.write(text::format_counts(counts, cfg.vocab));
  writer.commit();
  return 0;
}

int tokenize_main(int argc, char** argv) {
  TokenizeCliConfig cfg;
  if (!parse_options(argc, argv, cfg)) return 0;
  switch (cfg.mode) {
    case Mode::kTokenize:
    case Mode::kDetokenize:
      return run_stream(cfg);
    case Mode::kLearnBpe:
      return run_learn_bpe(cfg);
    case Mode::kVocab:
      return run_vocab(cfg);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "tokenize", tokenize_main);
}
