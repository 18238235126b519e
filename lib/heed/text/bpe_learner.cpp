#include "heed/text/bpe_learner.h"

#include <spdlog/spdlog.h>

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
size_t left_of(uint64_t key) {
  return static_cast<size_t>(key >> 32);
}
size_t right_of(uint64_t key) {
  return static_cast<size_t>(key & 0xffffffffu);
}

bool learnable(const std::string& word, long long count) {
  return !word.empty() && count > 0 && word.find_first_of(" \r\n") == std::string::npos;
}

class Learner {
 public:
  explicit Learner(const WordCounts& counts) {
    // Words in a fixed order, so symbol ids (and the run) do not depend on hashing.
    std::vector<const WordCounts::value_type*> list;
    list.reserve(counts.size());
    for (const auto& entry : counts) {
      if (learnable(entry.first, entry.second)) list.push_back(&entry);
    }
    std::sort(list.begin(), list.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    std::string symbol;
    std::vector<std::string_view> chars;
    words_.reserve(list.size());
    for (const auto* entry : list) {
      chars.clear();
      for_each_utf8_char(entry->first, [&chars](std::string_view c) { chars.push_back(c); });
      std::vector<int32_t> word;
      word.reserve(chars.size());
      for (size_t i = 0; i < chars.size(); ++i) {
        symbol.assign(chars[i]);
        if (i + 1 == chars.size()) symbol += kEndOfWord;
        word.push_back(intern(symbol));
      }
      words_.push_back(std::move(word));
      freqs_.push_back(entry->second);
    }
    visited_.assign(words_.size(), 0);
    for (size_t w = 0; w < words_.size(); ++w) {
      const auto& word = words_[w];
      for (size_t i = 0; i + 1 < word.size(); ++i) {
        const uint64_t key = pair_key(word[i], word[i + 1]);
        pair_counts_[key] += freqs_[w];
        auto& where = where_[key];
        if (where.empty() || where.back() != static_cast<int32_t>(w)) {
          where.push_back(static_cast<int32_t>(w));
        }
      }
    }
    std::vector<Entry> entries;
    entries.reserve(pair_counts_.size());
    for (const auto& [key, count] : pair_counts_) entries.push_back({count, key});
    heap_ = Heap(Less{this}, std::move(entries));
  }

  std::vector<BpeMerge> run(const BpeLearnOptions& options) {
    std::vector<BpeMerge> merges;
    while (static_cast<int>(merges.size()) < options.merges && !heap_.empty()) {
      const Entry top = heap_.top();
      heap_.pop();
      auto it = pair_counts_.find(top.key);
      if (it == pair_counts_.end() || it->second != top.count) continue;  // stale entry
      if (top.count < options.min_frequency) {
        spdlog::warn(
            "[learn-bpe] stopped after {} of {} merges: the most frequent pair left occurs {} "
            "time{}, fewer than --min-frequency {}",
            merges.size(), options.merges, top.count, top.count == 1 ? "" : "s",
            options.min_frequency);
        return merges;
      }
      merges.push_back({symbols_[left_of(top.key)], symbols_[right_of(top.key)]});
      merge(top.key);
    }
    if (static_cast<int>(merges.size()) < options.merges) {
      spdlog::warn(
          "[learn-bpe] stopped after {} of {} merges: no pair of symbols is left (every word is "
          "one symbol)",
          merges.size(), options.merges);
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
      const auto& symbols = self->symbols_;
      const int order = symbols[left_of(a.key)].compare(symbols[left_of(b.key)]);
      if (order != 0) return order < 0;
      return symbols[right_of(a.key)] < symbols[right_of(b.key)];
    }
  };
  using Heap = std::priority_queue<Entry, std::vector<Entry>, Less>;

  int32_t intern(const std::string& symbol) {
    auto [it, inserted] = ids_.emplace(symbol, static_cast<int32_t>(symbols_.size()));
    if (inserted) symbols_.push_back(symbol);
    return it->second;
  }

  // Replaces the pair best everywhere and updates the pair counts, the index and the heap.
  void merge(uint64_t best) {
    const auto a = static_cast<int32_t>(left_of(best));
    const auto b = static_cast<int32_t>(right_of(best));
    const int32_t merged = intern(symbols_[left_of(best)] + symbols_[right_of(best)]);
    ++stamp_;
    deltas_.clear();
    std::vector<int32_t> occurrences;
    occurrences.swap(where_[best]);
    for (const int32_t w : occurrences) {
      auto& seen = visited_[static_cast<size_t>(w)];
      if (seen == stamp_) continue;
      seen = stamp_;
      std::vector<int32_t>& word = words_[static_cast<size_t>(w)];
      next_.clear();
      for (size_t i = 0; i < word.size(); ++i) {
        if (i + 1 < word.size() && word[i] == a && word[i + 1] == b) {
          next_.push_back(merged);
          ++i;
        } else {
          next_.push_back(word[i]);
        }
      }
      if (next_.size() == word.size()) continue;  // the index entry was out of date
      const long long f = freqs_[static_cast<size_t>(w)];
      for (size_t i = 0; i + 1 < word.size(); ++i) deltas_[pair_key(word[i], word[i + 1])] -= f;
      for (size_t i = 0; i + 1 < next_.size(); ++i) {
        const uint64_t key = pair_key(next_[i], next_[i + 1]);
        deltas_[key] += f;
        // Pairs without the new symbol were there before and already list this word.
        if (next_[i] == merged || next_[i + 1] == merged) {
          auto& where = where_[key];
          if (where.empty() || where.back() != w) where.push_back(w);
        }
      }
      word.swap(next_);
    }
    pair_counts_.erase(best);
    where_.erase(best);
    for (const auto& [key, delta] : deltas_) {
      if (delta == 0 || key == best) continue;
      auto it = pair_counts_.find(key);
      const long long count = (it == pair_counts_.end() ? 0 : it->second) + delta;
      if (count <= 0) {
        if (it != pair_counts_.end()) pair_counts_.erase(it);
        where_.erase(key);
      } else {
        if (it == pair_counts_.end()) {
          pair_counts_.emplace(key, count);
        } else {
          it->second = count;
        }
        heap_.push({count, key});
      }
    }
  }

  std::vector<std::string> symbols_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::vector<int32_t>> words_;  // each word as symbol ids
  std::vector<long long> freqs_;
  std::vector<uint32_t> visited_;  // stamp of the last merge that looked at the word
  uint32_t stamp_ = 0;
  std::unordered_map<uint64_t, long long> pair_counts_;
  std::unordered_map<uint64_t, std::vector<int32_t>> where_;  // pair → words (may be stale)
  std::unordered_map<uint64_t, long long> deltas_;
  std::vector<int32_t> next_;
  Heap heap_{Less{this}};
};

}  // namespace

void BpeLearnOptions::validate() const {
  if (merges < 0) {
    throw ConfigError("the number of BPE merges must not be negative, not " +
                      std::to_string(merges));
  }
  if (min_frequency < 1) {
    throw ConfigError("the minimum pair frequency must be at least 1, not " +
                      std::to_string(min_frequency));
  }
}

std::vector<BpeMerge> learn_bpe(const WordCounts& counts, const BpeLearnOptions& options) {
  options.validate();
  Learner learner(counts);
  return learner.run(options);
}

}  // namespace heed::text
