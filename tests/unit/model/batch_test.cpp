// make_batch: the guided-alignment rows it builds from token links.
#include "heed/model/batch.h"

#include <catch2/catch.hpp>

using heed::model::Example;

TEST_CASE("batch: guide rows spread 1 over each target token's linked sources", "[model][fast]") {
  // Sentence 0: 3 source, 2 target tokens; target 0 ↔ sources 0 and 2, target 1 ↔ source 1.
  // Sentence 1: 2 source, 3 target tokens, no links.
  std::vector<Example> data(2);
  data[0] = {{10, 11, 12}, {20, 21}, {{0, 0}, {2, 0}, {1, 1}}};
  data[1] = {{13, 14}, {22, 23, 24}, {}};
  const heed::model::Batch b = heed::model::make_batch(data, {0, 1});
  REQUIRE(b.src_len == 3);
  REQUIRE(b.tgt_len == 4);  // the longest target + </s>
  REQUIRE(b.guide.size() == 2 * 4 * 3);
  const auto g = [&](int n, int t, int s) { return b.guide[size_t((n * 4 + t) * 3 + s)]; };
  CHECK(g(0, 0, 0) == 0.5f);
  CHECK(g(0, 0, 1) == 0.f);
  CHECK(g(0, 0, 2) == 0.5f);
  CHECK(g(0, 1, 1) == 1.f);
  float rest = 0;  // the </s> row, padding and sentence 1
  for (int t = 2; t < 4; ++t)
    for (int s = 0; s < 3; ++s) rest += g(0, t, s);
  for (int t = 0; t < 4; ++t)
    for (int s = 0; s < 3; ++s) rest += g(1, t, s);
  CHECK(rest == 0.f);
  // Without links anywhere no guide is built.
  CHECK(heed::model::make_batch(data, {1}).guide.empty());
}
