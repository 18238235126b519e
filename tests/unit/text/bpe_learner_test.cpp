#include "heed/text/bpe_learner.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;
using text::BpeMerge;

TEST_CASE("bpe learner: the toy corpus of Sennrich et al. 2016, checked by hand", "[text][fast]") {
  // low×5 lower×2 newest×6 widest×3 as symbols: l o w</w> | l o w e r</w> | n e w e s t</w> |
  // w i d e s t</w>. Pair counts: (e,s)=9 and (s,t</w>)=9 tie; subword-nmt takes the larger
  // pair as (left, right) strings, so s t</w> first; then e st</w> (9); l o (7); then three
  // pairs at 6 — (w,est</w>) (n,e) (e,w) — and the largest, w est</w>, wins; and so on.
  text::WordCounts counts = {{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}};
  text::BpeLearnOptions options;
  options.merges = 10;
  options.min_frequency = 1;
  std::vector<BpeMerge> merges = text::learn_bpe(counts, options);
  std::vector<BpeMerge> expected = {{"s", "t</w>"}, {"e", "st</w>"}, {"l", "o"},
                                    {"w", "est</w>"}, {"n", "e"},     {"ne", "west</w>"},
                                    {"lo", "w</w>"},  {"w", "i"},     {"wi", "d"},
                                    {"wid", "est</w>"}};
  CHECK(merges == expected);
}

TEST_CASE("bpe learner: stops at min_frequency and at the merge count", "[text][fast]") {
  text::WordCounts counts = {{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}};
  text::BpeLearnOptions options;
  options.merges = 100;
  options.min_frequency = 6;
  // Pairs of count ≥ 6: s t</w>, e st</w>, l o, w est</w>, n e, ne west</w>; then 5 (lo w</w>).
  CHECK(text::learn_bpe(counts, options).size() == 6);
  options.min_frequency = 1;
  options.merges = 3;
  CHECK(text::learn_bpe(counts, options).size() == 3);
  // Every word becomes one symbol, then nothing is left to merge.
  options.merges = 1000;
  auto all = text::learn_bpe(counts, options);
  CHECK(all.size() < 1000);
  CHECK(all.back().left + all.back().right == "lower</w>");
  options.min_frequency = 0;
  CHECK_THROWS_AS(text::learn_bpe(counts, options), ConfigError);
}

TEST_CASE("bpe learner: repeated symbols merge without overlap", "[text][fast]") {
  // a a a a</w>: (a,a) counts 2 (overlapping occurrences count per position), (a,a</w>) 1.
  // Merging left to right without overlap gives aa a a</w>; then (aa,a) and (a,a</w>) tie at
  // 1 and the larger pair, (aa, a), wins.
  text::WordCounts counts = {{"aaaa", 1}};
  text::BpeLearnOptions options;
  options.merges = 2;
  options.min_frequency = 1;
  auto merges = text::learn_bpe(counts, options);
  REQUIRE(merges.size() == 2);
  CHECK(merges[0] == BpeMerge{"a", "a"});       // count 2 beats (a, a</w>) with 1
  CHECK(merges[1] == BpeMerge{"aa", "a"});
}
