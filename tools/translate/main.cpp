// heed-translate: a line filter. Raw text in (the model's own tokenizer and BPE applied), raw
// text out, in input order, one output line per input line, flushed after every batch so it
// works as a co-process. Optional n-best lists and word alignments from the attention.
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/options.h"
#include "common/run.h"
#include "heed/align/alignment_writer.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/common/timer.h"
#include "heed/decode/memory.h"
#include "heed/decode/translator.h"
#include "heed/io/batch_reader.h"
#include "heed/io/line_writer.h"
#include "heed/model/model_file.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"
#include "heed/text/input_check.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

struct TranslateCliConfig {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  decode::TranslationOptions translation;
  int window_batches = 8;  // lines read ahead and sorted by length: batch_size × this
  onednn::Precision precision = onednn::Precision::kF32;
  text::OnInvalid on_invalid = text::OnInvalid::kError;
  int threads = 0;
};

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

bool parse_options(int argc, char** argv, TranslateCliConfig& cfg) {
  cli::CommandLine cl({"translate", "-m MODEL [options] < input > output",
                       "Translates one sentence per line with a heed model: raw text in, raw text "
                       "out (the tokenizer and BPE recorded in the model are applied and undone), "
                       "one output line per input line, in input order, flushed after every "
                       "batch.",
                       LogLevel::kWarn});
  std::string normalize = "gnmt", alignment, precision = "f32", sampling = "none";
  cl.group("Translation")
      .add_options()("model,m", po::value(&cfg.model)->required(),
                     "model file (heed-train's model.heed)")(
          "input,i", po::value(&cfg.input)->default_value(cfg.input), "input file ('-' = stdin)")(
          "output,o", po::value(&cfg.output)->default_value(cfg.output),
          "output file ('-' = stdout)")(
          "beam-size,b", cli::number(&cfg.translation.decode.beam_size, cli::between(1, 1000)),
          "beam size (1 = greedy)")(
          "n-best", cli::number(&cfg.translation.decode.n_best, cli::between(1, 1000)),
          "write the N best hypotheses per line as 'id ||| hypothesis ||| score'")(
          "batch-size", cli::number(&cfg.translation.batch_size, cli::at_least(1)),
          "sentences decoded together")("normalize",
                                        cli::checked(&normalize, decode::parse_normalization),
                                        "length normalization: gnmt, average or none")(
          "length-penalty", cli::number(&cfg.translation.decode.alpha, cli::Bounds{}),
          "GNMT alpha")("coverage-penalty",
                        cli::number(&cfg.translation.decode.coverage_penalty, cli::at_least(0)),
                        "GNMT coverage penalty beta (0 = off)")(
          "max-length-ratio", cli::number(&cfg.translation.decode.max_length_ratio, cli::above(0)),
          "outputs have at most ratio × source + offset tokens")(
          "max-length-offset",
          cli::number(&cfg.translation.decode.max_length_offset, cli::at_least(0)),
          "see --max-length-ratio")(
          "min-length", cli::number(&cfg.translation.decode.min_length, cli::at_least(0)),
          "</s> is not allowed before this many output tokens")(
          "max-input-length", cli::number(&cfg.translation.max_input_length, cli::at_least(1)),
          "longer inputs are truncated to this many tokens, with a warning naming the line")(
          "pretokenized", po::bool_switch(&cfg.translation.pretokenized),
          "input and output are space-separated model tokens (no tokenizer, no BPE)")(
          "alignment", po::value(&alignment),
          ("append ' ||| ' and the alignment from the attention, in a format: " +
           align::describe_alignment_formats(/*translations=*/true) +
           ". Word links join each output word to its most attended source word (hard = "
           "pharaoh); a threshold such as 0.3 instead gives pharaoh links of every word pair "
           "above it")
              .c_str())("replace-unk", po::bool_switch(&cfg.translation.replace_unk),
                        "replace <unk> by the most attended source token")(
          "precision", cli::checked(&precision, onednn::parse_precision), "f32 or bf16");
  decode::SamplingOptions& sample = cfg.translation.decode.sampling;
  cl.group("Sampling")
      .add_options()(
          "sampling",
          cli::checked(&sampling, [](const std::string& v) { decode::parse_sampling(v); }),
          "draw each token at random instead of searching (with --beam-size 1): full "
          "(the whole distribution), topk:K (the K most probable tokens) or nucleus:P "
          "(the fewest most probable tokens holding probability P); line N's draws "
          "depend on --seed and N alone")(
          "temperature", cli::number(&sample.temperature, cli::above(0)),
          "with --sampling: divide the log-probabilities by this (< 1 sharper, > 1 flatter)");
  cl.group("Shortlist")
      .add_options()("shortlist", po::value(&cfg.translation.shortlist.table),
                     "score only a shortlist of target words per batch: the translations of its "
                     "source words in this lexical table ('source<TAB>target<TAB>probability' "
                     "lines, as heed-align ibm2 --lexical-table writes), the most frequent words "
                     "and the special tokens")(
          "shortlist-frequent", cli::number(&cfg.translation.shortlist.frequent, cli::at_least(0)),
          "the most frequent target words always in the shortlist")(
          "shortlist-best", cli::number(&cfg.translation.shortlist.best, cli::at_least(0)),
          "translations per source word taken from the table, most probable first");
  std::string on_invalid = "error";
  cli::add_on_invalid(cl.group("Input"), &on_invalid, /*allow_skip=*/false);
  if (!cl.parse(argc, argv)) return false;
  cfg.translation.decode.normalization = decode::parse_normalization(normalize);
  const float temperature = sample.temperature;
  sample = decode::parse_sampling(sampling);
  sample.temperature = temperature;
  sample.seed = cl.common().seed;
  // Refused without --sampling when set to anything but its default (which --print-config
  // writes and a replay gives back).
  if (!sample.enabled() && temperature != decode::SamplingOptions().temperature) {
    throw ConfigError("--temperature needs --sampling");
  }
  auto& translation = cfg.translation;
  if (!alignment.empty()) parse_alignment(alignment, translation);
  translation.validate();
  cfg.on_invalid = text::parse_on_invalid(on_invalid, /*allow_skip=*/false);
  cfg.precision = onednn::parse_precision(precision);
  if (cfg.precision == onednn::Precision::kBF16 && !onednn::bf16_supported()) {
    throw ConfigError("--precision bf16: this CPU has no bf16 support in oneDNN; use f32");
  }
  // Refused without --shortlist when set to anything but their defaults (which --print-config
  // writes and a replay gives back).
  const decode::ShortlistOptions shortlist_defaults;
  if (cfg.translation.shortlist.table.empty() &&
      (cfg.translation.shortlist.frequent != shortlist_defaults.frequent ||
       cfg.translation.shortlist.best != shortlist_defaults.best)) {
    throw ConfigError("--shortlist-frequent and --shortlist-best need --shortlist");
  }
  cfg.threads = cl.threads();
  io::check_writable(cfg.output);
  return true;
}

