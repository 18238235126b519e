#include "heed/text/bpe.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <thread>

#include "heed/common/error.h"
#include "support/temp_dir.h"

using namespace heed;
using text::Bpe;
using text::BpeCodes;
using text::BpeOptions;

namespace {

// The first ten merges subword-nmt 0.2 learns from low×5 lower×2 newest×6 widest×3 (worked out
// by hand in bpe_learner_test.cpp). Ranks 0–9.
const char* kToyCodes =
    "#version: 0.2\n"
    "s t</w>\ne st</w>\nl o\nw est</w>\nn e\nne west</w>\nlo w</w>\nw i\nwi d\nwid est</w>\n";

using V = std::vector<std::string>;

V encode(const Bpe& bpe, std::string_view word, Rng* rng = nullptr) {
  V pieces;
  bpe.encode(word, pieces, rng);
  return pieces;
}

std::string join(const V& pieces) {
  std::string out;
  for (const auto& p : pieces) out += p;
  return out;
}

BpeOptions with_dropout(float p) {
  BpeOptions options;
  options.dropout = p;
  return options;
}

}  // namespace

TEST_CASE("bpe: segmentation follows merge ranks (subword-nmt 0.2, by hand)", "[text][fast]") {
  Bpe bpe(BpeCodes::parse(kToyCodes, "toy"));
  // Training words become one piece: n e w e s t</w> → … st</w> → est</w> → west</w> (rank 3
  // beats n e, rank 4) → ne west</w> → newest</w>, printed without "</w>".
  CHECK(encode(bpe, "low") == V{"low"});
  CHECK(encode(bpe, "newest") == V{"newest"});
  CHECK(encode(bpe, "widest") == V{"widest"});
  // Unseen words. lowest: l o w e s t</w> → l o w e st</w> → l o w est</w> → lo w est</w>
  // → lo west</w>; "lo west</w>" is no merge.
  CHECK(encode(bpe, "lowest") == V{"lo", "west"});
  CHECK(encode(bpe, "newer") == V{"ne", "w", "e", "r"});
  CHECK(encode(bpe, "wider") == V{"wid", "e", "r"});
  CHECK(encode(bpe, "lows") == V{"lo", "w", "s"});  // "w s</w>": lo w</w> needs the end
  CHECK(encode(bpe, "test") == V{"t", "est"});
  // "s t</w>" only merges at the end of a word: inside, "s t" is another pair.
  CHECK(encode(bpe, "stop") == V{"s", "t", "o", "p"});
  CHECK(encode(bpe, "st") == V{"st"});
  // Characters the codes never mention stay single pieces; multi-byte characters stay whole.
  CHECK(encode(bpe, "løwé") == V{"l", "ø", "w", "é"});
  CHECK(encode(bpe, "x") == V{"x"});
  CHECK(encode(bpe, "").empty());
  // Pieces are appended.
  V pieces{"before"};
  bpe.encode("lowest", pieces);
  CHECK(pieces == V{"before", "lo", "west"});
  // The view overload gives the same pieces, pointing into the word.
  const std::string word = "lowest";
  std::vector<std::string_view> views;
  bpe.encode(word, views);
  REQUIRE(views.size() == 2);
  CHECK(views[0] == "lo");
  CHECK(views[1] == "west");
  CHECK(views[1].data() == word.data() + 2);
}

TEST_CASE("bpe: same output as subword-nmt apply_bpe on a small golden", "[text][fast]") {
  // Codes learnt by subword-nmt 0.3.8 learn_bpe.py (-s 40 --min-frequency 2) from the corpus
  // in bpe_learner_test.cpp, and the segmentations its apply_bpe.py printed (git 92d6139).
  // Covers overlapping repeats (a a a → aa a), a word-final merge, multi-byte characters.
  const char* codes =
      "#version: 0.2\na n\nt h\ni s\nth e\na a\nm is\nb an\ns i\nan a</w>\na a</w>\n日 本</w>\n"
      "ï v\nïv e</w>\nth e</w>\nn a\nna ïve</w>\nmis si\nc a\nca f\nban ana</w>\naa aa</w>\n";
  Bpe bpe(BpeCodes::parse(codes, "golden"));
  CHECK(encode(bpe, "banana") == V{"banana"});
  CHECK(encode(bpe, "bandanas") == V{"ban", "d", "an", "a", "s"});
  CHECK(encode(bpe, "mississippi") == V{"mis", "s", "is", "si", "p", "p", "i"});
  CHECK(encode(bpe, "misses") == V{"mis", "s", "e", "s"});
  CHECK(encode(bpe, "aaaaa") == V{"aa", "aa", "a"});
  CHECK(encode(bpe, "aaaaaaa") == V{"aa", "aa", "aa", "a"});
  CHECK(encode(bpe, "cafés") == V{"caf", "é", "s"});
  CHECK(encode(bpe, "naïveté") == V{"na", "ïv", "e", "t", "é"});
  CHECK(encode(bpe, "日本語") == V{"日", "本", "語"});
  CHECK(encode(bpe, "themes") == V{"the", "m", "e", "s"});
  CHECK(encode(bpe, "the") == V{"the"});
  CHECK(encode(bpe, "b") == V{"b"});
  CHECK(encode(bpe, "bananarama") == V{"ban", "an", "a", "r", "a", "m", "a"});
}

