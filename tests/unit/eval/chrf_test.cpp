#include "heed/eval/chrf.h"

#include <catch2/catch.hpp>

#include "heed/eval/bootstrap.h"

using namespace heed;

TEST_CASE("chrf: hand-computed scores", "[eval][fast]") {
  CHECK(eval::corpus_chrf({"ab"}, {{"ab"}}) == Approx(100.0));
  // Orders 1–3 occur: precision = recall = (2/3 + 1/2 + 0) / 3, so F2 equals it.
  CHECK(eval::corpus_chrf({"abc"}, {{"abd"}}) == Approx(100.0 * (2.0 / 3 + 0.5) / 3));
  // Whitespace does not count; multi-byte characters count once.
  CHECK(eval::corpus_chrf({"a b\xc2\xa0"
                           "c"},
                          {{"abc"}}) == Approx(100.0));
  CHECK(eval::corpus_chrf({"été"}, {{"été"}}) == Approx(100.0));
  CHECK(eval::corpus_chrf({""}, {{"abc"}}) == 0.0);
  // The best of several references is used per segment.
  CHECK(eval::corpus_chrf({"abc"}, {{"xyz"}, {"abc"}}) == Approx(100.0));
  eval::ChrfOptions lc;
  lc.lowercase = true;
  CHECK(eval::corpus_chrf({"ÉTÉ"}, {{"été"}}, lc) == Approx(100.0));
}

TEST_CASE("bootstrap: identical systems are not significant, a better one is", "[eval][fast]") {
  // Statistics: [correct, total]; score = accuracy.
  auto accuracy = [](const eval::SegmentStats& s) { return 100.0 * s[0] / s[1]; };
  std::vector<eval::SegmentStats> base, same, better;
  for (int i = 0; i < 200; ++i) {
    base.push_back({i % 2 == 0 ? 1.0 : 0.0, 1.0});
    same.push_back(base.back());
    better.push_back({i % 10 == 0 ? 0.0 : 1.0, 1.0});
  }
  auto results = eval::paired_bootstrap({base, same, better}, accuracy, 500, 7);
  REQUIRE(results.size() == 3);
  CHECK(results[0].score == Approx(50.0));
  CHECK(results[0].p_value == 1.0);
  CHECK(results[1].p_value > 0.5);
  CHECK(results[2].score == Approx(90.0));
  CHECK(results[2].p_value < 0.01);
  CHECK(results[0].mean == Approx(50.0).margin(2.0));
  CHECK(results[0].ci > 1.0);
  CHECK(results[0].ci < 15.0);
  // Seeded: the same seed gives the same figures.
  auto again = eval::paired_bootstrap({base, same, better}, accuracy, 500, 7);
  CHECK(again[2].mean == results[2].mean);
}

TEST_CASE("chrf: repeated n-grams are clipped by the rarer side", "[eval][fast]") {
  // "aaa" against "aa": order 1 has 3 and 2 'a' (2 match), order 2 has 2 and 1 "aa" (1 match),
  // order 3 has one "aaa" and none, so its "aaa" is not counted either (sacreBLEU counts a
  // hypothesis's n-grams only where the reference has some); orders 4–6 nothing. Whitespace is
  // dropped first.
  const eval::ChrfStats want = {3, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(eval::chrf_segment_stats("a a\ta", {"aa"}) == want);
  // References prepared once serve every hypothesis, and give what unprepared ones give.
  const std::vector<std::string_view> refs = {"the cat sat", "a cat sat down"};
  const eval::ChrfReferences prepared = eval::chrf_references(refs);
  for (const char* hyp : {"the cat sat down", "cats", "", "tttt"}) {
    CHECK(eval::chrf_segment_stats(hyp, prepared) == eval::chrf_segment_stats(hyp, refs));
  }
  // The best reference wins: the second one matches "xyz" exactly.
  const eval::ChrfStats best = eval::chrf_segment_stats("xyz", {"abc", "xyz"});
  CHECK(eval::chrf_from_stats(best) == Approx(100.0));
}

TEST_CASE("chrf: chrF++ adds word n-grams, punctuation split off a word's end or start",
          "[eval][fast]") {
  eval::ChrfOptions plus;
  plus.word_order = 2;
  CHECK(eval::chrf_name(plus) == "chrF2++");
  CHECK(eval::chrf_name(eval::ChrfOptions()) == "chrF2");
  // "dog," is "dog" and ",": the words match "dog ," exactly, as do the characters.
  CHECK(eval::corpus_chrf({"a dog,"}, {{"a dog ,"}}, plus) == Approx(100.0));
  // Words differ where characters do not: the same characters, no word in common. The word
  // bigram order is left out (the reference has none), the unigrams' precision is 0.
  CHECK(eval::corpus_chrf({"abc def"}, {{"abcdef"}}) == Approx(100.0));
  CHECK(eval::corpus_chrf({"abc def"}, {{"abcdef"}}, plus) == Approx(100.0 * 6 / 7));
  // 12 orders' statistics: 6 of characters, then 2 of words.
  const std::vector<std::string_view> refs = {"a b"};
  CHECK(eval::chrf_segment_stats("a b", refs, plus).size() == 3 * 8);
}

TEST_CASE("chrf: a hypothesis's n-grams of an order the reference lacks are not counted",
          "[eval][fast]") {
  // sacreBLEU counts no hypothesis n-grams of an order where the reference has none: over a
  // corpus this changes the precision of the longer orders.
  const std::vector<std::string_view> refs = {"ab"};
  const eval::ChrfStats stats = eval::chrf_segment_stats("abcdef", refs);
  CHECK(stats[3 * 2] == 0.0);  // order 3: the reference has no trigram
  CHECK(stats[0] == 6.0);
}

TEST_CASE("bootstrap: NumpyDraws draws as numpy's default_rng", "[eval][fast]") {
  // np.random.default_rng(12345).bit_generator.random_raw() and .choice(4, size=12).
  eval::NumpyDraws raw(12345);
  CHECK(raw.next64() == 0x3a32b18db2ffc19dULL);
  eval::NumpyDraws draws(12345);
  std::vector<uint32_t> picks;
  for (int i = 0; i < 12; ++i) picks.push_back(draws.below(4));
  CHECK(picks == std::vector<uint32_t>{2, 0, 3, 1, 0, 3, 2, 2, 3, 1, 3, 1});
}
