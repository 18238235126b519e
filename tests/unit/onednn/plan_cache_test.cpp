// The bounded plan cache: the least recently used plan goes, a hit renews a plan, and an endless
// stream of shapes never holds more than the capacity.
#include "heed/onednn/plan_cache.h"

#include <catch2/catch.hpp>
#include <string>
#include <tuple>

using heed::onednn::detail::PlanCache;
using heed::onednn::detail::TupleHash;

TEST_CASE("plan cache: least recently used goes first; a hit renews", "[onednn][fast]") {
  PlanCache<int, std::string> cache(2);
  int made = 0;
  auto make = [&made](int key) {
    return [&made, key] {
      ++made;
      return "plan " + std::to_string(key);
    };
  };
  CHECK(cache.get(1, make(1)) == "plan 1");
  CHECK(cache.get(2, make(2)) == "plan 2");
  CHECK(cache.get(1, make(1)) == "plan 1");  // a hit: 1 is now the most recent
  CHECK(made == 2);
  cache.get(3, make(3));  // evicts 2, the least recent
  CHECK(cache.size() == 2);
  CHECK(cache.find(2) == nullptr);
  REQUIRE(cache.find(1) != nullptr);
  CHECK(*cache.find(1) == "plan 1");
  CHECK(cache.get(2, make(2)) == "plan 2");  // made again
  CHECK(made == 4);
  CHECK(cache.find(3) != nullptr);  // 1 went: 3 was used after it
  CHECK(cache.find(1) == nullptr);
  cache.clear();
  CHECK(cache.size() == 0);
}

TEST_CASE("plan cache: an endless stream of shapes stays within the capacity", "[onednn][fast]") {
  PlanCache<std::tuple<bool, int64_t, int64_t>, int, TupleHash> cache(32);
  for (int64_t rows = 1; rows <= 200; ++rows) {
    for (int64_t length = 1; length <= 50; ++length) {
      const int& plan =
          cache.get(std::make_tuple(true, rows, length), [&] { return int(rows * length); });
      CHECK(plan == rows * length);
      CHECK(cache.size() <= 32);
    }
  }
  CHECK(cache.size() == 32);
  // The most recent shapes are the ones kept.
  CHECK(cache.find(std::make_tuple(true, int64_t(200), int64_t(50))) != nullptr);
  CHECK(cache.find(std::make_tuple(true, int64_t(1), int64_t(1))) == nullptr);
  CHECK(TupleHash()(std::make_tuple(1, 2)) != TupleHash()(std::make_tuple(2, 1)));
}