TEST_CASE("bpe: version 0.1 codes use a separate end-of-word symbol", "[text][fast]") {
  // No header: version 0.1, as subword-nmt reads it. "</w>" is a symbol of its own, so
  // "e r" applies at the end of a word too, and "er </w>" makes a word-final piece.
  // (Checked against subword-nmt 0.3.8 apply_bpe.py.)
  Bpe v01(BpeCodes::parse("l o\nlo w\nlow </w>\ne r\ner </w>\n", "v01"));
  CHECK(v01.codes().version() == text::BpeVersion::k01);
  CHECK(encode(v01, "low") == V{"low"});
  CHECK(encode(v01, "lows") == V{"low", "s"});
  CHECK(encode(v01, "lower") == V{"low", "er"});
  CHECK(encode(v01, "err") == V{"er", "r"});
  CHECK(encode(v01, "r") == V{"r"});
  // The same merge in a 0.2 file never matches the last character, which is "r</w>".
  Bpe v02(BpeCodes::parse("#version: 0.2\ne r\n", "v02"));
  CHECK(encode(v02, "lower") == V{"l", "o", "w", "e", "r"});
  CHECK(encode(v02, "err") == V{"er", "r"});
  // A 0.1 file written back keeps its version.
  CHECK(v01.codes().to_string().rfind("#version: 0.1\n", 0) == 0);
}

TEST_CASE("bpe: a merge listed twice keeps its first rank", "[text][fast]") {
  // "a b" has rank 0, not 2, so it beats "b c" (rank 1): a b c d</w> → ab c d</w>.
  Bpe bpe(BpeCodes::parse("#version: 0.2\na b\nb c\na b\n", "dup"));
  CHECK(encode(bpe, "abcd") == V{"ab", "c", "d"});
  Bpe once(BpeCodes::parse("#version: 0.2\nb c\na b\n", "once"));
  CHECK(encode(once, "abcd") == V{"a", "bc", "d"});
}

TEST_CASE("bpe: codes file round trip and errors with line numbers", "[text][fast]") {
  test::TempDir dir;
  BpeCodes codes = BpeCodes::parse(kToyCodes, "toy");
  REQUIRE(codes.merges().size() == 10);
  CHECK(codes.version() == text::BpeVersion::k02);
  CHECK(codes.merges()[0] == text::BpeMerge{"s", "t</w>"});
  CHECK(codes.merges()[3] == text::BpeMerge{"w", "est</w>"});
  codes.save(dir.path("codes"));
  BpeCodes back = BpeCodes::load(dir.path("codes"));
  CHECK(back.merges() == codes.merges());
  CHECK(back.version() == codes.version());
  CHECK(back.to_string() == kToyCodes);
  CHECK(BpeCodes(codes.merges()).to_string() == kToyCodes);  // 0.2 by default
  // CRLF line ends and blank lines are accepted.
  CHECK(BpeCodes::parse("#version: 0.2\r\na b\r\n\r\nab c\r\n", "crlf").merges() ==
        std::vector<text::BpeMerge>{{"a", "b"}, {"ab", "c"}});
  CHECK(BpeCodes::parse("", "empty").merges().empty());
  // A symbol never ends in CR, so to_string() reads back (found by tests/fuzz/bpe_fuzz.cpp).
  const BpeCodes doubled = BpeCodes::parse("a b\r\r\nc\rd e\r\r\r", "doubled");
  CHECK(doubled.merges() == std::vector<text::BpeMerge>{{"a", "b"}, {"c\rd", "e"}});
  CHECK(BpeCodes::parse(doubled.to_string(), "back").merges() == doubled.merges());
  CHECK_THROWS_AS(BpeCodes::parse("# \r\r", "c.txt"), FormatError);

  CHECK_THROWS_AS(BpeCodes::load(dir.path("absent")), FileError);
  CHECK_THROWS_AS(codes.save(dir.path("no/such/dir/codes")), WriteError);
  CHECK_THROWS_AS(BpeCodes::parse("a\n", "c.txt"), FormatError);
  CHECK_THROWS_WITH(BpeCodes::parse("#version: 0.2\na b\nabc\n", "c.txt"),
                    "c.txt:3: expected a merge 'LEFT RIGHT' (two symbols, one space)");
  CHECK_THROWS_WITH(BpeCodes::parse("a b c\n", "c.txt"), Catch::StartsWith("c.txt:1: expected"));
  CHECK_THROWS_WITH(BpeCodes::parse("a b\n a\n", "c.txt"), Catch::StartsWith("c.txt:2: expected"));
  CHECK_THROWS_WITH(BpeCodes::parse("a b\nb \n", "c.txt"), Catch::StartsWith("c.txt:2: expected"));
  CHECK_THROWS_WITH(BpeCodes::parse("#version: 0.3\n", "c.txt"),
                    "c.txt:1: unsupported BPE codes version '0.3' (expected 0.1 or 0.2)");
  CHECK_THROWS_WITH(BpeCodes::parse("#version: 0.2 byte\n", "c.txt"),
                    Catch::Contains("unsupported BPE codes version '0.2 byte'"));
}

