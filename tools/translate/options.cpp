#include "translate/options.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include "common/shared_options.h"
#include "heed/align/alignment_writer.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/decode/sampler.h"
#include "heed/io/line_writer.h"

namespace heed::translate_tool {
namespace {

// --alignment: a format (TranslationOptions::validate refuses those that cannot follow a
// translation), hard (pharaoh, its first name) or a threshold in (0, 1] (pharaoh links of every
// word pair weighted above it).
void parse_alignment(const std::string& value, decode::TranslationOptions& translation) {
  const std::vector<std::string> formats = align::alignment_format_names(/*translations=*/false);
  if (std::find(formats.begin(), formats.end(), value) != formats.end() || value == "hard") {
    translation.alignment = value == "hard" ? "pharaoh" : value;
    return;
  }
  char* end = nullptr;
  translation.links.threshold = std::strtof(value.c_str(), &end);
  if (end == value.c_str() || *end ||
      !(translation.links.threshold > 0.f && translation.links.threshold <= 1.f)) {
    throw ConfigError("--alignment must be " +
                      join(align::alignment_format_names(/*translations=*/true), ", ") +
                      ", hard or a threshold in (0, 1], not '" + value + "'");
  }
  translation.alignment = "pharaoh";
  translation.links.method = align::ExtractMethod::kThreshold;
}

}  // namespace

cli::ToolInfo tool_info() {
  return {"translate", "-m MODEL [options] < input > output",
          "Translates one sentence per line with a heed model: raw text in, raw text out (the "
          "tokenizer and BPE recorded in the model are applied and undone), one output line per "
          "input line, in input order, flushed after every batch.",
          LogLevel::kWarn};
}

void add_options(cli::CommandLine& cl, TranslateCliConfig& cfg) {
  decode::TranslationOptions& t = cfg.translation;
  decode::DecodeConfig& d = t.decode;
  const auto sampling = [](const std::string& spec) { decode::parse_sampling(spec); };
  cli::add_model_option(cl.group("Translation"), &cfg.model);
  // clang-format off
  cl.group("Translation")
      ("input,i",           cli::text_with_default(&cfg.input), "input file ('-' = stdin)")
      ("output,o",          cli::text_with_default(&cfg.output), "output file ('-' = stdout)")
      ("beam-size,b",       cli::number(&d.beam_size, cli::between(1, 1000)),
                            "beam size (1 = greedy; 1 with --sampling)")
      ("n-best",            cli::number(&d.n_best, cli::between(1, 1000)),
                            "write the N best hypotheses per line as 'id ||| hypothesis ||| score'")
      ("batch-size",        cli::number(&t.batch_size, cli::at_least(1)),
                            "sentences decoded together")
      ("normalize",         cli::choice(&d.normalization, "gnmt", decode::parse_normalization),
                            "length normalization: gnmt, average or none")
      ("length-penalty",    cli::number(&d.alpha, cli::Bounds{}), "GNMT alpha")
      ("coverage-penalty",  cli::number(&d.coverage_penalty, cli::at_least(0)),
                            "GNMT coverage penalty beta (0 = off)")
      ("max-length-ratio",  cli::number(&d.max_length_ratio, cli::above(0)),
                            "outputs have at most ratio × source + offset tokens")
      ("max-length-offset", cli::number(&d.max_length_offset, cli::at_least(0)),
                            "see --max-length-ratio")
      ("min-length",        cli::number(&d.min_length, cli::at_least(0)),
                            "</s> is not allowed before this many output tokens")
      ("max-input-length",  cli::number(&t.max_input_length, cli::at_least(1)),
                            "longer inputs are truncated to this many tokens, with a warning "
                            "naming the line")
      ("pretokenized",      cli::flag(&t.pretokenized),
                            "input and output are space-separated model tokens (no tokenizer, no "
                            "BPE)")
      ("alignment",         cli::text(&cfg.alignment),
                            "append ' ||| ' and the alignment from the attention, in a format: " +
                            align::describe_alignment_formats(/*translations=*/true) +
                            ". Word links join each output word to its most attended source word "
                            "(hard = pharaoh); a threshold such as 0.3 instead gives pharaoh "
                            "links of every word pair above it")
      ("replace-unk",       cli::flag(&t.replace_unk),
                            "replace <unk> by the most attended source token");
  cli::add_precision_option(cl.group("Translation"), &cfg.precision);
  cl.group("Sampling")
      ("sampling",          cli::checked(&cfg.sampling, sampling),
                            "draw each token at random instead of searching (the beam is 1): "
                            "full (the whole distribution), topk:K (the K most probable tokens) "
                            "or nucleus:P (the fewest most probable tokens holding probability "
                            "P); line N's draws depend on --seed and N alone")
      ("temperature",       cli::number(&d.sampling.temperature, cli::above(0)),
                            "with --sampling: divide the log-probabilities by this (< 1 sharper, "
                            "> 1 flatter)");
  cl.group("Shortlist")
      ("shortlist",          cli::text(&t.shortlist.table),
                             "score only a shortlist of target words per batch: the translations "
                             "of its source words in this lexical table "
                             "('source<TAB>target<TAB>probability' lines, as heed-align ibm2 "
                             "--lexical-table writes), the most frequent words and the special "
                             "tokens")
      ("shortlist-frequent", cli::number(&t.shortlist.frequent, cli::at_least(0)),
                             "the most frequent target words always in the shortlist")
      ("shortlist-best",     cli::number(&t.shortlist.best, cli::at_least(0)),
                             "translations per source word taken from the table, most probable "
                             "first");
  // clang-format on
  cli::add_on_invalid(cl.group("Input"), &cfg.on_invalid, /*allow_skip=*/false);
  // Sampling draws one translation per line: its beam is 1 unless one is given (which
  // DecodeConfig::validate then holds to 1).
  cl.derived_default("beam-size", [&cfg]() -> std::optional<std::string> {
    if (!decode::parse_sampling(cfg.sampling).enabled()) return std::nullopt;
    return "1";
  });
}

bool parse_options(int argc, char** argv, TranslateCliConfig& cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cfg);
  if (!cl.parse(argc, argv)) return false;
  decode::TranslationOptions& translation = cfg.translation;
  decode::SamplingOptions& sample = translation.decode.sampling;
  const float temperature = sample.temperature;
  sample = decode::parse_sampling(cfg.sampling);
  sample.temperature = temperature;
  sample.seed = cl.common().seed;
  // Refused without --sampling when set to anything but its default (which --print-config
  // writes and a replay gives back).
  if (!sample.enabled() && temperature != decode::SamplingOptions().temperature) {
    throw ConfigError("--temperature needs --sampling");
  }
  if (!cfg.alignment.empty()) parse_alignment(cfg.alignment, translation);
  translation.validate();
  cli::check_precision_supported(cfg.precision);
  // Refused without --shortlist when set to anything but their defaults (which --print-config
  // writes and a replay gives back).
  const decode::ShortlistOptions shortlist_defaults;
  if (translation.shortlist.table.empty() &&
      (translation.shortlist.frequent != shortlist_defaults.frequent ||
       translation.shortlist.best != shortlist_defaults.best)) {
    throw ConfigError("--shortlist-frequent and --shortlist-best need --shortlist");
  }
  cfg.threads = cl.threads();
  io::check_writable(cfg.output);
  return true;
}

}  // namespace heed::translate_tool
