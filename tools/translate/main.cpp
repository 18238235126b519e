// heed-translate: a line filter. Raw text in (the model's own tokenizer and BPE applied), raw
// text out, in input order, one output line per input line, flushed after every batch so it
// works as a co-process. Optional n-best lists and word alignments from the attention.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/options.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/common/timer.h"
#include "heed/decode/memory.h"
#include "heed/decode/model_scorer.h"
#include "heed/io/batch_reader.h"
#include "heed/io/line_writer.h"
#include "heed/model/model_file.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"
#include "heed/text/bpe.h"
#include "heed/text/input_check.h"
#include "heed/text/markers.h"
#include "heed/text/tokenizer.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

enum class AlignmentKind { kNone, kHard, kSoft, kThreshold };

struct TranslateCliConfig {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  decode::DecodeConfig decode;
  int batch_size = 32;
  int window_batches = 8;  // lines read ahead and sorted by length: batch_size × this
  int max_input_length = 250;
  bool pretokenized = false;
  AlignmentKind alignment = AlignmentKind::kNone;
  float threshold = 0.5f;
  bool replace_unk = false;
  onednn::Precision precision = onednn::Precision::kF32;
  text::OnInvalid on_invalid = text::OnInvalid::kError;
  int threads = 0;
};

bool parse_options(int argc, char** argv, TranslateCliConfig& cfg) {
  cli::CommandLine cl({"translate", "-m MODEL [options] < input > output",
                       "Translates one sentence per line with a heed model: raw text in, raw text "
                       "out (the tokenizer and BPE recorded in the model are applied and undone), "
                       "one output line per input line, in input order, flushed after every "
                       "batch.",
                       LogLevel::kWarn});
  std::string normalize = "gnmt", alignment, precision = "f32";
  cl.group("Translation")
      .add_options()("model,m", po::value(&cfg.model)->required(),
                     "model file (heed-train's model.heed)")(
          "input,i", po::value(&cfg.input)->default_value(cfg.input), "input file ('-' = stdin)")(
          "output,o", po::value(&cfg.output)->default_value(cfg.output),
          "output file ('-' = stdout)")("beam-size,b",
                                        cli::number(&cfg.decode.beam_size, cli::between(1, 1000)),
                                        "beam size (1 = greedy)")(
          "n-best", cli::number(&cfg.decode.n_best, cli::between(1, 1000)),
          "write the N best hypotheses per line as 'id ||| hypothesis ||| score'")(
          "batch-size", cli::number(&cfg.batch_size, cli::at_least(1)),
          "sentences decoded together")("normalize",
                                        cli::checked(&normalize, decode::parse_normalization),
                                        "length normalization: gnmt, average or none")(
          "length-penalty", cli::number(&cfg.decode.alpha, cli::Bounds{}), "GNMT alpha")(
          "coverage-penalty", cli::number(&cfg.decode.coverage_penalty, cli::at_least(0)),
          "GNMT coverage penalty beta (0 = off)")(
          "max-length-ratio", cli::number(&cfg.decode.max_length_ratio, cli::above(0)),
          "outputs have at most ratio × source + offset tokens")(
          "max-length-offset", cli::number(&cfg.decode.max_length_offset, cli::at_least(0)),
          "see --max-length-ratio")("min-length",
                                    cli::number(&cfg.decode.min_length, cli::at_least(0)),
                                    "</s> is not allowed before this many output tokens")(
          "max-input-length", cli::number(&cfg.max_input_length, cli::at_least(1)),
          "longer inputs are truncated to this many tokens, with a warning naming the line")(
          "pretokenized", po::bool_switch(&cfg.pretokenized),
          "input and output are space-separated model tokens (no tokenizer, no BPE)")(
          "alignment", po::value(&alignment),
          "append ' ||| ' and the alignment from the attention: hard (Pharaoh i-j, word level), "
          "soft (one row of weights per output token) or a threshold such as 0.3 (every word pair "
          "above it)")("replace-unk", po::bool_switch(&cfg.replace_unk),
                       "replace <unk> by the most attended source token")(
          "precision", cli::checked(&precision, onednn::parse_precision), "f32 or bf16");
  std::string on_invalid = "error";
  cli::add_on_invalid(cl.group("Input"), &on_invalid, /*allow_skip=*/false);
  if (!cl.parse(argc, argv)) return false;
  cfg.decode.normalization = decode::parse_normalization(normalize);
  cfg.decode.validate();
  if (!alignment.empty()) {
    if (alignment == "hard") {
      cfg.alignment = AlignmentKind::kHard;
    } else if (alignment == "soft") {
      cfg.alignment = AlignmentKind::kSoft;
    } else {
      char* end = nullptr;
      cfg.threshold = std::strtof(alignment.c_str(), &end);
      if (end == alignment.c_str() || *end || !(cfg.threshold > 0.f && cfg.threshold <= 1.f)) {
        throw ConfigError("--alignment must be hard, soft or a threshold in (0, 1], not '" +
                          alignment + "'");
      }
      cfg.alignment = AlignmentKind::kThreshold;
    }
  }
  cfg.decode.keep_attention = cfg.alignment != AlignmentKind::kNone || cfg.replace_unk;
  cfg.on_invalid = text::parse_on_invalid(on_invalid, /*allow_skip=*/false);
  cfg.precision = onednn::parse_precision(precision);
  if (cfg.precision == onednn::Precision::kBF16 && !onednn::bf16_supported()) {
    throw ConfigError("--precision bf16: this CPU has no bf16 support in oneDNN; use f32");
  }
  cfg.threads = cl.threads();
  io::check_writable(cfg.output);
  return true;
}

