#include "heed/decode/translator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

#include "heed/common/strings.h"
#include "heed/decode/model_scorer.h"
#include "heed/model/batch.h"
#include "heed/model/serialize.h"
#include "heed/model/tokenizer_record.h"
#include "heed/text/bpe.h"

namespace heed::decode {
namespace {

// Sorted longest first: batches of similar lengths, little padding.
std::vector<size_t> longest_first(const std::vector<size_t>& items,
                                  const std::vector<model::Example>& examples) {
  std::vector<size_t> order = items;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return examples[a].src.size() > examples[b].src.size();
  });
  return order;
}

}  // namespace

void TranslationOptions::validate() const {
  decode.validate();
  links.validate();
  shortlist.validate();
  if (links.method == align::ExtractMethod::kShift) {
    throw ConfigError("the shift alignment needs the reference translation: use heed-align");
  }
  if (!alignment.empty() &&
      align::alignment_format(alignment).input == align::AlignmentInput::kForcedAttention) {
    throw ConfigError("the " + alignment +
                      " alignment format is for force-decoded pairs (it holds their </s> row): "
                      "use heed-align extract --soft");
  }
  if (batch_size < 1) throw ConfigError("the batch size must be at least 1");
  if (max_input_length < 1) throw ConfigError("the maximum input length must be at least 1");
}

Translator::Translator(model::ModelFile file, const std::string& path, TranslationOptions options,
                       onednn::Precision precision)
    : options_(std::move(options)), path_(path) {
  options_.validate();
  if (!options_.alignment.empty()) {
    const align::AlignmentFormat& format = align::alignment_format(options_.alignment);
    alignment_writer_ = format.make();
    alignment_input_ = format.input;
  }
  options_.decode.keep_attention = alignment_writer_ || options_.replace_unk;
  model_ = model::load_seq2seq(file, path, precision);
  src_vocab_ = std::move(file.src_vocab);
  tgt_vocab_ = std::move(file.tgt_vocab);
  // load_model has checked the record.
  const std::optional<model::TokenizerRecord> recorded = model::recorded_tokenizer(file.extra);
  if (!options_.pretokenized && !recorded) {
    spdlog::info("[translate] the model records no tokenizer: input is taken as tokens");
  }
  if (!options_.pretokenized && recorded) {
    tokenizer_ = model::make_tokenizer(*recorded, path);
  }
  if (!options_.shortlist.table.empty()) {
    const LexicalTable table = LexicalTable::load(options_.shortlist.table);
    // Allowed (the frequent words alone make a shortlist), but more often a wrong path or a
    // failed step before: said, not silently taken.
    if (table.size() == 0) {
      spdlog::warn("{}: no translations: the shortlist is the {} most frequent target words alone",
                   options_.shortlist.table, options_.shortlist.frequent);
    }
    shortlist_ = std::make_unique<Shortlist>(table, src_vocab_, tgt_vocab_, options_.shortlist);
  }
}

Translator::~Translator() = default;

std::vector<std::string> Translator::tokenize(const std::string& line) const {
  if (tokenizer_) return tokenizer_->tokenize(line);
  std::vector<std::string> tokens;
  for (std::string_view t : split_whitespace(line)) tokens.emplace_back(t);
  return tokens;
}

std::string Translator::detokenize(const std::vector<std::string>& tokens) const {
  return tokenizer_ ? tokenizer_->detokenize(tokens) : join(tokens, " ");
}

std::vector<int> Translator::word_indices(const std::vector<std::string>& tokens) const {
  if (tokenizer_) return text::word_indices(tokens);
  std::vector<int> index(tokens.size());
  std::iota(index.begin(), index.end(), 0);
  return index;
}

DataError Translator::too_long_error(const std::string& input_name, long long line,
                                     size_t tokens) const {
  return DataError(at_line(input_name, line,
                           "source sentence of " + std::to_string(tokens) +
                               " tokens is longer than attention '" + model_->config().attention +
                               "' can score (--max-positions " +
                               std::to_string(model_->config().max_source_length()) + ")"));
}

std::vector<int32_t> Translator::source_ids(const std::vector<std::string>& tokens) const {
  std::vector<int32_t> ids(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) ids[i] = src_vocab_.id(tokens[i]);
  return ids;
}