// Refuses sizes whose decoding cannot fit in this machine's memory (ConfigError naming the
// option furthest above its default), before any work: decoding the longest input the options
// allow must fit, since such an input may come. The estimate is an upper bound of the resident
// memory (decode/memory.h; tests/cli/translate_soak.sh holds it to that).
void check_memory(const TranslateCliConfig& cfg, const model::ModelFile& file) {
  const decode::TranslationOptions& t = cfg.translation;
  const decode::TranslationOptions defaults;
  long long parameters = 0;
  for (const io::StoredTensor& tensor : file.tensors.tensors()) parameters += tensor.numel();
  const decode::MemoryEstimate estimate = decode::translation_memory(
      file.config, parameters, t.decode, {t.batch_size, t.max_input_length});
  const double mib = double(1 << 20);
  spdlog::info(
      "memory: at most {:.0f} MiB (model {:.0f}, decoding {:.0f}, packed keys {:.0f}, runtime "
      "{:.0f})",
      estimate.total() / mib, estimate.model / mib, estimate.decoding / mib, estimate.caches / mib,
      estimate.runtime / mib);
  const double available = decode::physical_memory_bytes();
  const double needed = estimate.total();
  if (available <= 0.0 || needed <= available) return;
  struct Size {
    const char* option;
    double value;
    double default_value;
  };
  const Size sizes[] = {
      {"--beam-size", double(t.decode.beam_size), double(defaults.decode.beam_size)},
      {"--batch-size", double(t.batch_size), double(defaults.batch_size)},
      {"--max-input-length", double(t.max_input_length), double(defaults.max_input_length)},
      {"--max-length-ratio", double(t.decode.max_length_ratio),
       double(defaults.decode.max_length_ratio)},
      {"--max-length-offset", double(t.decode.max_length_offset) + 1,
       double(defaults.decode.max_length_offset) + 1}};
  const Size& worst = *std::max_element(sizes, std::end(sizes), [](const Size& a, const Size& b) {
    return a.value / a.default_value < b.value / b.default_value;
  });
  char message[320];
  std::snprintf(message, sizeof message,
                "%s %.10g: decoding could need %.1f GiB (%d sentences x %d hypotheses, sources up "
                "to %d tokens), more than the %.1f GiB of memory here; lower %s",
                worst.option,
                worst.option == std::string("--max-length-offset") ? worst.value - 1 : worst.value,
                needed / double(1 << 30), t.batch_size, t.decode.beam_size, t.max_input_length,
                available / double(1 << 30), worst.option);
  throw ConfigError(message);
}

