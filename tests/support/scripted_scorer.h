// The search's test model: a table of next-token distributions, one per prefix, behind the
// StepScorer interface. It follows the search's parents/tokens bookkeeping, so wrong bookkeeping
// shows as wrong prefixes; the search's strategies (greedy, beam, sampling) are tested on it.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "heed/decode/search.h"

namespace heed::test {

inline constexpr int32_t kBos = 2, kEos = 3, kA = 4, kB = 5, kC = 6;
inline constexpr int kVocab = 7;

class ScriptedScorer : public decode::StepScorer {
 public:
  using Table = std::function<std::vector<float>(int sentence, const std::vector<int32_t>& prefix)>;
  ScriptedScorer(Table table, std::vector<int> source_lengths)
      : table_(std::move(table)), lengths_(std::move(source_lengths)) {}

  // Scores only these tokens (ascending), as a scorer with a lexical shortlist does.
  void set_shortlist(std::vector<int32_t> token_ids) { shortlist_ = std::move(token_ids); }

  int vocab_size() const override { return kVocab; }
  int32_t eos_id() const override { return kEos; }
  int32_t bos_id() const override { return kBos; }
  int source_length(int s) const override { return lengths_[static_cast<size_t>(s)]; }

  Scores step(const std::vector<int32_t>& parents, const std::vector<int32_t>& tokens,
              bool want_attention) override {
    std::vector<float>& log_probs = log_probs_;
    std::vector<float>* attention = want_attention ? &attention_ : nullptr;
    std::vector<std::pair<int, std::vector<int32_t>>> next;
    for (size_t r = 0; r < parents.size(); ++r) {
      if (first_) {
        CHECK(tokens[r] == kBos);
        next.push_back({parents[r], {}});
      } else {
        auto row = rows_.at(static_cast<size_t>(parents[r]));
        row.second.push_back(tokens[r]);
        next.push_back(row);
      }
    }
    first_ = false;
    rows_ = next;
    ++steps_;
    max_rows_ = std::max(max_rows_, rows_.size());
    log_probs.clear();
    int max_source = 0;
    for (int l : lengths_) max_source = std::max(max_source, l);
    if (attention) attention->assign(rows_.size() * static_cast<size_t>(max_source), 0.0f);
    for (size_t r = 0; r < rows_.size(); ++r) {
      std::vector<float> p = table_(rows_[r].first, rows_[r].second);
      p.resize(kVocab, 0.0f);
      if (shortlist_.empty()) {
        for (float x : p) log_probs.push_back(x > 0 ? std::log(x) : -1e9f);
      } else {
        for (int32_t t : shortlist_) {
          const float x = p[static_cast<size_t>(t)];
          log_probs.push_back(x > 0 ? std::log(x) : -1e9f);
        }
      }
      // Attention: all on source position (step mod length).
      if (attention) {
        const int len = lengths_[static_cast<size_t>(rows_[r].first)];
        (*attention)[r * static_cast<size_t>(max_source) +
                     rows_[r].second.size() % static_cast<size_t>(len)] = 1.0f;
      }
    }
    Scores scores;
    scores.log_probs = log_probs_.data();
    if (want_attention) scores.attention = attention_.data();
    if (!shortlist_.empty()) {
      scores.columns = static_cast<int>(shortlist_.size());
      scores.token_ids = shortlist_.data();
    }
    return scores;
  }
  int steps_ = 0;
  size_t max_rows_ = 0;

 private:
  Table table_;
  std::vector<int> lengths_;
  std::vector<int32_t> shortlist_;
  bool first_ = true;
  std::vector<std::pair<int, std::vector<int32_t>>> rows_;
  std::vector<float> log_probs_, attention_;
};

// A next-token distribution: the probability of each listed token, 0 elsewhere.
inline std::vector<float> dist(std::map<int32_t, float> p) {
  std::vector<float> v(kVocab, 0.0f);
  for (auto [t, x] : p) v[static_cast<size_t>(t)] = x;
  return v;
}

}  // namespace heed::test