std::string Translator::render(const Hypothesis& h, const std::vector<std::string>& source,
                               long long sentence) const {
  std::vector<std::string> out;
  for (size_t t = 0; t < h.tokens.size(); ++t) {
    const int32_t id = h.tokens[t];
    if (id == text::Vocab::kUnkId && options_.replace_unk && t < h.attention.size()) {
      const auto& row = h.attention[t];
      const size_t best = size_t(std::max_element(row.begin(), row.end()) - row.begin());
      out.push_back(best < source.size() ? source[best] : tgt_vocab_.token(id));
    } else {
      out.push_back(tgt_vocab_.token(id));
    }
  }
  std::string text = detokenize(out);
  if (!alignment_writer_) return text;
  // The hypothesis' attention with its tokens: one row per output token (and </s> when it ended).
  align::SoftAlignment pair;
  pair.id = sentence;
  pair.source = source;
  pair.source_words = word_indices(source);
  pair.target_words = word_indices(out);
  pair.target = std::move(out);
  pair.weights = h.attention;
  text += " ||| ";
  alignment_writer_->write(align::from_attention(pair, alignment_input_, options_.links), text);
  return text;
}

void Translator::translate(const std::vector<std::string>& lines, long long first_line,
                           const std::string& input_name, std::vector<std::string>& outputs,
                           std::optional<DataError>& too_long) {
  outputs.assign(lines.size(), std::string());
  std::vector<std::vector<std::string>> sources(lines.size());
  std::vector<model::Example> examples(lines.size());
  std::vector<size_t> nonempty;
  const int64_t limit = model_->config().max_source_length();
  for (size_t i = 0; i < lines.size(); ++i) {
    sources[i] = tokenize(lines[i]);
    if (sources[i].empty()) continue;  // empty line → empty line
    const size_t tokens = sources[i].size();
    if (int(tokens) > options_.max_input_length) {
      spdlog::warn(
          "[translate] {}",
          at_line(input_name, first_line + long(i),
                  "input truncated to " + std::to_string(options_.max_input_length) + " tokens"));
      sources[i].resize(size_t(options_.max_input_length));
    }
    // Past the positions its attention has (location) a line cannot be translated at all.
    if (limit > 0 && int64_t(sources[i].size()) > limit) {
      too_long = too_long_error(input_name, first_line + long(i), tokens);
      outputs.resize(i);
      sources.resize(i);
      break;
    }
    examples[i].src = source_ids(sources[i]);
    source_tokens_ += static_cast<long long>(examples[i].src.size());
    unknown_source_tokens_ +=
        std::count(examples[i].src.begin(), examples[i].src.end(), text::Vocab::kUnkId);
    nonempty.push_back(i);
  }
  const std::vector<size_t> order = longest_first(nonempty, examples);
  for (size_t begin = 0; begin < order.size(); begin += size_t(options_.batch_size)) {
    const size_t end = std::min(order.size(), begin + size_t(options_.batch_size));
    const std::vector<size_t> members(order.begin() + long(begin), order.begin() + long(end));
    const model::Batch batch = model::make_batch(examples, members);
    std::vector<int32_t> candidates;
    if (shortlist_) {
      candidates = shortlist_->candidates(batch.src);
      shortlist_words_ += static_cast<long long>(candidates.size());
      ++shortlist_batches_;
    }
    // Each sentence samples (if asked to) on the stream of its line number: its output does not
    // depend on the lines it is batched with.
    std::vector<std::uint64_t> line_numbers(members.size());
    for (size_t k = 0; k < members.size(); ++k) {
      line_numbers[k] = static_cast<std::uint64_t>(first_line + static_cast<long long>(members[k]));
    }
    const std::unique_ptr<SearchStrategy> strategy = make_search(options_.decode, line_numbers);
    const auto results = translate_batch(*model_, batch, options_.decode,
                                         shortlist_ ? &candidates : nullptr, strategy.get());
    for (size_t k = 0; k < members.size(); ++k) {
      const size_t line = members[k];
      const long long id = first_line - 1 + long(line);  // the n-best lists' sentence number
      const auto& hyps = results[k];
      target_tokens_ +=
          static_cast<long long>(hyps.front().tokens.size()) + (hyps.front().finished ? 1 : 0);
      if (options_.decode.n_best > 1) {
        std::string text;
        // Moses's and Marian's layout: id ||| hypothesis ||| F0= path log-probability |||
        // the normalized score the search ranks by.
        for (size_t r = 0; r < hyps.size(); ++r) {
          char scores[64];
          std::snprintf(scores, sizeof scores, " ||| F0= %.4f ||| %.4f", double(hyps[r].log_prob),
                        double(hyps[r].score));
          text += (r ? "\n" : "") + std::to_string(id) + " ||| " +
                  render(hyps[r], sources[line], id) + scores;
        }
        outputs[line] = text;
      } else {
        outputs[line] = render(hyps.front(), sources[line], id);
      }
    }
  }
  // n-best: empty inputs still get their id.
  if (options_.decode.n_best > 1) {
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i].empty())
        outputs[i] = std::to_string(first_line - 1 + long(i)) + " |||  ||| F0= 0.0000 ||| 0.0000";
    }
  }
}