// Refuses sizes whose decoding cannot fit in this machine's memory (ConfigError naming the
// option furthest above its default), before any work: decoding the longest input the options
// allow must fit, since such an input may come.
void check_memory(const TranslateCliConfig& cfg, const model::ModelConfig& model) {
  const double available = decode::physical_memory_bytes();
  const double needed =
      decode::decoding_bytes(model, cfg.decode, {cfg.batch_size, cfg.max_input_length});
  if (available <= 0.0 || needed <= available) return;
  const TranslateCliConfig defaults;
  struct Size {
    const char* option;
    double value;
    double default_value;
  };
  const Size sizes[] = {
      {"--beam-size", double(cfg.decode.beam_size), double(defaults.decode.beam_size)},
      {"--batch-size", double(cfg.batch_size), double(defaults.batch_size)},
      {"--max-input-length", double(cfg.max_input_length), double(defaults.max_input_length)},
      {"--max-length-ratio", double(cfg.decode.max_length_ratio),
       double(defaults.decode.max_length_ratio)}};
  const Size& worst = *std::max_element(sizes, std::end(sizes), [](const Size& a, const Size& b) {
    return a.value / a.default_value < b.value / b.default_value;
  });
  char message[320];
  std::snprintf(message, sizeof message,
                "%s %.10g: decoding could need %.1f GiB (%d sentences x %d hypotheses, sources up "
                "to %d tokens), more than the %.1f GiB of memory here; lower %s",
                worst.option, worst.value, needed / double(1 << 30), cfg.batch_size,
                cfg.decode.beam_size, cfg.max_input_length, available / double(1 << 30),
                worst.option);
  throw ConfigError(message);
}

// Word index of each token: a token continues the previous word when either carries the joiner
// on the side they meet (heed-tokenize's convention), so words are what detokenization leaves
// between spaces. Pretokenized text: one word per token.
std::vector<int> word_index(const std::vector<std::string>& tokens, bool pretokenized) {
  std::vector<int> index(tokens.size());
  int word = -1;
  const std::string joiner(text::kJoiner);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool joined = !pretokenized && i > 0 &&
                        (ends_with(tokens[i - 1], joiner) || starts_with(tokens[i], joiner));
    if (!joined) ++word;
    index[i] = word;
  }
  return index;
}

struct Translator {
  const TranslateCliConfig& cfg;
  std::unique_ptr<model::Seq2Seq> model;
  text::Vocab src_vocab, tgt_vocab;
  std::unique_ptr<text::Tokenizer> tokenizer;  // null: pretokenized
  bool pretokenized = true;
  long long target_tokens = 0;  // decoder steps of the written best hypotheses (</s> included)

