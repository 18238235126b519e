// heed-align [extract]: word alignments read off a trained model's attention. The reference
// translation is force-decoded (teacher forcing, no search, batched) and each target word is
// linked by argmax, threshold or shift (lib/heed/align/extract.h), written in --format
// (lib/heed/align/alignment_writer.h); optionally the full matrices also go to a JSON-lines
// file (lib/heed/align/soft_alignment.h).
#include "heed/align/extract.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "align/subcommand.h"
#include "common/progress.h"
#include "common/shared_options.h"
#include "heed/align/alignment_writer.h"
#include "heed/align/soft_alignment.h"
#include "heed/common/error.h"
#include "heed/common/timer.h"
#include "heed/decode/translator.h"
#include "heed/io/line_writer.h"
#include "heed/io/parallel_corpus.h"
#include "heed/model/model_file.h"
#include "heed/onednn/context.h"
#include "heed/text/input_check.h"

namespace heed::align_tool {
namespace {

std::string format_name(const std::string& name) {
  return align::alignment_format(name).name;
}

struct ExtractConfig {
  std::string model;
  std::vector<std::string> inputs;  // none or "-": "src ||| tgt" on stdin; one: that file; two
  std::string output = "-";
  std::string format = "pharaoh";  // of --output: an alignment format (align/alignment_writer.h)
  std::string soft;                // JSON-lines file of the attention matrices; empty: none
  align::ExtractOptions links;
  decode::TranslationOptions translation;
  onednn::Precision precision = onednn::Precision::kF32;
  text::OnInvalid on_invalid = text::OnInvalid::kError;
  int window_batches = 8;  // pairs read ahead and sorted by length: batch_size × this
};

class Extract final : public Subcommand {
 public:
  std::string name() const override { return "extract"; }
  std::string synopsis() const override {
    return "[extract] -m MODEL [options] [SRC TGT | PARALLEL] [-o OUT] [--format F]";
  }
  std::string description() const override {
    return "Word alignments from a model's attention: force-decodes each reference translation "
           "(two line-aligned files, or 'source ||| target' lines, standard input by default), "
           "links every target word to source words by --method and writes one line of "
           "zero-based Pharaoh links 'i-j' per pair, at the level of words (subwords merged), as "
           "fast_align writes them (or another --format). Raw text is tokenized as the model was "
           "trained.";
  }

  void add_options(cli::CommandLine& cl) override {
    cli::add_model_option(cl.group("Alignment"), &cfg_.model);
    // clang-format off
    cl.group("Alignment")
        ("input,i",      cli::texts(&cfg_.inputs),
                         "SRC and TGT files, or one file of 'source ||| target' lines ('-' or "
                         "none = stdin)")
        ("output,o",     cli::text_with_default(&cfg_.output),
                         "the alignments, one line per pair in --format ('-' = stdout)")
        ("format",       cli::choice(&cfg_.format, cfg_.format, format_name),
                         "the format of --output: " + align::describe_alignment_formats(false))
        ("method",       cli::choice(&cfg_.links.method, "argmax", align::parse_extract_method),
                         "argmax (most attended source word), threshold (every weight >= "
                         "--threshold) or shift (argmax of the next step, whose input is the "
                         "word: Luong et al. 2015's reading for content-based scores, Chen "
                         "et al. 2020's)")
        ("threshold",    cli::number(&cfg_.links.threshold, cli::Bounds{0, 1, true, false}),
                         "least weight of a link for --method threshold, in (0, 1]")
        ("soft",         cli::text(&cfg_.soft),
                         "also write every attention matrix to this file, one JSON object per "
                         "pair")
        ("pretokenized", cli::flag(&cfg_.translation.pretokenized),
                         "text is space-separated model tokens (no tokenizer, no BPE); words = "
                         "tokens")
        ("batch-size",   cli::number(&cfg_.translation.batch_size, cli::at_least(1)),
                         "sentence pairs force-decoded together")
        ("max-length",   cli::number(&cfg_.translation.max_pair_length, cli::between(1, 100000)),
                         "refuse a pair with a side longer than this many tokens (memory grows "
                         "with the product of the two lengths)");
    // clang-format on
    cli::add_precision_option(cl.group("Alignment"), &cfg_.precision);
    cli::add_on_invalid(cl.group("Input"), &cfg_.on_invalid, /*allow_skip=*/false);
    cl.positional("input", 2);
  }