// Lines between two returns of the heap's free pages to the system.
constexpr size_t kTrimEveryLines = 4096;

int translate_main(int argc, char** argv) {
  TranslateCliConfig cfg;
  if (!parse_options(argc, argv, cfg)) return 0;
  onednn::set_threads(cfg.threads);
  Timer load_timer;
  model::ModelFile file = model::load_model(cfg.model);
  model::check_architecture(file.config, file.tensors, cfg.model);  // before any size is believed
  check_memory(cfg, file);
  decode::Translator translator(std::move(file), cfg.model, cfg.translation, cfg.precision);
  const double load_seconds = load_timer.seconds();
  Timer timer;
  io::BatchReader reader(cfg.input);
  io::LineWriter writer(cfg.output);
  std::vector<std::string> lines, outputs;
  const size_t window = size_t(cfg.translation.batch_size) * size_t(cfg.window_batches);
  std::string repaired;
  size_t lines_since_trim = 0;
  std::pair<long long, long long> batch_lines;  // of the lines being translated
  // Out of memory (a line too long for it, a batch that does not fit): the translations already
  // made are kept as for bad input, and the message names the line or the thing being built.
  try {
    while (reader.next_batch(lines, window)) {
      const long long first = reader.lines_read() - static_cast<long long>(lines.size()) + 1;
      batch_lines = {first, reader.lines_read()};
      // The lines before one that is not text are translated and written before the error.
      std::optional<DataError> bad_line;
      for (size_t i = 0; i < lines.size() && !bad_line; ++i) {
        try {
          const std::string_view checked = text::checked_line(
              lines[i], cfg.on_invalid, reader.display_name(), first + long(i), repaired);
          if (checked.data() != lines[i].data()) lines[i].assign(checked);
        } catch (const DataError& e) {
          bad_line = e;
          lines.resize(i);
        }
      }
      std::optional<DataError> too_long;
      translator.translate(lines, first, reader.display_name(), outputs, too_long);
      for (const std::string& out : outputs) writer.write_line(out);
      writer.flush();
      // Every sentence brings buffers of new sizes; glibc keeps what they leave free inside its
      // heap, and a week-long stream's resident memory would creep up with the fragments (issue
      // 29).
      if ((lines_since_trim += lines.size()) >= kTrimEveryLines) {
        ::malloc_trim(0);
        lines_since_trim = 0;
      }
      if (too_long) bad_line = too_long;  // it comes before any line that is not text
      if (bad_line) throw DataError(bad_line->what() + writer.keep_partial(writer.lines()));
    }
  } catch (const OutOfMemory& e) {
    throw OutOfMemory(e.what() + writer.keep_partial(writer.lines()));
  } catch (const DataError& e) {
    // A line the reader refused (longer than a stream may make one): the lines before it are
    // written, as for a line that is not text (a DataError raised above already kept them).
    throw DataError(e.what() + writer.keep_partial(writer.lines()));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(reader.display_name() + ":" + std::to_string(batch_lines.first) + "-" +
                      std::to_string(batch_lines.second) +
                      ": out of memory translating these lines (lower --batch-size, --beam-size or "
                      "--max-input-length)" +
                      writer.keep_partial(writer.lines()));
  }
  writer.commit();
  // Throughput without the model load, as benchmarks of decoders report it (bench/).
  const double seconds = timer.seconds();
  spdlog::info(
      "[translate] {} lines, {} target tokens in {:.3f} s: {:.0f} target tokens/s "
      "(model loaded in {:.3f} s)",
      reader.lines_read(), translator.target_tokens(), seconds,
      double(translator.target_tokens()) / std::max(seconds, 1e-9), load_seconds);
  if (!cfg.translation.shortlist.table.empty()) {
    spdlog::info("[translate] shortlist: {:.0f} of {} target words scored per batch on average",
                 translator.mean_shortlist_size(), translator.model().config().tgt_vocab_size);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  heed::cli::prefer_huge_pages(argv);
  return heed::cli::run_tool(argc, argv, "translate", translate_main);
}