std::vector<align::SoftAlignment> Translator::attend(const std::vector<std::string>& sources,
                                                     const std::vector<std::string>& targets,
                                                     long long first_line,
                                                     const std::string& input_name,
                                                     std::optional<DataError>* too_long) {
  const model::ModelConfig& config = model_->config();
  if (!model_->attention().traits().position_weights) {
    throw DataError(path_ + ": the model's attention '" + config.attention +
                    "' has no weights over source positions to read alignments from");
  }
  const size_t n = std::min(sources.size(), targets.size());
  std::vector<align::SoftAlignment> pairs(n);
  std::vector<model::Example> examples(n);
  std::vector<size_t> nonempty;
  const int64_t limit = config.max_source_length();
  for (size_t i = 0; i < n; ++i) {
    align::SoftAlignment& pair = pairs[i];
    pair.id = first_line - 1 + long(i);
    pair.source = tokenize(sources[i]);
    pair.target = tokenize(targets[i]);
    pair.source_words = word_indices(pair.source);
    pair.target_words = word_indices(pair.target);
    std::optional<DataError> error;
    if (limit > 0 && int64_t(pair.source.size()) > limit) {
      error = too_long_error(input_name, first_line + long(i), pair.source.size());
    } else if (std::max(pair.source.size(), pair.target.size()) >
               size_t(options_.max_pair_length)) {
      error = DataError(at_line(
          input_name, first_line + long(i),
          "a side of " + std::to_string(std::max(pair.source.size(), pair.target.size())) +
              " tokens, more than --max-length " + std::to_string(options_.max_pair_length)));
    }
    if (error) {
      if (!too_long) throw *error;
      *too_long = error;
      pairs.resize(i);
      examples.resize(i);
      break;
    }
    if (pair.source.empty() || pair.target.empty()) continue;
    examples[i].src = source_ids(pair.source);
    examples[i].tgt.resize(pair.target.size());
    for (size_t t = 0; t < pair.target.size(); ++t)
      examples[i].tgt[t] = tgt_vocab_.id(pair.target[t]);
    nonempty.push_back(i);
  }
  const std::vector<size_t> order = longest_first(nonempty, examples);
  model::LossOptions forced;
  forced.training = false;
  forced.backward = false;
  forced.keep_attention = true;
  Rng rng = make_rng(0);  // unused: no dropout when not training
  for (size_t begin = 0; begin < order.size(); begin += size_t(options_.batch_size)) {
    const size_t end = std::min(order.size(), begin + size_t(options_.batch_size));
    const std::vector<size_t> members(order.begin() + long(begin), order.begin() + long(end));
    const model::Batch batch = model::make_batch(examples, members);
    model_->loss(batch, forced, rng);
    // [N, T, S]: sentence k's rows 0 … its target length (the </s> step), its source columns.
    const tensor::Tensor& weights = model_->attention_weights();
    const float* w = weights.data();
    for (size_t k = 0; k < members.size(); ++k) {
      align::SoftAlignment& pair = pairs[members[k]];
      const size_t rows = pair.target.size() + 1, columns = pair.source.size();
      pair.weights.assign(rows, std::vector<float>(columns));
      for (size_t t = 0; t < rows; ++t) {
        const float* row = w + (k * size_t(batch.tgt_len) + t) * size_t(batch.src_len);
        std::copy(row, row + columns, pair.weights[t].begin());
      }
    }
  }
  return pairs;
}

}  // namespace heed::decode
