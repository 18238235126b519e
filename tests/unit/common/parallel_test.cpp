#include "heed/common/parallel.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace heed;

namespace {

// How many times each index of [0, n) was visited by parallel_for_chunks(n, chunk, threads);
// also checks that every worker is in [0, threads) and that no worker runs two ranges at once.
std::vector<int> visits(size_t n, size_t chunk, int threads) {
  std::unique_ptr<std::atomic<int>[]> seen(new std::atomic<int>[n + 1]());
  const size_t workers = size_t(std::max(threads, 1));
  std::unique_ptr<std::atomic<bool>[]> busy(new std::atomic<bool>[workers]());
  std::atomic<bool> bad_worker{false}, overlap{false}, bad_range{false};
  parallel_for_chunks(n, chunk, threads, [&](size_t begin, size_t end, int worker) {
    if (worker < 0 || size_t(worker) >= workers) {
      bad_worker = true;
      return;
    }
    if (busy[worker].exchange(true)) overlap = true;
    if (!(begin < end && end <= n)) bad_range = true;
    for (size_t i = begin; i < end; ++i) ++seen[i];
    busy[worker] = false;
  });
  CHECK_FALSE(bad_worker);
  CHECK_FALSE(overlap);
  CHECK_FALSE(bad_range);
  std::vector<int> counts(n);
  for (size_t i = 0; i < n; ++i) counts[i] = seen[i];
  return counts;
}

}  // namespace

TEST_CASE("parallel: every index is visited exactly once", "[common][fast]") {
  for (const int threads : {0, 1, 2, 3, 8}) {
    for (const size_t n : {size_t(1), size_t(5), size_t(64), size_t(1000)}) {
      for (const size_t chunk : {size_t(0), size_t(1), size_t(7), size_t(64), size_t(5000)}) {
        INFO("threads " << threads << ", n " << n << ", chunk " << chunk);
        CHECK(visits(n, chunk, threads) == std::vector<int>(n, 1));
      }
    }
  }
  std::vector<std::atomic<int>> seen(100);
  parallel_for(seen.size(), 4, [&](size_t i) { ++seen[i]; });
  for (const auto& s : seen) CHECK(s == 1);
}

TEST_CASE("parallel: ranges are consecutive chunks, the last one short", "[common][fast]") {
  std::vector<std::pair<size_t, size_t>> ranges(4);
  parallel_for_chunks(10, 3, 2, [&](size_t begin, size_t end, int) {
    ranges[begin / 3] = {begin, end};
  });
  CHECK(ranges == std::vector<std::pair<size_t, size_t>>{{0, 3}, {3, 6}, {6, 9}, {9, 10}});
}

TEST_CASE("parallel: nothing to do calls nothing", "[common][fast]") {
  int calls = 0;
  parallel_for(0, 4, [&](size_t) { ++calls; });
  parallel_for_chunks(0, 16, 4, [&](size_t, size_t, int) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("parallel: more threads than items", "[common][fast]") {
  CHECK(visits(3, 1, 16) == std::vector<int>(3, 1));
  std::vector<std::atomic<int>> seen(2);
  parallel_for(seen.size(), 64, [&](size_t i) { ++seen[i]; });
  CHECK(seen[0] == 1);
  CHECK(seen[1] == 1);
}

TEST_CASE("parallel: the lowest failing range's exception is rethrown", "[common][fast]") {
  // Ranges 3, 7 and 12 of 20 (chunk 5) throw; every range below 3 still runs in full.
  for (const int threads : {1, 2, 4}) {
    for (int repeat = 0; repeat < 20; ++repeat) {
      std::vector<std::atomic<int>> done(20);
      std::string message;
      try {
        parallel_for_chunks(100, 5, threads, [&](size_t begin, size_t, int) {
          const size_t range = begin / 5;
          if (range == 3 || range == 7 || range == 12) {
            throw std::runtime_error("range " + std::to_string(range));
          }
          ++done[range];
        });
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
      INFO("threads " << threads);
      CHECK(message == "range 3");
      for (size_t r = 0; r < 3; ++r) CHECK(done[r] == 1);
    }
  }
  // parallel_for: the lowest failing index.
  for (const int threads : {1, 3}) {
    CHECK_THROWS_WITH(parallel_for(50, threads,
                                   [](size_t i) {
                                     if (i % 10 == 9) throw std::runtime_error(std::to_string(i));
                                   }),
                      "9");
  }
}

TEST_CASE("parallel: a loop inside a loop visits every index once", "[common][fast]") {
  std::vector<std::atomic<int>> seen(4 * 8);
  std::atomic<bool> bad_worker{false};
  parallel_for(4, 2, [&](size_t outer) {
    parallel_for_chunks(8, 1, 4, [&](size_t i, size_t, int worker) {
      if (worker < 0 || worker >= 4) bad_worker = true;
      ++seen[outer * 8 + i];
    });
  });
  CHECK_FALSE(bad_worker);
  for (const auto& s : seen) CHECK(s == 1);
}
