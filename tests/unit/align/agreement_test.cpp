#include "heed/align/agreement.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;
using align::Link;

namespace {

// Source "a b￭c" (two words, the second of two subwords), target "x y".
align::SoftAlignment forward_pair() {
  align::SoftAlignment p;
  p.source = {"a", "b￭", "c"};
  p.target = {"x", "y"};
  p.source_words = {0, 1, 1};
  p.target_words = {0, 1};
  p.weights = {{0.8f, 0.1f, 0.1f}, {0.2f, 0.3f, 0.5f}, {0.3f, 0.3f, 0.4f}};  // last: </s>
  return p;
}

// The same pair the other way round: source "x y", target "a b￭c".
align::SoftAlignment reverse_pair() {
  align::SoftAlignment p;
  p.source = {"x", "y"};
  p.target = {"a", "b￭", "c"};
  p.source_words = {0, 1};
  p.target_words = {0, 1, 1};
  p.weights = {{0.9f, 0.1f}, {0.4f, 0.6f}, {0.2f, 0.8f}, {0.5f, 0.5f}};
  return p;
}

}  // namespace

TEST_CASE("agreement: word-level attention sums subword columns, averages subword rows",
          "[align][fast]") {
  const auto f = align::word_attention(forward_pair());  // [x, y][a, bc]
  REQUIRE(f.size() == 2);
  CHECK(f[0][0] == Approx(0.8));
  CHECK(f[0][1] == Approx(0.2));
  CHECK(f[1][1] == Approx(0.8));
  const auto r = align::word_attention(reverse_pair());  // [a, bc][x, y]
  REQUIRE(r.size() == 2);
  CHECK(r[0][0] == Approx(0.9));
  CHECK(r[1][0] == Approx(0.3));  // (0.4 + 0.2) / 2
  CHECK(r[1][1] == Approx(0.7));
}

TEST_CASE("agreement: the two directions combined cell by cell, worked by hand", "[align][fast]") {
  // Mean: a-x 0.85, a-y 0.15, bc-x 0.25, bc-y 0.75.
  align::AgreementOptions options;
  options.threshold = 0.5f;
  CHECK(align::agree(forward_pair(), reverse_pair(), options) ==
        align::Alignment{Link{0, 0}, Link{1, 1}});
  options.threshold = 0.2f;
  CHECK(align::agree(forward_pair(), reverse_pair(), options) ==
        align::Alignment{Link{0, 0}, Link{1, 0}, Link{1, 1}});
  // Geometric: a-x √0.72 ≈ 0.85, bc-x √0.06 ≈ 0.245, a-y √0.02 ≈ 0.14, bc-y √0.56 ≈ 0.75: a
  // link only one direction believes in counts for less than with the mean.
  options.combine = align::AgreementCombine::kGeometric;
  options.threshold = 0.25f;
  CHECK(align::agree(forward_pair(), reverse_pair(), options) ==
        align::Alignment{Link{0, 0}, Link{1, 1}});
}

TEST_CASE("agreement: mismatched pairs and bad options are refused", "[align][fast]") {
  align::SoftAlignment other = reverse_pair();
  other.source = {"x"};
  other.source_words = {0};
  for (auto& row : other.weights) row = {1.f};
  CHECK_THROWS_AS(align::agree(forward_pair(), other, {}), DataError);
  CHECK_THROWS_AS(align::parse_agreement_combine("max"), ConfigError);
  align::AgreementOptions options;
  options.threshold = 0.f;
  CHECK_THROWS_AS(options.validate(), ConfigError);
  options.threshold = 1.5f;
  CHECK_THROWS_AS(options.validate(), ConfigError);
}
