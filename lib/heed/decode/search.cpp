#include "heed/decode/search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "heed/common/error.h"

namespace heed::decode {
namespace {

struct Row {
  int sentence = 0;
  float log_prob = 0.0f;
  std::vector<int32_t> tokens;
  std::vector<float> coverage;                // Σ attention per source position
  std::vector<std::vector<float>> attention;  // with keep_attention
};

float coverage_term(const std::vector<float>& coverage, int source_length, float beta) {
  if (beta == 0.0f || coverage.empty()) return 0.0f;
  double sum = 0.0;
  for (int i = 0; i < source_length; ++i) {
    sum += std::log(
        std::max(1e-9, std::min(1.0, static_cast<double>(coverage[static_cast<size_t>(i)]))));
  }
  return static_cast<float>(static_cast<double>(beta) * sum);
}

// The column of token in step's scores, -1 if none (a shortlist's token ids are ascending).
int column_of(const SentenceStep& step, int32_t token) {
  if (token < 0 || step.token_ids == nullptr) return token < step.columns ? token : -1;
  const int32_t* end = step.token_ids + step.columns;
  const int32_t* found = std::lower_bound(step.token_ids, end, token);
  return found != end && *found == token ? static_cast<int>(found - step.token_ids) : -1;
}

}  // namespace

void add_best_of_row(const float* log_probs, int columns, const int32_t* token_ids, float base,
                     int row, int32_t excluded, size_t n, std::vector<Candidate>& out) {
  const size_t first = out.size();
  size_t held = 0;
  // Once n are held, most of the vocabulary cannot enter: a block whose largest value does not
  // beat the n-th best is skipped after one pass that only takes a maximum (it vectorises).
  constexpr int kBlock = 64;
  for (int v = 0; v < columns; ++v) {
    if (held == n && v % kBlock == 0 && v + kBlock <= columns) {
      float block_max = -std::numeric_limits<float>::infinity();  // NaNs never win, as below
      for (int i = v; i < v + kBlock; ++i) {
        block_max = log_probs[i] > block_max ? log_probs[i] : block_max;
      }
      if (!(base + block_max > out.back().total)) {
        v += kBlock - 1;
        continue;
      }
    }
    const float total = base + log_probs[v];
    if (held == n && !(total > out.back().total)) continue;
    const int32_t token = token_ids ? token_ids[v] : v;
    if (token == excluded) continue;
    if (held < n) {
      out.push_back(Candidate{total, row, token});
      ++held;
    } else {
      out.back() = Candidate{total, row, token};
    }
    // Move the new entry up past every worse one (equal ones stay ahead: smaller tokens).
    for (size_t i = out.size() - 1; i > first && out[i - 1].total < total; --i) {
      std::swap(out[i - 1], out[i]);
    }
  }
}

void DecodeConfig::validate() const {
  if (beam_size < 1) throw ConfigError("--beam-size must be at least 1");
  if (beam_size > kMaxBeamSize) {
    throw ConfigError("--beam-size must be at most " + std::to_string(kMaxBeamSize));
  }
  if (n_best < 1 || n_best > beam_size)
    throw ConfigError("--n-best must be between 1 and --beam-size");
  if (!(alpha >= 0.0f)) throw ConfigError("--length-penalty must not be negative");
  if (!(coverage_penalty >= 0.0f)) throw ConfigError("--coverage-penalty must not be negative");
  if (!(max_length_ratio > 0.0f)) throw ConfigError("--max-length-ratio must be positive");
  if (max_length_offset < 0) throw ConfigError("--max-length-offset must not be negative");
  if (min_length < 0) throw ConfigError("--min-length must not be negative");
  sampling.validate();
  if (sampling.enabled() && beam_size != 1) {
    throw ConfigError("--sampling draws one translation per line: it needs --beam-size 1, not " +
                      std::to_string(beam_size));
  }
}

LengthNormalization parse_normalization(const std::string& name) {
  if (name == "none") return LengthNormalization::kNone;
  if (name == "gnmt") return LengthNormalization::kGnmt;
  if (name == "average") return LengthNormalization::kAverage;
  throw ConfigError("--normalize: unknown value '" + name + "' (expected none, gnmt or average)");
}

float normalized_score(float log_prob, int length, const DecodeConfig& config) {
  switch (config.normalization) {
    case LengthNormalization::kNone:
      return log_prob;
    case LengthNormalization::kAverage:
      return log_prob / static_cast<float>(std::max(1, length));
    case LengthNormalization::kGnmt:
      return log_prob / std::pow((5.0f + static_cast<float>(length)) / 6.0f, config.alpha);
  }
  return log_prob;
}

void GreedySearch::choose(const SentenceStep& step, std::vector<Candidate>& chosen) {
  for (int r = step.first_row; r < step.end_row; ++r) {
    add_best_of_row(step.row(r), step.columns, step.token_ids, step.prefix[r], r, step.excluded[r],
                    1, chosen);
  }
}

void BeamSearch::choose(const SentenceStep& step, std::vector<Candidate>& chosen) {
  // The sentence's best k continuations, where k is its live slots: a hypothesis that ends
  // (</s> or the length limit) gives up its slot, so the beam shrinks as OpenNMT's and Marian's
  // do. Each of the k best is among its own row's best k, so no row need offer more.
  const size_t k = static_cast<size_t>(step.slots);
  const size_t per_row = std::min(k, static_cast<size_t>(step.columns));
  for (int r = step.first_row; r < step.end_row; ++r) {
    add_best_of_row(step.row(r), step.columns, step.token_ids, step.prefix[r], r, step.excluded[r],
                    per_row, chosen);
  }
  std::sort(chosen.begin(), chosen.end());
  if (chosen.size() > k) chosen.resize(k);
}

SamplingSearch::SamplingSearch(const SamplingOptions& options,
                               const std::vector<std::uint64_t>& streams)
    : sampler_(options), seed_(options.seed) {
  start_batch(streams);
}

void SamplingSearch::start_batch(const std::vector<std::uint64_t>& streams) {
  rngs_.clear();
  rngs_.reserve(streams.size());
  for (const std::uint64_t stream : streams) rngs_.push_back(make_rng(seed_, stream));
}

void SamplingSearch::choose(const SentenceStep& step, std::vector<Candidate>& chosen) {
  if (step.sentence >= static_cast<int>(rngs_.size())) {
    throw InternalError("sampling: no random stream for sentence " + std::to_string(step.sentence));
  }
  Rng& rng = rngs_[static_cast<size_t>(step.sentence)];
  for (int r = step.first_row; r < step.end_row; ++r) {
    const float* log_probs = step.row(r);
    const int column =
        sampler_.draw(log_probs, step.columns, column_of(step, step.excluded[r]), rng);
    chosen.push_back(Candidate{step.prefix[r] + log_probs[column], r, step.token(column)});
  }
}

std::unique_ptr<SearchStrategy> make_search(const DecodeConfig& config) {
  if (config.sampling.enabled()) return std::make_unique<SamplingSearch>(config.sampling);
  if (config.beam_size == 1) return std::make_unique<GreedySearch>();
  return std::make_unique<BeamSearch>();
}

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, int sentences,
                                            const DecodeConfig& config) {
  config.validate();
  const std::unique_ptr<SearchStrategy> strategy = make_search(config);
  std::vector<std::uint64_t> streams(static_cast<size_t>(std::max(0, sentences)));
  std::iota(streams.begin(), streams.end(), std::uint64_t{0});
  strategy->start_batch(streams);
  return search(scorer, sentences, config, *strategy);
}

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, int sentences,
                                            const DecodeConfig& config, SearchStrategy& strategy) {
  const int V = scorer.vocab_size();
  const int32_t eos = scorer.eos_id();
  const bool need_attention = config.keep_attention || config.coverage_penalty > 0.0f;

  std::vector<int> max_length(static_cast<size_t>(sentences)),
      slots(static_cast<size_t>(sentences), config.beam_size);
  int max_source = 0;
  for (int s = 0; s < sentences; ++s) {
    const int len = scorer.source_length(s);
    max_source = std::max(max_source, len);
    max_length[static_cast<size_t>(s)] =
        std::max(1, static_cast<int>(config.max_length_ratio * static_cast<float>(len)) +
                        config.max_length_offset);
  }
  std::vector<std::vector<Hypothesis>> finished(static_cast<size_t>(sentences));

  auto finalize = [&](const Row& row, float log_prob, bool ended,
                      std::vector<std::vector<float>> attention) {
    Hypothesis h;
    h.tokens = row.tokens;
    h.log_prob = log_prob;
    h.finished = ended;
    const int length = static_cast<int>(row.tokens.size()) + (ended ? 1 : 0);
    h.score =
        normalized_score(log_prob, length, config) +
        coverage_term(row.coverage, scorer.source_length(row.sentence), config.coverage_penalty);
    if (config.keep_attention) h.attention = std::move(attention);
    finished[static_cast<size_t>(row.sentence)].push_back(std::move(h));
  };

  std::vector<Row> rows(static_cast<size_t>(sentences));
  std::vector<int32_t> parents(static_cast<size_t>(sentences)),
      tokens(static_cast<size_t>(sentences), scorer.bos_id());
  for (int s = 0; s < sentences; ++s) {
    rows[static_cast<size_t>(s)].sentence = s;
    parents[static_cast<size_t>(s)] = s;
    if (need_attention)
      rows[static_cast<size_t>(s)].coverage.assign(static_cast<size_t>(max_source), 0.0f);
  }

  std::vector<Candidate> chosen;
  std::vector<float> prefix;
  std::vector<int32_t> excluded;
  while (!rows.empty()) {
    const StepScorer::Scores scores = scorer.step(parents, tokens, need_attention);
    if (scores.log_probs == nullptr || (need_attention && scores.attention == nullptr)) {
      throw InternalError("the scorer returned no scores");
    }
    SentenceStep step;
    step.log_probs = scores.log_probs;
    step.columns = scores.columns > 0 ? scores.columns : V;
    step.token_ids = scores.columns > 0 ? scores.token_ids : nullptr;
    if (scores.columns > 0 && (step.token_ids == nullptr || scores.columns > V)) {
      throw InternalError("the scorer's shortlist has no token ids or exceeds the vocabulary");
    }
    prefix.resize(rows.size());
    excluded.resize(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      prefix[r] = rows[r].log_prob;
      excluded[r] = static_cast<int>(rows[r].tokens.size()) >= config.min_length ? -1 : eos;
    }
    step.prefix = prefix.data();
    step.excluded = excluded.data();
    std::vector<Row> next;
    std::vector<int32_t> next_parents, next_tokens;
    size_t begin = 0;
    while (begin < rows.size()) {
      const int s = rows[begin].sentence;
      size_t end = begin;
      while (end < rows.size() && rows[end].sentence == s) ++end;
      const int k = slots[static_cast<size_t>(s)];
      step.sentence = s;
      step.slots = k;
      step.first_row = static_cast<int>(begin);
      step.end_row = static_cast<int>(end);
      chosen.clear();
      strategy.choose(step, chosen);
      if (chosen.empty() || chosen.size() > static_cast<size_t>(k)) {
        throw InternalError("the search strategy chose " + std::to_string(chosen.size()) +
                            " continuations for " + std::to_string(k) + " slots");
      }
      int ended = 0;
      for (const Candidate& c : chosen) {
        const Row& parent = rows[static_cast<size_t>(c.row)];
        std::vector<float> step_attention;
        if (need_attention) {
          const float* a =
              scores.attention + static_cast<size_t>(c.row) * static_cast<size_t>(max_source);
          step_attention.assign(a, a + scorer.source_length(s));
        }
        if (c.token == eos) {
          Row done = parent;
          if (need_attention) {
            for (size_t i = 0; i < step_attention.size(); ++i)
              done.coverage[i] += step_attention[i];
            if (config.keep_attention) done.attention.push_back(step_attention);
          }
          finalize(done, c.total, true, std::move(done.attention));
          ++ended;
          continue;
        }
        Row child;
        child.sentence = s;
        child.log_prob = c.total;
        child.tokens = parent.tokens;
        child.tokens.push_back(c.token);
        if (need_attention) {
          child.coverage = parent.coverage;
          for (size_t i = 0; i < step_attention.size(); ++i) child.coverage[i] += step_attention[i];
          if (config.keep_attention) {
            child.attention = parent.attention;
            child.attention.push_back(std::move(step_attention));
          }
        }
        if (static_cast<int>(child.tokens.size()) >= max_length[static_cast<size_t>(s)]) {
          finalize(child, child.log_prob, false, child.attention);  // cut at the maximum length
          ++ended;
          continue;
        }
        next.push_back(std::move(child));
        next_parents.push_back(c.row);
        next_tokens.push_back(c.token);
      }
      slots[static_cast<size_t>(s)] = k - ended;
      begin = end;
    }
    rows.swap(next);
    parents.swap(next_parents);
    tokens.swap(next_tokens);
  }

  for (auto& list : finished) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (list.size() > static_cast<size_t>(config.n_best))
      list.resize(static_cast<size_t>(config.n_best));
  }
  return finished;
}

}  // namespace heed::decode
