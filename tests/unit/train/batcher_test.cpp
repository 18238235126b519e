#include "heed/train/batcher.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "heed/common/error.h"
#include "heed/common/rng.h"

using namespace heed;
using train::Example;

namespace {
std::vector<Example> make_examples(size_t n) {
  Rng rng = make_rng(7);
  std::uniform_int_distribution<int> len(1, 30), id(4, 99);
  std::vector<Example> data(n);
  for (auto& e : data) {
    e.src.resize(static_cast<size_t>(len(rng)));
    e.tgt.resize(static_cast<size_t>(len(rng)));
    for (auto& x : e.src) x = id(rng);
    for (auto& x : e.tgt) x = id(rng);
  }
  return data;
}
}  // namespace

TEST_CASE("batcher: every example once per epoch, caps respected, order seeded", "[train][fast]") {
  auto data = make_examples(1000);
  train::BatcherOptions options;
  options.max_sentences = 32;
  options.max_tokens = 400;
  options.bucket_batches = 8;
  auto plan = train::plan_epoch(data, options, 11, 0);
  std::multiset<size_t> seen;
  int64_t padded = 0, real = 0;
  for (const auto& batch : plan) {
    REQUIRE(!batch.empty());
    CHECK(static_cast<int64_t>(batch.size()) <= 32);
    train::Batch b = train::make_batch(data, batch);
    CHECK(b.size * std::max(b.src_len, b.tgt_len) <= 400);
    padded += b.size * b.src_len;
    for (auto l : b.src_lengths) real += l;
    seen.insert(batch.begin(), batch.end());
  }
  CHECK(seen.size() == 1000);
  CHECK(std::set<size_t>(seen.begin(), seen.end()).size() == 1000);
  CHECK(static_cast<double>(real) / static_cast<double>(padded) >
        0.8);  // bucketing keeps padding low
  CHECK(train::plan_epoch(data, options, 11, 0) == plan);
  CHECK(train::plan_epoch(data, options, 11, 1) != plan);
  CHECK(train::plan_epoch(data, options, 12, 0) != plan);
  options.max_sentences = 0;
  CHECK_THROWS_AS(train::plan_epoch(data, options, 11, 0), ConfigError);
}

TEST_CASE("batcher: padded tensors with <s> and </s>", "[train][fast]") {
  std::vector<Example> data = {{{10, 11, 12}, {20, 21}, {}}, {{13}, {22, 23, 24}, {}}};
  train::Batch b = train::make_batch(data, {0, 1});
  CHECK(b.size == 2);
  CHECK(b.src_len == 3);
  CHECK(b.tgt_len == 4);
  CHECK(b.src == std::vector<int32_t>{10, 11, 12, 13, 0, 0});
  CHECK(b.src_lengths == std::vector<int64_t>{3, 1});
  CHECK(b.tgt_in == std::vector<int32_t>{2, 20, 21, 0, 2, 22, 23, 24});
  CHECK(b.tgt_out == std::vector<int32_t>{20, 21, 3, 0, 22, 23, 24, 3});
  CHECK(b.tgt_lengths == std::vector<int64_t>{3, 4});
  CHECK(b.target_tokens() == 7);
}

TEST_CASE("batcher: shards of a batch are disjoint, in order, and cover it", "[train][fast]") {
  const std::vector<size_t> batch = {9, 4, 7, 1, 3};
  for (int ranks = 1; ranks <= 7; ++ranks) {
    std::vector<size_t> joined;
    size_t smallest = batch.size(), largest = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      const std::vector<size_t> shard = train::shard_of(batch, rank, ranks);
      joined.insert(joined.end(), shard.begin(), shard.end());
      smallest = std::min(smallest, shard.size());
      largest = std::max(largest, shard.size());
    }
    CHECK(joined == batch);
    CHECK(largest - smallest <= 1);
  }
  CHECK(train::shard_of(batch, 0, 2) == std::vector<size_t>{9, 4, 7});
  CHECK(train::shard_of(batch, 6, 7).empty());
}
