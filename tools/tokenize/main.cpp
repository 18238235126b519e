// heed-tokenize: tokenize / detokenize text, learn and apply BPE, count vocabularies.
// A filter: stdin → stdout by default, one sentence per line, line count preserved.
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

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
#include "tokenize/options.h"

namespace {

using namespace heed;
using tokenize_tool::Mode;
using tokenize_tool::TokenizeCliConfig;

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
  if (!tokenize_tool::parse_options(argc, argv, cfg)) return 0;
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