  explicit Translator(const TranslateCliConfig& c) : cfg(c) {
    model::ModelFile file = model::load_model(cfg.model);
    check_memory(cfg, file.config);
    model = model::load_seq2seq(file, cfg.model, cfg.precision);
    src_vocab = file.src_vocab;
    tgt_vocab = file.tgt_vocab;
    pretokenized = cfg.pretokenized || !file.extra.count("tokenizer_mode");
    if (!cfg.pretokenized && pretokenized) {
      spdlog::info("[translate] the model records no tokenizer: input is taken as tokens");
    }
    if (!pretokenized) {
      text::TokenizerOptions options;
      options.mode = text::parse_tokenize_mode(file.extra.at("tokenizer_mode"));
      options.lowercase =
          file.extra.count("tokenizer_lowercase") && file.extra.at("tokenizer_lowercase") == "1";
      options.case_feature = file.extra.count("tokenizer_case_feature") &&
                             file.extra.at("tokenizer_case_feature") == "1";
      std::shared_ptr<const text::Bpe> bpe;
      if (file.extra.count("bpe_codes")) {
        bpe = std::make_shared<const text::Bpe>(
            text::BpeCodes::parse(file.extra.at("bpe_codes"), cfg.model + " (BPE codes)"));
      }
      tokenizer = std::make_unique<text::Tokenizer>(options, bpe);
    }
  }

  std::vector<std::string> tokenize(const std::string& line) const {
    if (tokenizer) return tokenizer->tokenize(line);
    std::vector<std::string> tokens;
    for (std::string_view t : split_whitespace(line)) tokens.emplace_back(t);
    return tokens;
  }

  std::string detokenize(const std::vector<std::string>& tokens) const {
    return tokenizer ? tokenizer->detokenize(tokens) : join(tokens, " ");
  }

  // The output text of one hypothesis, with its alignment when asked for.
  std::string render(const decode::Hypothesis& h, const std::vector<std::string>& source) const {
    std::vector<std::string> out;
    for (size_t t = 0; t < h.tokens.size(); ++t) {
      const int32_t id = h.tokens[t];
      if (id == text::Vocab::kUnkId && cfg.replace_unk && t < h.attention.size()) {
        const auto& row = h.attention[t];
        const size_t best = size_t(std::max_element(row.begin(), row.end()) - row.begin());
        out.push_back(best < source.size() ? source[best] : tgt_vocab.token(id));
      } else {
        out.push_back(tgt_vocab.token(id));
      }
    }
    std::string text = detokenize(out);
    if (cfg.alignment == AlignmentKind::kNone) return text;
    text += " ||| ";
    // Rows: one per output token; the </s> row is left out (it aligns no output word).
    const size_t rows = std::min(h.tokens.size(), h.attention.size());
    if (cfg.alignment == AlignmentKind::kSoft) {
      for (size_t t = 0; t < rows; ++t) {
        if (t) text += ' ';
        for (size_t s = 0; s < source.size(); ++s) {
          char buf[16];
          std::snprintf(buf, sizeof buf, s ? ",%.3f" : "%.3f", double(h.attention[t][s]));
          text += buf;
        }
      }
      return text;
    }
    const std::vector<int> src_words = word_index(source, pretokenized);
    const std::vector<int> tgt_words = word_index(out, pretokenized);
    std::set<std::pair<int, int>> links;
    for (size_t t = 0; t < rows; ++t) {
      const auto& row = h.attention[t];
      if (cfg.alignment == AlignmentKind::kHard) {
        const size_t best =
            size_t(std::max_element(row.begin(), row.begin() + long(source.size())) - row.begin());
        links.emplace(src_words[best], tgt_words[t]);
      } else {
        for (size_t s = 0; s < source.size(); ++s) {
          if (row[s] >= cfg.threshold) links.emplace(src_words[s], tgt_words[t]);
        }
      }
    }
    bool first = true;
    for (const auto& [s, t] : links) {
      text += (first ? "" : " ") + std::to_string(s) + "-" + std::to_string(t);
      first = false;
    }
    return text;
  }

