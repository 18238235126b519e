#include "heed/train/corpus.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "heed/align/alignment.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_reader.h"
#include "heed/io/parallel_corpus.h"
#include "heed/text/input_check.h"
#include "heed/text/tokenizer.h"
#include "heed/train/trainer.h"

namespace heed::train {
namespace {

using model::Example;

struct Pairs {
  std::vector<std::vector<std::string>> src, tgt;
  std::vector<std::string> src_text, tgt_text;  // BPE-dropout: the text of each pair kept
  std::vector<long long> lines;                 // the line number of each pair kept
  long long dropped = 0;
  long long total_lines = 0;  // pairs read, kept or not
};

// Pairs of tokens; with dropout, lines of unsegmented tokens checked and kept as text, and
// their plain BPE segmentation as the tokens (what the length filter measures).
Pairs read_pairs(io::ParallelReader& reader, int max_length, bool filter,
                 const BpeDropout* dropout) {
  Pairs pairs;
  std::string s, t;
  while (reader.next(s, t)) {
    // The readers have dropped a leading BOM already; what is left must be text.
    for (auto* line : {&s, &t}) {
      if (const auto bad = text::find_invalid_text(*line)) {
        const std::string& name = line == &s ? reader.source_name() : reader.target_name();
        throw DataError(
            at_line(name, reader.line_number(), text::describe_invalid_text(*line, *bad)));
      }
    }
    std::vector<std::string> src, tgt;
    for (std::string_view w : split_whitespace(s)) src.emplace_back(w);
    for (std::string_view w : split_whitespace(t)) tgt.emplace_back(w);
    if (src.empty() || tgt.empty()) {
      const std::string& name = src.empty() ? reader.source_name() : reader.target_name();
      throw DataError(name + ":" + std::to_string(reader.line_number()) +
                      ": empty line (every training pair needs both sides)");
    }
    std::string src_text, tgt_text;
    if (dropout) {
      src_text = dropout->text_of(src, reader.source_name(), reader.line_number());
      tgt_text = dropout->text_of(tgt, reader.target_name(), reader.line_number());
      src = dropout->plain(src_text);
      tgt = dropout->plain(tgt_text);
    }
    if (filter &&
        (static_cast<int>(src.size()) > max_length || static_cast<int>(tgt.size()) > max_length)) {
      ++pairs.dropped;
      continue;
    }
    pairs.src.push_back(std::move(src));
    pairs.tgt.push_back(std::move(tgt));
    if (dropout) {
      pairs.src_text.push_back(std::move(src_text));
      pairs.tgt_text.push_back(std::move(tgt_text));
    }
    pairs.lines.push_back(reader.line_number());
  }
  pairs.total_lines = reader.line_number();
  return pairs;
}

// Guided alignment: each kept pair's word links (line pairs.lines[i] of path) as links between
// their tokens — every token of source word i with every token of target word j.
void add_guide_links(const std::string& path, const Pairs& pairs, std::vector<Example>& data) {
  io::LineReader reader(path);
  std::string line;
  size_t next = 0;
  while (reader.next(line)) {
    if (next == pairs.lines.size() || reader.line_number() != pairs.lines[next]) {
      continue;  // a pair the length filter dropped
    }
    const auto links = align::parse_pharaoh(line, reader.display_name(), reader.line_number());
    const std::vector<int> src_words = text::word_indices(pairs.src[next]);
    const std::vector<int> tgt_words = text::word_indices(pairs.tgt[next]);
    const int src_count = src_words.back() + 1, tgt_count = tgt_words.back() + 1;
    for (const align::Link& link : links) {
      if (link.source >= src_count || link.target >= tgt_count) {
        throw DataError(at_line(reader.display_name(), reader.line_number(),
                                "link " + std::to_string(link.source) + "-" +
                                    std::to_string(link.target) + " is outside the pair (" +
                                    std::to_string(src_count) + " source words, " +
                                    std::to_string(tgt_count) + " target words)"));
      }
      for (size_t s = 0; s < src_words.size(); ++s) {
        if (src_words[s] != link.source) continue;
        for (size_t t = 0; t < tgt_words.size(); ++t) {
          if (tgt_words[t] == link.target) data[next].links.emplace_back(int32_t(s), int32_t(t));
        }
      }
    }
    ++next;
  }
  if (reader.line_number() != pairs.total_lines) {
    throw DataError(path + " has " + std::to_string(reader.line_number()) +
                    " lines of links but the training data has " +
                    std::to_string(pairs.total_lines) + " pairs");
  }
}

text::Vocab build_vocab(const std::vector<std::vector<std::string>>& sentences,
                        const TrainConfig& config) {
  text::WordCounts counts;
  for (const auto& sentence : sentences) {
    for (const auto& token : sentence) ++counts[token];
  }
  text::VocabOptions options;
  options.max_size = config.vocab_size;
  options.min_count = config.vocab_min_count;
  return text::Vocab::from_counts(text::sorted_counts(counts), options);
}

// BPE-dropout: the tokens of the plain segmentation with their counts, then every other token a
// segmentation of the texts can give, count 0; no cap (a token left out would be <unk>).
text::Vocab build_dropout_vocab(const std::vector<std::vector<std::string>>& sentences,
                                const std::vector<std::string>& texts, const BpeDropout& dropout) {
  text::WordCounts counts;
  for (const auto& sentence : sentences) {
    for (const auto& token : sentence) ++counts[token];
  }
  for (const std::string& text : texts) dropout.add_possible_tokens(text, counts);
  text::VocabOptions options;
  options.max_size = 0;
  options.min_count = 0;
  return text::Vocab::from_counts(counts, options);
}

std::vector<int32_t> to_ids(const std::vector<std::string>& tokens, const text::Vocab& vocab) {
  std::vector<int32_t> ids;
  ids.reserve(tokens.size());
  for (const auto& t : tokens) ids.push_back(static_cast<int32_t>(vocab.id(t)));
  return ids;
}

std::vector<Example> to_examples(const Pairs& pairs, const text::Vocab& src,
                                 const text::Vocab& tgt) {
  std::vector<Example> data(pairs.src.size());
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].src = to_ids(pairs.src[i], src);
    data[i].tgt = to_ids(pairs.tgt[i], tgt);
  }
  return data;
}

