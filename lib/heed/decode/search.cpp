#include "heed/decode/search.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
  if (n_best < 1 || n_best > beam_size)
    throw ConfigError("--n-best must be between 1 and --beam-size");
  if (!(alpha >= 0.0f)) throw ConfigError("--length-penalty must not be negative");
  if (!(coverage_penalty >= 0.0f)) throw ConfigError("--coverage-penalty must not be negative");
  if (!(max_length_ratio > 0.0f)) throw ConfigError("--max-length-ratio must be positive");
  if (max_length_offset < 0) throw ConfigError("--max-length-offset must not be negative");
  if (min_length < 0) throw ConfigError("--min-length must not be negative");
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

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, int sentences,
                                            const DecodeConfig& config) {
  config.validate();
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

  std::vector<Candidate> candidates;
  while (!rows.empty()) {
    const StepScorer::Scores scores = scorer.step(parents, tokens, need_attention);
    if (scores.log_probs == nullptr || (need_attention && scores.attention == nullptr)) {
      throw InternalError("the scorer returned no scores");
    }
    const int columns = scores.columns > 0 ? scores.columns : V;
    const int32_t* token_ids = scores.columns > 0 ? scores.token_ids : nullptr;
    if (scores.columns > 0 && (token_ids == nullptr || scores.columns > V)) {
      throw InternalError("the scorer's shortlist has no token ids or exceeds the vocabulary");
    }
    std::vector<Row> next;
    std::vector<int32_t> next_parents, next_tokens;
    size_t begin = 0;
    while (begin < rows.size()) {
      const int s = rows[begin].sentence;
      size_t end = begin;
      while (end < rows.size() && rows[end].sentence == s) ++end;
      const int k = slots[static_cast<size_t>(s)];
      // The best 2k continuations of each row, then of the sentence: enough to fill k live
      // slots even if k of them end with </s>.
      candidates.clear();
      const size_t per_row =
          std::min<size_t>(static_cast<size_t>(2 * k), static_cast<size_t>(columns));
      for (size_t r = begin; r < end; ++r) {
        const float* lp = scores.log_probs + r * static_cast<size_t>(columns);
        const bool may_end = static_cast<int>(rows[r].tokens.size()) >= config.min_length;
        add_best_of_row(lp, columns, token_ids, rows[r].log_prob, static_cast<int>(r),
                        may_end ? -1 : eos, per_row, candidates);
      }
      std::sort(candidates.begin(), candidates.end());
      int used = 0, ended = 0;
      for (const Candidate& c : candidates) {
        if (used == k) break;
        const Row& parent = rows[static_cast<size_t>(c.row)];
        std::vector<float> step_attention;
        if (need_attention) {
          const float* a =
              scores.attention + static_cast<size_t>(c.row) * static_cast<size_t>(max_source);
          step_attention.assign(a, a + scorer.source_length(s));
        }
        ++used;
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
