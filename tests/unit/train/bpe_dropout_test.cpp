#include "heed/train/bpe_dropout.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "heed/common/error.h"
#include "heed/model/tokenizer_record.h"
#include "heed/text/bpe.h"

using namespace heed;
using train::BpeDropout;
using train::BpeDropoutOptions;
using train::Side;

namespace {

using Tokens = std::vector<std::string>;

const char* kCodes =
    "#version: 0.2\nl o\nlo w\ne r</w>\nlow er</w>\nn e\ne s\nes t</w>\nw i\nwi d\nne w\n"
    "new est</w>\nlo west</w>\nw est</w>\n";

const std::vector<std::string> kLines = {
    "lower newest widest", "Lowest, newer (wider) lowest!", "new lows",
    "neW west LOWER",      "the newest of the lower",       "widest lowest newest lower"};

std::map<std::string, std::string> recorded(const text::TokenizerOptions& tokenizer = {}) {
  std::map<std::string, std::string> extra;
  model::record_tokenizer({tokenizer, kCodes}, extra);
  return extra;
}

BpeDropoutOptions with(float p, uint64_t seed, int max_length = 0) {
  BpeDropoutOptions options;
  options.p = p;
  options.seed = seed;
  options.max_length = max_length;
  return options;
}

Tokens epoch_tokens(const BpeDropout& d, const std::string& text, int64_t epoch, size_t index,
                    Side side) {
  return d.sample(text, epoch, index, side);
}

}  // namespace

TEST_CASE("bpe-dropout: a segmentation depends on (seed, epoch, sentence, side) alone",
          "[train][fast]") {
  const BpeDropout a(recorded(), with(0.3f, 7)), b(recorded(), with(0.3f, 7));
  const BpeDropout other_seed(recorded(), with(0.3f, 8));
  const std::string text = "widest lowest newest lower newest widest lowest lower";
  int differs_epoch = 0, differs_seed = 0, differs_side = 0, differs_index = 0;
  for (int64_t epoch = 0; epoch < 20; ++epoch) {
    const Tokens x = epoch_tokens(a, text, epoch, 3, Side::kSource);
    // Drawn again, by another object, after other draws: the same.
    epoch_tokens(b, text, epoch + 1, 3, Side::kSource);
    CHECK(epoch_tokens(b, text, epoch, 3, Side::kSource) == x);
    CHECK(epoch_tokens(a, text, epoch, 3, Side::kSource) == x);
    differs_epoch += epoch_tokens(a, text, epoch + 1, 3, Side::kSource) != x;
    differs_seed += epoch_tokens(other_seed, text, epoch, 3, Side::kSource) != x;
    differs_side += epoch_tokens(a, text, epoch, 3, Side::kTarget) != x;
    differs_index += epoch_tokens(a, text, epoch, 4, Side::kSource) != x;
    // Every draw spells the text: detokenized, the same words.
    text::Tokenizer detok;
    CHECK(detok.detokenize(x) == text);
  }
  CHECK(differs_epoch > 10);
  CHECK(differs_seed > 10);
  CHECK(differs_side > 10);
  CHECK(differs_index > 10);
}

TEST_CASE("bpe-dropout: plain segmentation is heed-tokenize --bpe's, and p near 0 gives it",
          "[train][fast]") {
  text::TokenizerOptions cased;
  cased.case_feature = true;
  for (const text::TokenizerOptions& options : {text::TokenizerOptions{}, cased}) {
    const BpeDropout d(recorded(options), with(1e-7f, 3));
    const text::Tokenizer unsegmented(options);
    const text::Tokenizer bpe(
        options, std::make_shared<const text::Bpe>(text::BpeCodes::parse(kCodes, "c")));
    for (size_t i = 0; i < kLines.size(); ++i) {
      const std::string text = d.text_of(unsegmented.tokenize(kLines[i]), "train.src", 1);
      CHECK(d.plain(text) == bpe.tokenize(kLines[i]));
      CHECK(epoch_tokens(d, text, 5, i, Side::kTarget) == bpe.tokenize(kLines[i]));
    }
  }
}

TEST_CASE("bpe-dropout: every token drawn is in the possible tokens", "[train][fast]") {
  text::TokenizerOptions cased;
  cased.case_feature = true;
  text::TokenizerOptions aggressive;
  aggressive.mode = text::TokenizeMode::kAggressive;
  for (const text::TokenizerOptions& options : {text::TokenizerOptions{}, cased, aggressive}) {
    const BpeDropout d(recorded(options), with(0.5f, 11));
    const text::Tokenizer unsegmented(options);
    text::WordCounts possible;
    std::vector<std::string> texts;
    for (const std::string& line : kLines) {
      texts.push_back(d.text_of(unsegmented.tokenize(line), "train.src", 1));
      d.add_possible_tokens(texts.back(), possible);
    }
    // A vocabulary built from them (as the corpus builds it) maps nothing drawn to <unk>.
    text::VocabOptions all;
    all.min_count = 0;
    const text::Vocab vocab = text::Vocab::from_counts(possible, all);
    size_t missing = 0, drawn = 0;
    for (int64_t epoch = 0; epoch < 50; ++epoch) {
      for (size_t i = 0; i < texts.size(); ++i) {
        for (const std::string& token : epoch_tokens(d, texts[i], epoch, i, Side::kSource)) {
          ++drawn;
          if (vocab.id(token) == text::Vocab::kUnkId) {
            ++missing;
            UNSCOPED_INFO("not in the vocabulary: " << token);
          }
        }
      }
    }
    CHECK(drawn > 0);
    CHECK(missing == 0);
  }
}