// What the vocabulary loses: the share of the corpus's tokens on one side read as <unk>.
void report_unknown_rate(const char* side, const std::vector<Example>& data,
                         std::vector<int32_t> Example::*tokens, const text::Vocab& vocab) {
  long long total = 0, unknown = 0;
  for (const Example& example : data) {
    for (const int32_t id : example.*tokens) unknown += id == text::Vocab::kUnkId;
    total += static_cast<long long>((example.*tokens).size());
  }
  const double percent = total > 0 ? 100.0 * double(unknown) / double(total) : 0.0;
  spdlog::info("[data] {} <unk> rate: {:.2f}% ({} of {} training tokens, vocabulary {})", side,
               percent, unknown, total, vocab.size());
  if (percent > 1.0) {
    spdlog::warn(
        "[data] {:.2f}% of the {} training tokens are <unk> at this vocabulary (above 1%): "
        "raise --vocab-size or lower --vocab-min-count, or apply BPE",
        percent, side);
  }
}
}  // namespace

TrainingData load_training_data(const TrainConfig& config, const text::Vocab* src_vocab,
                                const text::Vocab* tgt_vocab) {
  TrainingData data;
  if (config.bpe_dropout > 0) {
    BpeDropoutOptions options;
    options.p = config.bpe_dropout;
    options.seed = config.seed;
    options.max_length = config.max_length;
    data.dropout = std::make_unique<BpeDropout>(config.extra, options);
  }
  Pairs pairs;
  {
    std::unique_ptr<io::ParallelReader> reader;
    if (!config.train_file.empty()) {
      reader = std::make_unique<io::ParallelReader>(config.train_file);
    } else {
      reader = std::make_unique<io::ParallelReader>(config.train_src, config.train_tgt);
    }
    pairs = read_pairs(*reader, config.max_length, true, data.dropout.get());
  }
  if (pairs.src.empty()) {
    throw DataError("no training pairs left after the length filter (--max-length " +
                    std::to_string(config.max_length) + ")");
  }
  spdlog::info("training data: {} pairs, {} dropped as longer than {} tokens", pairs.src.size(),
               pairs.dropped, config.max_length);
  if (src_vocab && tgt_vocab) {
    data.src_vocab = *src_vocab;
    data.tgt_vocab = *tgt_vocab;
  } else if (data.dropout) {
    data.src_vocab = build_dropout_vocab(pairs.src, pairs.src_text, *data.dropout);
    data.tgt_vocab = build_dropout_vocab(pairs.tgt, pairs.tgt_text, *data.dropout);
  } else {
    data.src_vocab = config.src_vocab_file.empty() ? build_vocab(pairs.src, config)
                                                   : text::Vocab::load(config.src_vocab_file);
    data.tgt_vocab = config.tgt_vocab_file.empty() ? build_vocab(pairs.tgt, config)
                                                   : text::Vocab::load(config.tgt_vocab_file);
  }
  spdlog::info("vocabularies: source {}, target {}", data.src_vocab.size(), data.tgt_vocab.size());
  data.train = to_examples(pairs, data.src_vocab, data.tgt_vocab);
  report_unknown_rate("source", data.train, &Example::src, data.src_vocab);
  report_unknown_rate("target", data.train, &Example::tgt, data.tgt_vocab);
  if (data.dropout) {
    spdlog::info(
        "BPE-dropout {}: every epoch segments the training text afresh (a side longer than {} "
        "tokens keeps its plain segmentation); the vocabularies hold every token a segmentation "
        "can give",
        config.bpe_dropout, config.max_length);
    data.dropout->set_pairs(std::move(pairs.src_text), std::move(pairs.tgt_text));
  }
  if (!config.guided_alignment.empty()) {
    add_guide_links(config.guided_alignment, pairs, data.train);
    spdlog::info("guided alignment: links from {}, weight {}", config.guided_alignment,
                 config.guided_alignment_weight);
  }
  if (!config.valid_src.empty()) {
    io::ParallelReader reader(config.valid_src, config.valid_tgt);
    Pairs v = read_pairs(reader, config.max_length, false, data.dropout.get());
    data.valid = to_examples(v, data.src_vocab, data.tgt_vocab);
    const text::Tokenizer detok;
    for (const auto& tokens : v.tgt) data.valid_refs.push_back(detok.detokenize(tokens));
    spdlog::info("validation data: {} pairs", data.valid.size());
  }
  return data;
}

}  // namespace heed::train
