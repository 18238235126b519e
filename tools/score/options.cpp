#include "score/options.h"

#include <algorithm>

#include "common/shared_options.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_writer.h"

namespace heed::score_tool {

cli::ToolInfo tool_info() {
  return {"score", "--ref REF --hyp HYP [--hyp HYP2 ...] [options]",
          "Scores translations against references: corpus BLEU (sacreBLEU 2.x: 13a tokenization, "
          "exponential smoothing, brevity penalty) and chrF2, sentence-level scores, and paired "
          "bootstrap resampling between systems. '-' reads a file from standard input.",
          LogLevel::kWarn, ScoreCliConfig().seed};
}

void add_options(cli::CommandLine& cl, ScoreCliConfig& cfg) {
  const auto metrics = [](const std::string& list) {
    for (const auto& m : split(list, ",")) cli::check_choice("metrics", m, {"bleu", "chrf"});
  };
  // clang-format off
  cl.group("Scoring")
      ("ref,r",     cli::required_texts(&cfg.references),
                    "reference file; repeat for several references per segment")
      ("hyp",       cli::required_texts(&cfg.hypotheses),
                    "hypothesis file; repeat for several systems (the first is the baseline)")
      ("output,o",  cli::text_with_default(&cfg.output), "output file ('-' = stdout)")
      ("metrics,m", cli::checked(&cfg.metrics, metrics), "bleu, chrf or both (comma-separated)")
      ("tokenize",  cli::choice(&cfg.bleu_options.tokenizer,
                                eval::to_string(cfg.bleu_options.tokenizer),
                                eval::parse_bleu_tokenizer),
                    "BLEU tokenization: 13a, intl or none")
      ("lowercase", cli::flag(&cfg.bleu_options.lowercase), "lowercase before scoring")
      ("sentence",  cli::flag(&cfg.sentence),
                    "one line per segment: line number, then the metrics (sentence BLEU with "
                    "effective order)")
      ("bootstrap", cli::number(&cfg.bootstrap, cli::between(0, 1000000)),
                    "paired bootstrap resampling with this many resamples (0 = off; 1000 is "
                    "usual; at most 1,000,000)")
      ("width",     cli::number(&cfg.width, cli::between(0, 10)), "decimals printed");
  // clang-format on
  cli::add_on_invalid(cl.group("Input"), &cfg.on_invalid, /*allow_skip=*/false);
  cl.positional("hyp", -1);
}

bool parse_options(int argc, char** argv, ScoreCliConfig& cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cfg);
  if (!cl.parse(argc, argv)) return false;
  cfg.bleu = cfg.chrf = false;
  for (const auto& m : split(cfg.metrics, ",")) {
    (m == "bleu" ? cfg.bleu : cfg.chrf) = true;
  }
  // Standard input can be read once: one file may be '-', not two.
  int from_stdin = 0;
  for (const auto* files : {&cfg.references, &cfg.hypotheses}) {
    from_stdin += int(std::count(files->begin(), files->end(), std::string("-")));
  }
  if (from_stdin > 1) throw ConfigError("only one of the --ref and --hyp files can be '-'");
  cfg.chrf_options.lowercase = cfg.bleu_options.lowercase;
  if (cfg.sentence && cfg.hypotheses.size() != 1) {
    throw ConfigError("--sentence scores one --hyp file at a time");
  }
  cfg.seed = cl.common().seed;
  io::check_writable(cfg.output);
  return true;
}

}  // namespace heed::score_tool
