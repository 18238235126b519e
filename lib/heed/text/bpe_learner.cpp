#include "heed/text/bpe_learner.h"

#include <algorithm>
#include <queue>
#include <string>
#include <unordered_map>

#include "heed/common/error.h"
#include "heed/text/utf8.h"

namespace heed::text {
namespace {

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}
int32_t left_of(uint64_t key) { return static_cast<int32_t>(key >> 32); }
int32_t right_of(uint64_t key) { return static_cast<int32_t>(key & 0xffffffffu); }

class Learner {
 public:
  Learner(const WordCounts& counts) {
    // A fixed word order keeps the run deterministic (the result does not depend on it).
    CountList list(counts.begin(), counts.end());
    std::sort(list.begin(), list.end());
    std::string symbol;
    for (const auto& [word, count] : list) {
      if (word.empty() || count <= 0) continue;
      std::vector<std::string_view> chars;
      for_each_utf8_char(word, [&chars](std::string_view c) { chars.push_back(c); });
      std::vector<int32_t> seq;
      for (size_t i = 0; i < chars.size(); ++i) {
        symbol.assign(chars[i]);
        if (i + 1 == chars.size()) symbol += "</w>";
        seq.push_back(intern(symbol));
      }
      words_.push_back(std::move(seq));
      freqs_.push_back(count);
    }
    visited_.assign(words_.size(), 0);
    for (size_t w = 0; w < words_.size(); ++w) {
      const auto& seq = words_[w];
      for (size_t i = 0; i + 1 < seq.size(); ++i) {
        uint64_t key = pair_key(seq[i], seq[i + 1]);
        pair_counts_[key] += freqs_[w];
        where_[key].push_back(static_cast<int32_t>(w));
      }
    }
    for (const auto& [key, count] : pair_counts_) heap_.push({count, key});
  }

  std::vector<BpeMerge> run(const BpeLearnOptions& options) {
    std::vector<BpeMerge> merges;
    while (static_cast<int>(merges.size()) < options.merges && !heap_.empty()) {
      Entry top = heap_.top();
      heap_.pop();
      auto it = pair_counts_.find(top.key);
      if (it == pair_counts_.end() || it->second != top.count) continue;  // stale entry
      if (top.count < options.min_frequency) break;
      merges.push_back({symbols_[static_cast<size_t>(left_of(top.key))],
                        symbols_[static_cast<size_t>(right_of(top.key))]});
      merge(top.key);
    }
    return merges;
  }

 private:
  struct Entry {
    long long count;
    uint64_t key;
  };
  // Max-heap order: higher count first; on equal counts the larger (left, right) pair.
  struct Less {
    const Learner* self;
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.count != b.count) return a.count < b.count;
      const std::string& al = self->symbols_[static_cast<size_t>(left_of(a.key))];
      const std::string& bl = self->symbols_[static_cast<size_t>(left_of(b.key))];
      if (al != bl) return al < bl;
      return self->symbols_[static_cast<size_t>(right_of(a.key))] <
             self->symbols_[static_cast<size_t>(right_of(b.key))];
    }
  };

  int32_t intern(const std::string& symbol) {
    auto [it, inserted] = ids_.emplace(symbol, static_cast<int32_t>(symbols_.size()));
    if (inserted) symbols_.push_back(symbol);
    return it->second;
  }

  void add(uint64_t key, long long delta) {
    if (delta == 0) return;
    changed_.push_back(key);
    pair_counts_[key] += delta;
  }

  void merge(uint64_t best) {
    const int32_t a = left_of(best), b = right_of(best);
    const int32_t merged = intern(symbols_[static_cast<size_t>(a)] + symbols_[static_cast<size_t>(b)]);
    ++stamp_;
    changed_.clear();
    std::vector<int32_t> occurrences;
    occurrences.swap(where_[best]);
    std::vector<int32_t> next;
    for (int32_t w : occurrences) {
      if (visited_[static_cast<size_t>(w)] == stamp_) continue;
      visited_[static_cast<size_t>(w)] = stamp_;
      std::vector<int32_t>& seq = words_[static_cast<size_t>(w)];
      const long long f = freqs_[static_cast<size_t>(w)];
      next.clear();
      bool found = false;
      for (size_t i = 0; i < seq.size(); ++i) {
        if (i + 1 < seq.size() && seq[i] == a && seq[i + 1] == b) {
          next.push_back(merged);
          ++i;
          found = true;
        } else {
          next.push_back(seq[i]);
        }
      }
      if (!found) continue;  // a stale index entry
      for (size_t i = 0; i + 1 < seq.size(); ++i) add(pair_key(seq[i], seq[i + 1]), -f);
      for (size_t i = 0; i + 1 < next.size(); ++i) {
        uint64_t key = pair_key(next[i], next[i + 1]);
        add(key, f);
        if (next[i] == merged || next[i + 1] == merged) where_[key].push_back(w);
      }
      seq.swap(next);
    }
    pair_counts_.erase(best);
    std::sort(changed_.begin(), changed_.end());
    changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
    for (uint64_t key : changed_) {
      auto it = pair_counts_.find(key);
      if (it == pair_counts_.end()) continue;
      if (it->second <= 0) {
        pair_counts_.erase(it);
        where_.erase(key);
      } else {
        heap_.push({it->second, key});
      }
    }
  }

  std::vector<std::string> symbols_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::vector<int32_t>> words_;
  std::vector<long long> freqs_;
  std::vector<uint32_t> visited_;
  uint32_t stamp_ = 0;
  std::unordered_map<uint64_t, long long> pair_counts_;
  std::unordered_map<uint64_t, std::vector<int32_t>> where_;
  std::vector<uint64_t> changed_;
  std::priority_queue<Entry, std::vector<Entry>, Less> heap_{Less{this}};
};

}  // namespace

std::vector<BpeMerge> learn_bpe(const WordCounts& counts, const BpeLearnOptions& options) {
  if (options.merges < 0) throw ConfigError("the number of BPE merges must not be negative");
  if (options.min_frequency < 1) throw ConfigError("--min-frequency must be at least 1");
  Learner learner(counts);
  return learner.run(options);
}

}  // namespace heed::text
