#include "heed/text/bpe_learner.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;
using text::BpeMerge;
using Merges = std::vector<BpeMerge>;

namespace {

text::BpeLearnOptions learn_options(int merges, long long min_frequency) {
  text::BpeLearnOptions options;
  options.merges = merges;
  options.min_frequency = min_frequency;
  return options;
}

const text::WordCounts kToy = {{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}};

}  // namespace

TEST_CASE("bpe learner: the toy corpus of Sennrich et al. 2016, checked by hand", "[text][fast]") {
  // As symbols: l o w</w> ×5 | l o w e r</w> ×2 | n e w e s t</w> ×6 | w i d e s t</w> ×3.
  // Pair counts: e s 9, s t</w> 9, w e 8, l o 7, n e 6, e w 6, o w</w> 5, w i 3, i d 3, d e 3,
  // o w 2, e r</w> 2.
  //  1. e s and s t</w> tie at 9: the larger pair wins, "s" > "e"          → s t</w>
  //  2. e st</w> 9 (e s is gone)                                          → e st</w>
  //  3. w e has dropped to 2 (only lower); l o 7                          → l o
  //  4. w est</w>, n e, e w tie at 6: "w" > "n" > "e"                     → w est</w>
  //  5. n e and e west</w> tie at 6: "n" > "e"                            → n e
  //  6. ne west</w> 6; 7. lo w</w> 5
  //  8. w i, i d, d est</w> tie at 3: "w" first; 9. wi d 3; 10. wid est</w> 3
  // 11. lo w, w e, e r</w> tie at 2: "w" > "lo" > "e" → w e; 12. we r</w>; 13. lo wer</w>.
  const Merges all = {{"s", "t</w>"},   {"e", "st</w>"},    {"l", "o"},      {"w", "est</w>"},
                      {"n", "e"},       {"ne", "west</w>"}, {"lo", "w</w>"}, {"w", "i"},
                      {"wi", "d"},      {"wid", "est</w>"}, {"w", "e"},      {"we", "r</w>"},
                      {"lo", "wer</w>"}};
  CHECK(text::learn_bpe(kToy, learn_options(100, 1)) == all);
  CHECK(text::learn_bpe(kToy, learn_options(100, 2)) == all);  // the default min_frequency
  // The codes then give every training word back as one piece.
  text::Bpe bpe{text::BpeCodes(all)};
  for (const auto& entry : kToy) {
    std::vector<std::string> pieces;
    bpe.encode(entry.first, pieces);
    CHECK(pieces == std::vector<std::string>{entry.first});
  }
}

TEST_CASE("bpe learner: stops at min_frequency and at the merge count", "[text][fast]") {
  // Frequencies of the merges above: 9 9 7 6 6 6 5 3 3 3 2 2 2.
  CHECK(text::learn_bpe(kToy, learn_options(100, 6)).size() == 6);
  CHECK(text::learn_bpe(kToy, learn_options(100, 3)).size() == 10);
  CHECK(text::learn_bpe(kToy, learn_options(100, 10)).empty());
  const Merges three = text::learn_bpe(kToy, learn_options(3, 1));
  CHECK(three == Merges{{"s", "t</w>"}, {"e", "st</w>"}, {"l", "o"}});
  CHECK(text::learn_bpe(kToy, learn_options(0, 1)).empty());
  CHECK(text::learn_bpe({}, learn_options(10, 1)).empty());
  CHECK_THROWS_AS(text::learn_bpe(kToy, learn_options(10, 0)), ConfigError);
  CHECK_THROWS_AS(text::learn_bpe(kToy, learn_options(-1, 1)), ConfigError);
}

TEST_CASE("bpe learner: repeated symbols count per position and merge without overlap",
          "[text][fast]") {
  // a a a a</w>: (a,a) occurs at two positions, count 2; (a,a</w>) 1. Merging left to right
  // without overlap gives aa a a</w>; then (aa,a) and (a,a</w>) tie at 1 and the larger pair
  // wins ("aa" > "a"): aaa a</w>, then aaaa</w>.
  const Merges merges = text::learn_bpe({{"aaaa", 1}}, learn_options(10, 1));
  CHECK(merges == Merges{{"a", "a"}, {"aa", "a"}, {"aaa", "a</w>"}});
}

TEST_CASE("bpe learner: ties compare code points; the result ignores the map's order",
          "[text][fast]") {
  // 日 本 日 本</w> ×2: (日,本), (本,日), (日,本</w>) all have 2. 本 U+672C > 日 U+65E5 (and so
  // byte-wise), so (本,日) first; then 本日 > 日: (本日,本</w>); then (日,本日本</w>).
  const Merges merges = text::learn_bpe({{"日本日本", 2}}, learn_options(10, 1));
  CHECK(merges == Merges{{"本", "日"}, {"本日", "本</w>"}, {"日", "本日本</w>"}});

  text::WordCounts forward, backward;
  backward.reserve(1000);
  const std::vector<std::pair<std::string, long long>> words = {
      {"abab", 3}, {"baba", 3}, {"abba", 3}, {"cab", 2}, {"bac", 2}, {"c", 9}, {"é", 1}};
  for (const auto& w : words) forward.insert(w);
  for (auto it = words.rbegin(); it != words.rend(); ++it) backward.insert(*it);
  CHECK(text::learn_bpe(forward, learn_options(50, 1)) ==
        text::learn_bpe(backward, learn_options(50, 1)));
}

TEST_CASE("bpe learner: same merges as subword-nmt learn_bpe on a small golden", "[text][fast]") {
  // Output of subword-nmt 0.3.8 learn_bpe.py -s 40 --min-frequency 2 (git 92d6139) on these
  // five lines; it stops after 21 merges ("no pair has frequency >= 2").
  text::WordCounts counts;
  text::add_words(
      "banana bandana band banana ananas\n"
      "mississippi miss mission missing kiss\n"
      "aaaa aaa aa a aaaa\n"
      "café caféine naïve naïve 日本 日本語 日本\n"
      "the then there these theme them the\n",
      counts);
  const Merges expected = {{"a", "n"},      {"t", "h"},      {"i", "s"},       {"th", "e"},
                           {"a", "a"},      {"m", "is"},     {"b", "an"},      {"s", "i"},
                           {"an", "a</w>"}, {"a", "a</w>"},  {"日", "本</w>"}, {"ï", "v"},
                           {"ïv", "e</w>"}, {"th", "e</w>"}, {"n", "a"},       {"na", "ïve</w>"},
                           {"mis", "si"},   {"c", "a"},      {"ca", "f"},      {"ban", "ana</w>"},
                           {"aa", "aa</w>"}};
  CHECK(text::learn_bpe(counts, learn_options(40, 2)) == expected);
}

TEST_CASE("bpe learner: words a codes file cannot hold are ignored", "[text][fast]") {
  const text::WordCounts counts = {{"a b", 50}, {"x\ny", 50}, {"", 50}, {"ab", 2}, {"zz", 0}};
  CHECK(text::learn_bpe(counts, learn_options(10, 1)) == Merges{{"a", "b</w>"}});
}
