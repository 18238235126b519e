// A bounded cache of oneDNN plans (primitive, memory descriptors, bound arguments) by shape.
// Every distinct shape gets a plan; a translation stream makes endlessly many shapes (rows of live
// hypotheses × source length), so an unbounded map grew heed-translate to 10 GB over 100,000
// varied lines (issue 29). Here the least recently used plan goes when a new one would pass the
// capacity; oneDNN's own primitive cache makes re-creating an evicted shape cheap.
//
// A reference from get() stays valid until the next get() that inserts: callers use one plan at a
// time, and keep a key rather than a reference across calls.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace heed::onednn::detail {

// std::hash of a tuple of integers (FNV-1a over the fields).
struct TupleHash {
  template <class... T>
  size_t operator()(const std::tuple<T...>& key) const {
    size_t h = 1469598103934665603ull;
    std::apply([&h](const auto&... field) { ((h = (h ^ size_t(field)) * 1099511628211ull), ...); },
               key);
    return h;
  }
};

// The entry of a most-recently-used-first list that satisfies `matches`, moved to the front
// (now the most recent); null when none does. The packed weight copies of Rnn and MatMul are
// such lists: a handful of entries found by their layout, too few to index.
template <class T, class Match>
T* find_most_recent(std::list<T>& list, Match&& matches) {
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (matches(*it)) {
      list.splice(list.begin(), list, it);
      return &list.front();
    }
  }
  return nullptr;
}

template <class Key, class Value, class Hash = std::hash<Key>>
class PlanCache {
 public:
  explicit PlanCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The plan for key, made by make() (returning a Value) when absent.
  template <class Make>
  Value& get(const Key& key, Make&& make) {
    const auto found = index_.find(key);
    if (found != index_.end()) {
      order_.splice(order_.begin(), order_, found->second);  // now the most recent
      return found->second->second;
    }
    order_.emplace_front(key, make());
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }

  // Null when absent; does not change the order.
  Value* find(const Key& key) {
    const auto found = index_.find(key);
    return found == index_.end() ? nullptr : &found->second->second;
  }

  size_t size() const { return order_.size(); }
  size_t capacity() const { return capacity_; }
  void clear() {
    index_.clear();
    order_.clear();
  }

 private:
  size_t capacity_;
  std::list<std::pair<Key, Value>> order_;  // most recently used first
  std::unordered_map<Key, typename std::list<std::pair<Key, Value>>::iterator, Hash> index_;
};

}  // namespace heed::onednn::detail
