#include "heed/text/bpe.h"

#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "heed/common/error.h"
#include "support/temp_dir.h"

using namespace heed;
using text::Bpe;
using text::BpeCodes;

namespace {
// The ten merges subword-nmt 0.2 learns from low×5 lower×2 newest×6 widest×3 (checked by hand
// in bpe_learner_test.cpp).
const char* kToyCodes =
    "#version: 0.2\ns t</w>\ne st</w>\nl o\nw est</w>\nn e\nne west</w>\nlo w</w>\nw i\nwi d\n"
    "wid est</w>\n";

std::vector<std::string> encode(const Bpe& bpe, std::string_view word, Rng* rng = nullptr) {
  std::vector<std::string> pieces;
  bpe.encode(word, pieces, rng);
  return pieces;
}
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("bpe: segmentation follows merge ranks (subword-nmt 0.2)", "[text][fast]") {
  Bpe bpe(BpeCodes::parse(kToyCodes, "toy"));
  CHECK(encode(bpe, "low") == V{"low"});
  CHECK(encode(bpe, "newest") == V{"newest"});
  CHECK(encode(bpe, "widest") == V{"widest"});
  // Unseen words: lowest → l o w e s t</w> → … → lo west</w>, and "lo west" is no merge.
  CHECK(encode(bpe, "lowest") == V{"lo", "west"});
  CHECK(encode(bpe, "newer") == V{"ne", "w", "e", "r"});
  CHECK(encode(bpe, "wider") == V{"wid", "e", "r"});
  // Characters never seen in the codes stay single symbols; multi-byte characters are kept whole.
  CHECK(encode(bpe, "løwé") == V{"l", "ø", "w", "é"});
  CHECK(encode(bpe, "x") == V{"x"});
  CHECK(encode(bpe, "").empty());
}

TEST_CASE("bpe: version 0.1 codes use a separate end-of-word symbol", "[text][fast]") {
  Bpe bpe(BpeCodes::parse("l o\nlo w\nlow </w>\n", "v01"));
  CHECK(bpe.codes().version() == text::BpeVersion::k01);
  CHECK(encode(bpe, "low") == V{"low"});
  CHECK(encode(bpe, "lows") == V{"low", "s"});
}

TEST_CASE("bpe: codes file round trip and errors with line numbers", "[text][fast]") {
  test::TempDir dir;
  BpeCodes codes = BpeCodes::parse(kToyCodes, "toy");
  REQUIRE(codes.merges().size() == 10);
  CHECK(codes.merges()[3] == text::BpeMerge{"w", "est</w>"});
  codes.save(dir.path("codes"));
  BpeCodes back = BpeCodes::load(dir.path("codes"));
  CHECK(back.merges() == codes.merges());
  CHECK(back.to_string() == kToyCodes);
  CHECK_THROWS_AS(BpeCodes::load(dir.path("absent")), FileError);
  CHECK_THROWS_WITH(BpeCodes::parse("#version: 0.2\na b\nabc\n", "c.txt"),
                    "c.txt:3: expected a merge 'LEFT RIGHT' (two symbols, one space)");
  CHECK_THROWS_WITH(BpeCodes::parse("a b c\n", "c.txt"), Catch::StartsWith("c.txt:1:"));
  CHECK_THROWS_WITH(BpeCodes::parse("#version: 0.3\n", "c.txt"),
                    Catch::Contains("unsupported BPE codes version"));
}

TEST_CASE("bpe: dropout 0 equals plain BPE; near 1 gives characters; seeded", "[text][fast]") {
  Bpe plain(BpeCodes::parse(kToyCodes, "toy"));
  text::BpeOptions half;
  half.dropout = 0.5f;
  Bpe dropped(BpeCodes::parse(kToyCodes, "toy"), half);
  text::BpeOptions almost_all;
  almost_all.dropout = 0.999999f;
  Bpe chars(BpeCodes::parse(kToyCodes, "toy"), almost_all);
  Rng rng = make_rng(1);
  CHECK(encode(chars, "newest", &rng) == V{"n", "e", "w", "e", "s", "t"});
  // Without an rng, dropout does not apply (inference).
  CHECK(encode(dropped, "newest") == V{"newest"});
  // Same seed, same segmentations; different segmentations appear across draws.
  Rng a = make_rng(42), b = make_rng(42);
  std::set<V> seen;
  for (int i = 0; i < 50; ++i) {
    V x = encode(dropped, "newest", &a);
    CHECK(x == encode(dropped, "newest", &b));
    std::string joined;
    for (const auto& p : x) joined += p;
    CHECK(joined == "newest");
    seen.insert(x);
  }
  CHECK(seen.size() > 3);
  CHECK_THROWS_AS(Bpe(BpeCodes(), text::BpeOptions{1.0f}), ConfigError);
}

TEST_CASE("bpe: the word cache gives the same answers from two threads", "[text][fast]") {
  Bpe bpe(BpeCodes::parse(kToyCodes, "toy"));
  const std::vector<std::string> words = {"low", "lowest", "newer", "wider", "newest", "widest"};
  std::vector<V> expected;
  for (const auto& w : words) expected.push_back(encode(bpe, w));
  bool same[2] = {true, true};
  auto work = [&](int t) {
    for (int round = 0; round < 2000; ++round) {
      for (size_t i = 0; i < words.size(); ++i) same[t] = same[t] && encode(bpe, words[i]) == expected[i];
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  CHECK(same[0]);
  CHECK(same[1]);
}
