// Links read off attention matrices made by hand: each method, subword merging, the </s> row.
#include "heed/align/extract.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;
using align::ExtractMethod;
using align::ExtractOptions;

namespace {

std::string links(const std::vector<std::vector<float>>& weights, const std::vector<int>& src,
                  const std::vector<int>& tgt, ExtractMethod method, float threshold = 0.5f) {
  ExtractOptions options;
  options.method = method;
  options.threshold = threshold;
  return align::to_pharaoh(align::extract_links(weights, src, tgt, options));
}

// Three source words, three target words, one token each; rows 0–2 predict the target words,
// row 3 predicts </s>.
const std::vector<std::vector<float>> kWeights = {
    {0.70f, 0.20f, 0.10f},  // predicts target 0: looks at source 0
    {0.10f, 0.30f, 0.60f},  // predicts target 1: source 2 (0.3 on source 1)
    {0.05f, 0.55f, 0.40f},  // predicts target 2: source 1
    {0.10f, 0.10f, 0.80f},  // predicts </s>: source 2
};
const std::vector<int> kWords = {0, 1, 2};

}  // namespace

TEST_CASE("extract: argmax links each target word to the row's largest weight", "[align][fast]") {
  CHECK(links(kWeights, kWords, kWords, ExtractMethod::kArgmax) == "0-0 1-2 2-1");
  // Without the </s> row argmax is the same: that row aligns no target word.
  const std::vector<std::vector<float>> rows(kWeights.begin(), kWeights.begin() + 3);
  CHECK(links(rows, kWords, kWords, ExtractMethod::kArgmax) == "0-0 1-2 2-1");
}

TEST_CASE("extract: threshold keeps every weight at least P", "[align][fast]") {
  // ≥ 0.5: (0,0) 0.70, (2,1) 0.60, (1,2) 0.55.
  CHECK(links(kWeights, kWords, kWords, ExtractMethod::kThreshold, 0.5f) == "0-0 1-2 2-1");
  // ≥ 0.3 adds (1,1) 0.30 and (2,2) 0.40; 0.2 adds (1,0) 0.20 as well.
  CHECK(links(kWeights, kWords, kWords, ExtractMethod::kThreshold, 0.3f) == "0-0 1-1 1-2 2-1 2-2");
  CHECK(links(kWeights, kWords, kWords, ExtractMethod::kThreshold, 0.2f) ==
        "0-0 1-0 1-1 1-2 2-1 2-2");
}

TEST_CASE("extract: shift reads the row after the word, the last word the </s> row",
          "[align][fast]") {
  // Target 0 ← row 1 (source 2), target 1 ← row 2 (source 1), target 2 ← row 3 (source 2).
  CHECK(links(kWeights, kWords, kWords, ExtractMethod::kShift) == "1-1 2-0 2-2");
  // Without the </s> row the last target word gets no link.
  const std::vector<std::vector<float>> rows(kWeights.begin(), kWeights.begin() + 3);
  CHECK(links(rows, kWords, kWords, ExtractMethod::kShift) == "1-1 2-0");
}

TEST_CASE("extract: subword links are merged into word links", "[align][fast]") {
  // Source tokens "the ho￭ use" = words 0 1 1; target tokens "das Ha￭ us" = words 0 1 1.
  const std::vector<std::vector<float>> weights = {
      {0.8f, 0.1f, 0.1f},  // das → the
      {0.1f, 0.6f, 0.3f},  // Ha￭ → ho￭
      {0.1f, 0.2f, 0.7f},  // us → use
      {0.3f, 0.3f, 0.4f},  // </s>
  };
  const std::vector<int> words = {0, 1, 1};
  // Both subwords of Haus link to word 1 of the source: one link, not two.
  CHECK(links(weights, words, words, ExtractMethod::kArgmax) == "0-0 1-1");
  // Shift: das ← row 1 (ho￭: word 1), Ha￭ ← row 2 (use: word 1), us ← row 3 (use).
  CHECK(links(weights, words, words, ExtractMethod::kShift) == "1-0 1-1");
}

TEST_CASE("extract: names and options are checked", "[align][fast]") {
  CHECK(align::parse_extract_method("shift") == ExtractMethod::kShift);
  CHECK_THROWS_WITH(align::parse_extract_method("max"), Catch::Contains("argmax, threshold"));
  ExtractOptions options;
  options.method = ExtractMethod::kThreshold;
  options.threshold = 0.f;
  CHECK_THROWS_AS(options.validate(), ConfigError);
  options.threshold = 1.f;
  CHECK_NOTHROW(options.validate());
  // No source tokens: no links.
  CHECK(align::extract_links({{}, {}}, {}, {0}, ExtractOptions{}).empty());
}