  // Translates lines (numbered from first_line, 1-based) into outputs. A line longer than the
  // model's attention can score sets too_long, and only the lines before it are translated.
  void translate(const std::vector<std::string>& lines, long long first_line,
                 const std::string& input_name, std::vector<std::string>& outputs,
                 std::optional<DataError>& too_long) {
    outputs.assign(lines.size(), std::string());
    std::vector<std::vector<std::string>> sources(lines.size());
    std::vector<size_t> order;
    const int64_t limit = model->config().max_source_length();
    for (size_t i = 0; i < lines.size(); ++i) {
      sources[i] = tokenize(lines[i]);
      if (sources[i].empty()) continue;  // empty line → empty line
      const size_t tokens = sources[i].size();
      if (int(sources[i].size()) > cfg.max_input_length) {
        spdlog::warn(
            "[translate] {}",
            at_line(input_name, first_line + long(i),
                    "input truncated to " + std::to_string(cfg.max_input_length) + " tokens"));
        sources[i].resize(size_t(cfg.max_input_length));
      }
      // Past the positions its attention has (location) a line cannot be translated at all.
      if (limit > 0 && int64_t(sources[i].size()) > limit) {
        too_long =
            DataError(at_line(input_name, first_line + long(i),
                              "source sentence of " + std::to_string(tokens) +
                                  " tokens is longer than attention '" + model->config().attention +
                                  "' can score (--max-positions " + std::to_string(limit) + ")"));
        outputs.resize(i);
        sources.resize(i);
        break;
      }
      order.push_back(i);
    }
    // Longest first inside the window: batches of similar lengths, little padding.
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sources[a].size() > sources[b].size(); });
    for (size_t begin = 0; begin < order.size(); begin += size_t(cfg.batch_size)) {
      const size_t end = std::min(order.size(), begin + size_t(cfg.batch_size));
      model::Batch batch;
      batch.size = int64_t(end - begin);
      for (size_t k = begin; k < end; ++k) {
        batch.src_len = std::max(batch.src_len, int64_t(sources[order[k]].size()));
      }
      batch.src.assign(size_t(batch.size * batch.src_len), text::Vocab::kPadId);
      for (size_t k = begin; k < end; ++k) {
        const auto& tokens = sources[order[k]];
        batch.src_lengths.push_back(int64_t(tokens.size()));
        for (size_t j = 0; j < tokens.size(); ++j) {
          batch.src[(k - begin) * size_t(batch.src_len) + j] = src_vocab.id(tokens[j]);
        }
      }
      const auto results = decode::translate_batch(*model, batch, cfg.decode);
      for (size_t k = begin; k < end; ++k) {
        const size_t line = order[k];
        const auto& hyps = results[k - begin];
        target_tokens +=
            static_cast<long long>(hyps.front().tokens.size()) + (hyps.front().finished ? 1 : 0);
        if (cfg.decode.n_best > 1) {
          std::string text;
          for (size_t r = 0; r < hyps.size(); ++r) {
            char score[32];
            std::snprintf(score, sizeof score, "%.4f", double(hyps[r].score));
            text += (r ? "\n" : "") + std::to_string(first_line - 1 + long(line)) + " ||| " +
                    render(hyps[r], sources[line]) + " ||| " + score;
          }
          outputs[line] = text;
        } else {
          outputs[line] = render(hyps.front(), sources[line]);
        }
      }
    }
    // n-best: empty inputs still get their id.
    if (cfg.decode.n_best > 1) {
      for (size_t i = 0; i < sources.size(); ++i) {
        if (sources[i].empty())
          outputs[i] = std::to_string(first_line - 1 + long(i)) + " |||  ||| 0.0000";
      }
    }
  }
};

int translate_main(int argc, char** argv) {
  TranslateCliConfig cfg;
  if (!parse_options(argc, argv, cfg)) return 0;
  onednn::set_threads(cfg.threads);
  Timer load_timer;
  Translator translator(cfg);
  const double load_seconds = load_timer.seconds();
  Timer timer;
  io::BatchReader reader(cfg.input);
  io::LineWriter writer(cfg.output);
  std::vector<std::string> lines, outputs;
  const size_t window = size_t(cfg.batch_size) * size_t(cfg.window_batches);
  std::string repaired;
  while (reader.next_batch(lines, window)) {
    const long long first = reader.lines_read() - static_cast<long long>(lines.size()) + 1;
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
    if (too_long) bad_line = too_long;  // it comes before any line that is not text
    if (bad_line) throw DataError(bad_line->what() + writer.keep_partial(writer.lines()));
  }
  writer.commit();
  // Throughput without the model load, as benchmarks of decoders report it (bench/).
  const double seconds = timer.seconds();
  spdlog::info(
      "[translate] {} lines, {} target tokens in {:.3f} s: {:.0f} target tokens/s "
      "(model loaded in {:.3f} s)",
      reader.lines_read(), translator.target_tokens, seconds,
      double(translator.target_tokens) / std::max(seconds, 1e-9), load_seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  heed::cli::prefer_huge_pages(argv);
  return heed::cli::run_tool(argc, argv, "translate", translate_main);
}