TEST_CASE("bpe-dropout: epochs are the same for any thread count and for a resumed process",
          "[train][fast]") {
  const BpeDropout d(recorded(), with(0.4f, 5));
  std::vector<std::string> src, tgt;
  const text::Tokenizer unsegmented;
  text::WordCounts counts;
  for (int copy = 0; copy < 100; ++copy) {
    for (const std::string& line : kLines) {
      src.push_back(d.text_of(unsegmented.tokenize(line), "s", 1));
      tgt.push_back(src.back());
      d.add_possible_tokens(src.back(), counts);
    }
  }
  text::VocabOptions all;
  all.min_count = 0;
  const text::Vocab vocab = text::Vocab::from_counts(counts, all);
  BpeDropout one(recorded(), with(0.4f, 5));
  one.set_pairs(src, tgt);
  // An uninterrupted run draws epochs 0, 1, 2; a process resumed in epoch 2 draws only it.
  long long kept = -1;
  one.epoch(0, vocab, vocab, 1);
  const auto e1 = one.epoch(1, vocab, vocab, 1);
  const auto e2 = one.epoch(2, vocab, vocab, 1, &kept);
  CHECK(kept == 0);  // no --max-length
  BpeDropout resumed(recorded(), with(0.4f, 5));
  resumed.set_pairs(src, tgt);
  const auto r2 = resumed.epoch(2, vocab, vocab, 2);
  REQUIRE(r2.size() == e2.size());
  size_t same_as_before = 0, same_as_target = 0;
  for (size_t i = 0; i < e2.size(); ++i) {
    CHECK(r2[i].src == e2[i].src);
    CHECK(r2[i].tgt == e2[i].tgt);
    same_as_before += e1[i].src == e2[i].src;
    // The same text as source and target, drawn from different streams.
    same_as_target += e2[i].src == e2[i].tgt;
  }
  CHECK(same_as_before < e2.size() / 2);
  CHECK(same_as_target < e2.size() / 2);

  // --max-length 6: a side drawn longer keeps its plain segmentation (which the corpus's length
  // filter would have dropped when longer still; here it is kept), and is counted.
  BpeDropout limited(recorded(), with(0.4f, 5, 6));
  limited.set_pairs(src, tgt);
  const auto l2 = limited.epoch(2, vocab, vocab, 1, &kept);
  long long longer = 0;
  for (size_t i = 0; i < l2.size(); ++i) {
    const size_t plain = d.plain(src[i]).size();
    if (e2[i].src.size() > 6) {
      ++longer;
      CHECK(l2[i].src.size() == plain);
    } else {
      CHECK(l2[i].src == e2[i].src);
    }
    if (e2[i].tgt.size() > 6) ++longer;
  }
  CHECK(longer > 0);
  CHECK(kept == longer);
}

TEST_CASE("bpe-dropout: BPE-segmented text is refused naming file, line and token",
          "[train][fast]") {
  const BpeDropout d(recorded(), with(0.1f, 1));
  CHECK(d.text_of({"the", "lowest", "￭!"}, "train.src", 3) == "the lowest!");
  CHECK_THROWS_WITH(d.text_of({"the", "lo￭", "west"}, "train.src", 7),
                    Catch::StartsWith("train.src:7: token 2 'lo￭' is a BPE piece") &&
                        Catch::Contains("'lowest'") && Catch::Contains("not BPE-segmented"));
  // Another tokenization (a joiner where heed's tokenizer puts none, or none where it puts
  // one) is named as such.
  CHECK_THROWS_WITH(d.text_of({"the", "lowest￭", "!"}, "train.src", 2),
                    Catch::StartsWith("train.src:2: token 2 'lowest￭' is not what the tokenizer "
                                      "writes there ('lowest')"));
  CHECK_THROWS_WITH(d.text_of({"a", "(", "￭b"}, "t", 2),
                    Catch::Contains("token 2 '(' is not what the tokenizer writes there ('(￭')"));
  // Without codes, or p outside (0, 1): configuration errors.
  CHECK_THROWS_AS(BpeDropout({}, with(0.1f, 1)), ConfigError);
  for (float p : {0.f, 1.f, -0.5f, 1.5f}) {
    CHECK_THROWS_WITH(BpeDropout(recorded(), with(p, 1)), Catch::Contains("--bpe-dropout"));
  }
}
