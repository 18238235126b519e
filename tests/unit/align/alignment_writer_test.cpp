// The alignment formats behind one interface: each writer's exact bytes for one small pair, the
// readers taking back what the writers write, and the names resolved once.
#include "heed/align/alignment_writer.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "heed/common/error.h"

using namespace heed;
using align::AlignmentInput;

namespace {

// "das Haus￭ tür" → "the door": three source tokens (two words), two target tokens, and the
// </s> row of forced decoding.
align::SoftAlignment door_pair() {
  align::SoftAlignment pair;
  pair.id = 7;
  pair.source = {"das", "Haus￭", "tür"};
  pair.target = {"the", "door"};
  pair.source_words = {0, 1, 1};
  pair.target_words = {0, 1};
  pair.weights = {{0.9f, 0.0625f, 0.0375f}, {0.125f, 0.25f, 0.625f}, {0.5f, 0.25f, 0.25f}};
  return pair;
}

// The line of the named format for sentence.
std::string line(const std::string& format, const align::SentenceAlignment& sentence) {
  std::string out;
  align::alignment_format(format).make()->write(sentence, out);
  return out;
}

}  // namespace

TEST_CASE("alignment writer: each format's bytes for one pair", "[align][fast]") {
  const align::SoftAlignment pair = door_pair();
  align::SentenceAlignment sentence;
  sentence.links = {{1, 1}, {0, 0}, {1, 0}};  // unsorted: the writers sort
  sentence.possible = {{2, 1}, {0, 0}};       // 0-0 is sure as well
  sentence.attention = &pair;
  CHECK(line("pharaoh", sentence) == "0-0 1-0 1-1");
  CHECK(line("talp", sentence) == "1-1 2-1 2-2 3p2");
  // The target tokens' rows, "%.3f" (0.0375f is 0.037500001); the </s> row is left out.
  CHECK(line("soft", sentence) == "0.900,0.062,0.038 0.125,0.250,0.625");
  CHECK(line("jsonl", sentence) ==
        R"({"id": 7, "source": ["das","Haus￭","tür"], "target": ["the","door"], )"
        R"("source_words": [0,1,1], "target_words": [0,1], )"
        R"("weights": [[0.9, 0.0625, 0.0375], [0.125, 0.25, 0.625], [0.5, 0.25, 0.25]]})");
  // Written after what out holds (heed-translate's "text ||| ").
  std::string out = "das Haustür ||| ";
  align::alignment_format("pharaoh").make()->write(sentence, out);
  CHECK(out == "das Haustür ||| 0-0 1-0 1-1");
}

TEST_CASE("alignment writer: a pair without links or rows is an empty line", "[align][fast]") {
  align::SoftAlignment empty;
  empty.source = {"a"};
  align::SentenceAlignment sentence;
  sentence.attention = &empty;
  for (const auto& format : {"pharaoh", "talp", "soft"}) {
    INFO(format);
    CHECK(line(format, sentence).empty());
  }
  // A translation cut at the maximum length has no </s> row: every row is a token's.
  align::SoftAlignment cut = door_pair();
  cut.weights.pop_back();
  sentence.attention = &cut;
  CHECK(line("soft", sentence) == "0.900,0.062,0.038 0.125,0.250,0.625");
}

TEST_CASE("alignment writer: the readers take back what the writers write", "[align][fast]") {
  align::SentenceAlignment sentence;
  sentence.links = {{0, 0}, {3, 1}, {1, 2}};
  sentence.possible = {{2, 2}, {1, 2}, {0, 4}};
  const align::Alignment sure = {{0, 0}, {1, 2}, {3, 1}};
  const align::Alignment possible = {{0, 0}, {0, 4}, {1, 2}, {2, 2}, {3, 1}};
  CHECK(align::parse_pharaoh(line("pharaoh", sentence), "a", 1) == sure);
  const align::GoldAlignment gold = align::parse_talp(line("talp", sentence), "g", 1);
  CHECK(gold.sure == sure);
  CHECK(gold.possible == possible);
  CHECK(align::to_talp(gold) == line("talp", sentence));
  // Zero-based, as heed-align score --gold reads talp without --one-based.
  CHECK(align::to_talp(gold, /*one_based=*/false) == "0-0 0p4 1-2 2p2 3-1");
  CHECK(align::parse_talp(align::to_talp(gold, false), "g", 1, false).possible == possible);

  const align::SoftAlignment pair = door_pair();
  sentence.attention = &pair;
  const align::SoftAlignment back = align::parse_json_line(line("jsonl", sentence), "s.jsonl", 1);
  CHECK(back.id == pair.id);
  CHECK(back.source == pair.source);
  CHECK(back.target == pair.target);
  CHECK(back.source_words == pair.source_words);
  CHECK(back.target_words == pair.target_words);
  CHECK(back.weights == pair.weights);  // exact in six digits
}

TEST_CASE("alignment writer: links read off the attention for links formats only",
          "[align][fast]") {
  const align::SoftAlignment pair = door_pair();
  align::ExtractOptions argmax;
  const align::SentenceAlignment links =
      align::from_attention(pair, AlignmentInput::kLinks, argmax);
  CHECK(links.attention == &pair);
  // the → das; door → tür, a subword of the second word.
  CHECK(align::to_pharaoh(links.links) == "0-0 1-1");
  CHECK(links.possible.empty());
  align::ExtractOptions threshold;
  threshold.method = align::ExtractMethod::kThreshold;
  threshold.threshold = 0.2f;
  CHECK(align::to_pharaoh(align::from_attention(pair, AlignmentInput::kLinks, threshold).links) ==
        "0-0 1-1");
  threshold.threshold = 0.1f;
  CHECK(align::to_pharaoh(align::from_attention(pair, AlignmentInput::kLinks, threshold).links) ==
        "0-0 0-1 1-1");
  CHECK(align::from_attention(pair, AlignmentInput::kWeights, argmax).links.empty());
}

TEST_CASE("alignment writer: format names", "[align][fast]") {
  std::vector<std::string> names;
  for (const align::AlignmentFormat& f : align::alignment_formats()) {
    names.push_back(f.name);
    CHECK(align::alignment_format(f.name).name == f.name);
    CHECK_FALSE(f.summary.empty());
    CHECK(f.make().get() != nullptr);
  }
  CHECK(names == std::vector<std::string>{"pharaoh", "talp", "soft", "jsonl"});
  CHECK_THROWS_AS(align::alignment_format("hard"), ConfigError);
  CHECK_THROWS_WITH(align::alignment_format("sometimes"),
                    "unknown alignment format 'sometimes' (expected pharaoh, talp, soft or jsonl)");
  const std::string all = align::describe_alignment_formats(false);
  const std::string translations = align::describe_alignment_formats(true);
  CHECK_THAT(all, Catch::StartsWith("pharaoh (zero-based") && Catch::Contains(" or jsonl ("));
  CHECK_THAT(translations, Catch::Contains(" or soft (") && !Catch::Contains("jsonl"));
}
