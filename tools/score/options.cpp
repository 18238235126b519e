#include "score/options.h"

#include <unistd.h>

#include <algorithm>

#include "common/comparison.h"
#include "common/shared_options.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_writer.h"

namespace heed::score_tool {

namespace {

// --minus NAME=RUN,...: the runs each of NAME's runs is scored against, in order. Every system
// has them or none does (a gain compared with a score says nothing), as many as its runs.
void attach_minus(ScoreCliConfig& cfg) {
  if (cfg.minus_specs.empty()) return;
  for (cli::NamedSystem& minus : cli::parse_systems(cfg.minus_specs, cfg.hypotheses, "--minus")) {
    auto system =
        std::find_if(cfg.systems.begin(), cfg.systems.end(),
                     [&minus](const cli::NamedSystem& s) { return s.name == minus.name; });
    if (system == cfg.systems.end()) {
      throw ConfigError("--minus " + minus.name + ": no --system of that name");
    }
    if (minus.runs.size() != system->runs.size()) {
      throw ConfigError("--minus " + minus.name + ": " + std::to_string(minus.runs.size()) +
                        " runs for the system's " + std::to_string(system->runs.size()) +
                        " (one for each run, in the same order)");
    }
    system->minus = std::move(minus.runs);
  }
  for (const cli::NamedSystem& system : cfg.systems) {
    if (system.minus.empty()) {
      throw ConfigError("--system " + system.name +
                        ": no --minus, but other systems have one (give every system its "
                        "--minus runs: a gain is compared with gains, not with a score)");
    }
  }
}

}  // namespace

cli::ToolInfo tool_info() {
  return {"score",
          "--ref REF --hyp HYP [--hyp HYP2 ...] [options]\n"
          "       heed-score --ref REF --system NAME=RUN[,RUN...] [--system ...] --bootstrap N "
          "[options]",
          "Scores translations against references: corpus BLEU (sacreBLEU 2.x: 13a tokenization, "
          "exponential smoothing, brevity penalty) and chrF2, sentence-level scores, paired "
          "bootstrap resampling between systems, and comparisons of systems trained several "
          "times (--system: a hierarchical bootstrap over runs and segments, Holm-adjusted "
          "p-values, Welch's t-test over the runs alone, TOST equivalence with Holm). '-' reads "
          "a file from standard input.",
          LogLevel::kWarn, ScoreCliConfig().seed};
}

void add_options(cli::CommandLine& cl, ScoreCliConfig& cfg) {
  const auto check_system = [](const std::string& spec) {
    std::vector<std::string> files;
    (void)cli::parse_system(spec, files);
  };
  const auto check_minus = [](const std::string& spec) {
    std::vector<std::string> files;
    (void)cli::parse_system(spec, files, "--minus");
  };
  const auto metrics = [](const std::string& list) {
    for (const auto& m : split(list, ",")) cli::check_choice("metrics", m, {"bleu", "chrf"});
  };
  // clang-format off
  cl.group("Scoring")
      ("ref,r",     cli::required_texts(&cfg.references),
                    "reference file; repeat for several references per segment")
      ("hyp",       cli::texts(&cfg.hypotheses),
                    "hypothesis file; repeat for several systems (the first is the baseline)")
      ("system",    cli::checked_texts(&cfg.system_specs, check_system),
                    "NAME=RUN[,RUN...]: a system and its runs' hypothesis files (one per "
                    "seed); repeat for each system, the first is the baseline; with --bootstrap")
      ("minus",     cli::checked_texts(&cfg.minus_specs, check_minus),
                    "NAME=RUN[,RUN...]: with --system, each run of system NAME is scored as its "
                    "score minus that of the run given here in the same place (its greedy "
                    "output, say): the systems are compared on what they gain; give it for "
                    "every system")
      ("output,o",  cli::text_with_default(&cfg.output), "output file ('-' = stdout)")
      ("metrics,m", cli::checked_words(&cfg.metrics, "bleu chrf", metrics),
                    "bleu, chrf or both (several words, or comma-separated)")
      ("tokenize",  cli::choice(&cfg.bleu_options.tokenizer,
                                eval::to_string(cfg.bleu_options.tokenizer),
                                eval::parse_bleu_tokenizer),
                    "BLEU tokenization: 13a, intl or none")
      ("lowercase", cli::flag(&cfg.bleu_options.lowercase), "lowercase before scoring")
      ("sentence",  cli::flag(&cfg.sentence),
                    "one line per segment: line number, then the metrics (sentence BLEU with "
                    "effective order)")
      ("chrf-word-order", cli::number(&cfg.chrf_options.word_order, cli::between(0, 6)),
                    "word n-grams up to this order in chrF (2: chrF++, sacreBLEU's chrF2++)")
      ("bootstrap", cli::number(&cfg.bootstrap, cli::between(0, 1000000)),
                    "paired bootstrap resampling with this many resamples (0 = off; 1000 is "
                    "usual; at most 1,000,000); the resamples of --confidence")
      ("confidence", cli::flag(&cfg.confidence),
                    "one system's 95% bootstrap interval, as sacreBLEU's --confidence (seed "
                    "--seed, 1000 resamples unless --bootstrap)")
      ("equivalence-margin", cli::number(&cfg.equivalence_margin, cli::above(0)),
                    "--system: equivalence (TOST, Holm-adjusted) within this many points of "
                    "the baseline")
      ("format",    cli::choice(&cfg.format_name, {"auto", "table", "tsv", "text", "json"}),
                    "--system: table, tsv, or auto (a table on a terminal, TSV otherwise); "
                    "one system's scores: text (auto) or json (sacreBLEU 2's)")
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
  for (const auto& word : cfg.metrics) {
    for (const auto& m : split(word, ",")) (m == "bleu" ? cfg.bleu : cfg.chrf) = true;
  }
  const bool system_format = cfg.format_name == "table" || cfg.format_name == "tsv";
  cfg.json = cfg.format_name == "json";
  if (cfg.system_specs.empty()) {
    // No hypothesis file: standard input (sacreBLEU's 'sacrebleu REF < HYP').
    if (cfg.hypotheses.empty()) cfg.hypotheses.push_back("-");
    // Set to anything but its default (--print-config writes the defaults, and replays them).
    const ScoreCliConfig defaults;
    for (const auto& [option, set] :
         {std::pair{"equivalence-margin", cfg.equivalence_margin != defaults.equivalence_margin},
          std::pair{"format", system_format}, std::pair{"minus", !cfg.minus_specs.empty()}}) {
      if (set) throw ConfigError("--" + std::string(option) + " applies to --system comparisons");
    }
    const bool one_corpus_score = cfg.hypotheses.size() == 1 && !cfg.sentence;
    if (cfg.json && !one_corpus_score) {
      throw ConfigError(
          "--format json writes one system's corpus scores (one --hyp, no --sentence)");
    }
    if (cfg.confidence && !one_corpus_score) {
      throw ConfigError(
          "--confidence is one system's interval (one --hyp, no --sentence); several --hyp "
          "are compared with --bootstrap N");
    }
    if (cfg.confidence && cfg.bootstrap == 0) cfg.bootstrap = 1000;
  } else {
    if (cfg.json || cfg.format_name == "text") {
      throw ConfigError("--format " + cfg.format_name +
                        " writes one system's scores, not --system");
    }
    if (cfg.confidence) {
      throw ConfigError("--confidence is one system's interval; --system gives each system's");
    }
    if (!cfg.hypotheses.empty()) {
      throw ConfigError("--hyp and --system cannot be combined: give every system as --system");
    }
    if (cfg.sentence) throw ConfigError("--sentence scores one --hyp file, not --system");
    if (cfg.bootstrap == 0) {
      throw ConfigError("--system compares by resampling: give --bootstrap N (1000 is usual)");
    }
    cfg.systems = cli::parse_systems(cfg.system_specs, cfg.hypotheses);
    attach_minus(cfg);
    cfg.format = cfg.format_name == "table"                   ? ScoreFormat::kTable
                 : cfg.format_name == "tsv"                   ? ScoreFormat::kTsv
                 : cfg.output == "-" && isatty(STDOUT_FILENO) ? ScoreFormat::kTable
                                                              : ScoreFormat::kTsv;
  }
  // Standard input can be read once: one file may be '-', not two.
  int from_stdin = 0;
  for (const auto* files : {&cfg.references, &cfg.hypotheses}) {
    from_stdin += int(std::count(files->begin(), files->end(), std::string("-")));
  }
  if (from_stdin > 1) {
    throw ConfigError(std::string("only one of the --ref and ") +
                      (cfg.systems.empty() ? "--hyp" : "--system") + " files can be '-'");
  }
  cfg.chrf_options.lowercase = cfg.bleu_options.lowercase;
  if (cfg.sentence && cfg.hypotheses.size() != 1) {
    throw ConfigError("--sentence scores one --hyp file at a time");
  }
  cfg.seed = cl.common().seed;
  cfg.threads = cl.threads();
  io::check_writable(cfg.output);
  return true;
}

}  // namespace heed::score_tool