TEST_CASE("bpe: codes that are not text are refused; a byte order mark is not a symbol",
          "[text][fast]") {
  CHECK_THROWS_AS(BpeCodes::parse("#version: 0.2\na b\n\xE9 t\n", "c.txt"), FormatError);
  CHECK_THROWS_WITH(BpeCodes::parse("#version: 0.2\na b\n\xE9 t\n", "c.txt"),
                    "c.txt:3: invalid UTF-8 at byte 1");
  CHECK_THROWS_WITH(BpeCodes::parse(std::string("a b\nc\0 d\n", 9), "c.txt"),
                    "c.txt:2: NUL byte at byte 2");
  // The header is still seen behind a BOM, and no merge starts with one.
  const BpeCodes codes = BpeCodes::parse("\xEF\xBB\xBF#version: 0.2\nw o\n", "bom");
  CHECK(codes.version() == text::BpeVersion::k02);
  CHECK(codes.merges() == std::vector<text::BpeMerge>{{"w", "o"}});
  CHECK(BpeCodes::parse("\xEF\xBB\xBF"
                        "a b\n",
                        "bom")
            .merges() == std::vector<text::BpeMerge>{{"a", "b"}});
}

TEST_CASE("bpe: dropout 0 is plain BPE, dropout 1 gives characters", "[text][fast]") {
  const BpeCodes codes = BpeCodes::parse(kToyCodes, "toy");
  Bpe plain(codes);
  Bpe zero(codes, with_dropout(0.0f));
  Bpe all(codes, with_dropout(1.0f));
  Rng rng = make_rng(1);
  for (const char* word : {"low", "lowest", "newest", "widest", "wider", "løwé"}) {
    CHECK(encode(zero, word, &rng) == encode(plain, word));
  }
  CHECK(encode(all, "newest", &rng) == V{"n", "e", "w", "e", "s", "t"});
  CHECK(encode(all, "løwé", &rng) == V{"l", "ø", "w", "é"});
  // Without an rng, dropout does not apply (inference).
  CHECK(encode(all, "newest") == V{"newest"});
  CHECK_THROWS_AS(Bpe(codes, with_dropout(1.5f)), ConfigError);
  CHECK_THROWS_AS(Bpe(codes, with_dropout(-0.1f)), ConfigError);
  CHECK_THROWS_AS(Bpe(codes, with_dropout(std::nanf(""))), ConfigError);
}