  int run(const cli::CommandLine& cl) override {
    if (cfg_.links.method != align::ExtractMethod::kThreshold && cl.given("threshold")) {
      throw ConfigError("--threshold goes with --method threshold");
    }
    // Refused when set to anything but their defaults, which --print-config writes and replays.
    const align::ExtractOptions defaults;
    if (align::alignment_format(cfg_.format).input != align::AlignmentInput::kLinks &&
        (cfg_.links.method != defaults.method || cfg_.links.threshold != defaults.threshold)) {
      throw ConfigError("--method and --threshold make word links, which --format " + cfg_.format +
                        " does not write");
    }
    cfg_.links.validate();
    cli::check_precision_supported(cfg_.precision);
    if (cfg_.inputs.empty()) cfg_.inputs.push_back("-");
    io::check_writable(cfg_.output);
    if (!cfg_.soft.empty()) io::check_writable(cfg_.soft);
    onednn::set_threads(cl.threads());
    return extract();
  }

 private:
  int extract() {
    model::ModelFile file = model::load_model(cfg_.model);
    decode::Translator translator(std::move(file), cfg_.model, cfg_.translation, cfg_.precision);
    std::unique_ptr<io::ParallelReader> reader =
        cfg_.inputs.size() == 2
            ? std::make_unique<io::ParallelReader>(cfg_.inputs[0], cfg_.inputs[1])
            : std::make_unique<io::ParallelReader>(cfg_.inputs[0]);
    io::LineWriter out(cfg_.output);
    const align::AlignmentFormat& format = align::alignment_format(cfg_.format);
    const std::unique_ptr<align::AlignmentWriter> out_writer = format.make();
    std::optional<io::LineWriter> soft;
    const align::AlignmentFormat& jsonl = align::alignment_format("jsonl");
    const std::unique_ptr<align::AlignmentWriter> soft_writer = jsonl.make();
    if (!cfg_.soft.empty()) soft.emplace(cfg_.soft);
    // A pair's line in the writer's format, written to `to`.
    std::string text;
    const auto write = [&](align::AlignmentWriter& writer, align::AlignmentInput input,
                           const align::SoftAlignment& pair, io::LineWriter& to) {
      text.clear();
      writer.write(align::from_attention(pair, input, cfg_.links), text);
      to.write_line(text);
    };
    const size_t window = size_t(cfg_.translation.batch_size) * size_t(cfg_.window_batches);
    std::vector<std::string> sources, targets;
    std::string source, target, repaired;
    Timer timer;
    long long pairs = 0;
    bool more = true;
    long long batch_first = 1;
    cli::Progress bar;  // on a terminal only: pairs done and their rate
    // Out of memory: the pairs already aligned are kept, as for bad input.
    try {
      while (more) {
        sources.clear();
        targets.clear();
        const long long first = reader->line_number() + 1;
        batch_first = first;
        // A pair that cannot be read (mismatched files, no separator, not text) ends the run
        // after the pairs before it are aligned and written.
        std::optional<DataError> bad_pair;
        try {
          while (sources.size() < window && (more = reader->next(source, target))) {
            const long long line = reader->line_number();
            for (auto [side, name] : {std::pair{&source, reader->source_name()},
                                      std::pair{&target, reader->target_name()}}) {
              const std::string_view checked =
                  text::checked_line(*side, cfg_.on_invalid, name, line, repaired);
              if (checked.data() != side->data()) side->assign(checked);
            }
            sources.push_back(std::move(source));
            targets.push_back(std::move(target));
          }
        } catch (const DataError& e) {
          bad_pair = e;
          more = false;
        }
        std::optional<DataError> too_long;
        const auto matrices =
            translator.attend(sources, targets, first, reader->source_name(), &too_long);
        if (too_long) bad_pair = too_long;  // it comes before any pair after it
        for (const align::SoftAlignment& pair : matrices) {
          write(*out_writer, format.input, pair, out);
          if (soft) write(*soft_writer, jsonl.input, pair, *soft);
        }
        pairs += static_cast<long long>(matrices.size());
        bar.update_count(pairs, -1, "pairs");
        if (bad_pair) {
          if (soft) soft->keep_partial(soft->lines());
          throw DataError(bad_pair->what() + out.keep_partial(out.lines()));
        }
      }
    } catch (const std::bad_alloc&) {
      if (soft) soft->keep_partial(soft->lines());
      throw OutOfMemory(reader->source_name() + ":" + std::to_string(batch_first) +
                        ": out of memory aligning the pairs from this line (--batch-size or "
                        "--max-length lower)" +
                        out.keep_partial(out.lines()));
    }
    bar.clear();
    out.commit();
    if (soft) soft->commit();
    spdlog::info("[align] {} sentence pairs in {:.3f} s", pairs, timer.seconds());
    return 0;
  }

  ExtractConfig cfg_;
};

}  // namespace

std::unique_ptr<Subcommand> make_extract() {
  return std::make_unique<Extract>();
}

}  // namespace heed::align_tool
