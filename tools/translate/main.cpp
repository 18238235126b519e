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

#include "common/progress.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/common/memory.h"
#include "heed/common/timer.h"
#include "heed/decode/memory.h"
#include "heed/decode/translator.h"
#include "heed/io/batch_reader.h"
#include "heed/io/line_writer.h"
#include "heed/model/model_file.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"
#include "heed/text/input_check.h"
#include "translate/options.h"

namespace {

using namespace heed;
using translate_tool::TranslateCliConfig;

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
  char what[224];
  std::snprintf(what, sizeof what,
                "%s %.10g: decoding (%d sentences x %d hypotheses, sources up to %d tokens)",
                worst.option,
                worst.option == std::string("--max-length-offset") ? worst.value - 1 : worst.value,
                t.batch_size, t.decode.beam_size, t.max_input_length);
  check_fits_in_memory(estimate.total(), what, std::string("lower ") + worst.option);
}

// Lines between two returns of the heap's free pages to the system.
constexpr size_t kTrimEveryLines = 4096;

int translate_main(int argc, char** argv) {
  TranslateCliConfig cfg;
  if (!translate_tool::parse_options(argc, argv, cfg)) return 0;
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
  cli::Progress bar;  // on a terminal only: lines done, of a file's share, rate and ETA
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
      bar.update_count(reader.lines_read(), reader.fraction_read());
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
  bar.clear();
  writer.commit();
  // Throughput without the model load, as benchmarks of decoders report it (bench/).
  const double seconds = timer.seconds();
  spdlog::info(
      "[translate] {} lines, {} target tokens in {:.3f} s: {:.0f} target tokens/s "
      "(model loaded in {:.3f} s)",
      reader.lines_read(), translator.target_tokens(), seconds,
      double(translator.target_tokens()) / std::max(seconds, 1e-9), load_seconds);
  // What the model's vocabulary lost of the input.
  const long long source_tokens = translator.source_tokens();
  spdlog::info(
      "[translate] source <unk> rate: {:.2f}% ({} of {} input tokens not in the model's "
      "vocabulary)",
      source_tokens ? 100.0 * double(translator.unknown_source_tokens()) / double(source_tokens)
                    : 0.0,
      translator.unknown_source_tokens(), source_tokens);
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