TEST_CASE("bpe: dropout is deterministic for a seed and drops merges at the given rate",
          "[text][fast]") {
  const BpeCodes codes = BpeCodes::parse(kToyCodes, "toy");
  Bpe half(codes, with_dropout(0.5f));
  Rng a = make_rng(42), b = make_rng(42);
  std::set<V> seen;
  for (int i = 0; i < 200; ++i) {
    const V x = encode(half, "newest", &a);
    CHECK(x == encode(half, "newest", &b));
    CHECK(join(x) == "newest");
    seen.insert(x);
  }
  CHECK(seen.size() > 3);
  Rng c = make_rng(43);
  a = make_rng(42);
  V from_a, from_c;
  for (int i = 0; i < 20; ++i) {
    for (const auto& p : encode(half, "widest", &a)) from_a.push_back(p);
    for (const auto& p : encode(half, "widest", &c)) from_c.push_back(p);
  }
  CHECK(from_a != from_c);

  // "s t" has a single candidate: at the first step it survives with probability 1 - p, and a
  // step without candidates ends the segmentation (as in subword-nmt).
  Bpe single(BpeCodes::parse("#version: 0.2\ns t</w>\n", "one"), with_dropout(0.25f));
  Rng rng = make_rng(7);
  int merged = 0;
  const int trials = 20000;
  for (int i = 0; i < trials; ++i) merged += encode(single, "st", &rng).size() == 1 ? 1 : 0;
  CHECK(std::abs(static_cast<double>(merged) / trials - 0.75) < 0.015);
}

TEST_CASE("bpe: the word cache gives the same answers from two threads", "[text][fast]") {
  const BpeCodes codes = BpeCodes::parse(kToyCodes, "toy");
  BpeOptions no_cache;
  no_cache.cache_size = 0;
  BpeOptions tiny_cache;
  tiny_cache.cache_size = 100;  // shards fill up and are emptied again
  Bpe reference(codes, no_cache);
  Bpe cached(codes);
  Bpe tiny(codes, tiny_cache);
  // Words from the letters of the codes, so that many merges apply.
  std::vector<std::string> words;
  const std::string letters = "lowenstid";
  Rng rng = make_rng(3);
  for (int i = 0; i < 3000; ++i) {
    std::string w;
    const size_t n = 1 + rng() % 9;
    for (size_t k = 0; k < n; ++k) w += letters[rng() % letters.size()];
    words.push_back(w);
  }
  std::vector<V> expected;
  for (const auto& w : words) expected.push_back(encode(reference, w));
  bool same[2] = {true, true};
  auto work = [&](int t) {
    for (int round = 0; round < 5; ++round) {
      for (size_t i = 0; i < words.size(); ++i) {
        const size_t k = t == 0 ? i : words.size() - 1 - i;
        same[t] = same[t] && encode(cached, words[k]) == expected[k] &&
                  encode(tiny, words[k]) == expected[k];
      }
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  CHECK(same[0]);
  CHECK(same[1]);
  // Two instances with different codes never see each other's cached words.
  Bpe none(BpeCodes::parse("#version: 0.2\n", "none"));
  CHECK(encode(cached, "newest") == V{"newest"});
  CHECK(encode(none, "newest") == V{"n", "e", "w", "e", "s", "t"});
  CHECK(encode(cached, "newest") == V{"newest"});
}

TEST_CASE("bpe: possible pieces hold every piece a dropout draw gives, and no other text",
          "[text][fast]") {
  const BpeCodes codes = BpeCodes::parse(kToyCodes, "toy");
  Bpe half(codes, with_dropout(0.5f));
  Rng rng = make_rng(9);
  for (const char* word : {"newest", "widest", "lowest", "lower", "st", "tsst", "løwé"}) {
    std::vector<std::string_view> possible;
    half.possible_pieces(word, possible);
    std::set<std::pair<size_t, std::string>> places;  // (offset, piece)
    for (std::string_view piece : possible) {
      places.emplace(static_cast<size_t>(piece.data() - word), std::string(piece));
    }
    for (int draw = 0; draw < 300; ++draw) {
      size_t offset = 0;
      for (const std::string& piece : encode(half, word, &rng)) {
        CHECK(places.count({offset, piece}) == 1);
        offset += piece.size();
      }
    }
    // Plain BPE's pieces too.
    size_t offset = 0;
    for (const std::string& piece : encode(half, word)) {
      CHECK(places.count({offset, piece}) == 1);
      offset += piece.size();
    }
  }
  // "st" merges only at the end of a word (s t</w>): inside "tsst" it is no piece.
  std::vector<std::string_view> pieces;
  half.possible_pieces("stt", pieces);
  CHECK(std::find(pieces.begin(), pieces.end(), "st") == pieces.end());
  pieces.clear();
  half.possible_pieces("tst", pieces);
  CHECK(std::find(pieces.begin(), pieces.end(), "st") != pieces.end());
  CHECK(std::find(pieces.begin(), pieces.end(), "tst") == pieces.end());  // no merge makes it
}
