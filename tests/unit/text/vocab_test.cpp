#include "heed/text/vocab.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "heed/common/error.h"
#include "support/temp_dir.h"

using namespace heed;
using text::Vocab;

namespace {
std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.path(name), std::ios::binary) << text;
  return dir.path(name);
}
}  // namespace

TEST_CASE("vocab: counting tokens and words from tokenized files", "[text][fast]") {
  test::TempDir dir;
  std::string a = write(dir, "a", "Hello ￭, world ￭!\nlo￭ wer ｟URL｠\n\n");
  std::string b = write(dir, "b", "hello￨C world￨U ￭!\n");
  auto tokens = text::count_tokens({a, b}, 2);
  CHECK(tokens.at("￭!") == 2);
  CHECK(tokens.at("Hello") == 1);
  CHECK(tokens.at("lo￭") == 1);
  CHECK(tokens.size() == 9);
  auto words = text::count_words({a, b}, 1);
  CHECK(words.at("!") == 2);
  CHECK(words.at("hello") == 1);  // case mark stripped; "Hello" stays its own word
  CHECK(words.at("world") == 2);
  CHECK(words.at("lo") == 1);
  CHECK(words.count("｟URL｠") == 0);  // placeholders are never split by BPE
  CHECK(text::bpe_word_of("￭x￭￨C") == "x");
  CHECK_THROWS_AS(text::count_tokens({dir.path("absent")}, 1), FileError);
}

TEST_CASE("vocab: counts sorted by frequency then bytes, with cut-offs", "[text][fast]") {
  text::WordCounts counts = {{"b", 3}, {"a", 3}, {"c", 5}, {"d", 1}};
  CHECK(text::format_counts(counts) == "c\t5\na\t3\nb\t3\nd\t1\n");
  text::VocabCountOptions options;
  options.min_count = 2;
  CHECK(text::format_counts(counts, options) == "c\t5\na\t3\nb\t3\n");
  options.max_size = 2;
  CHECK(text::format_counts(counts, options) == "c\t5\na\t3\n");
  auto back = text::parse_counts("c\t5\na\t3\n", "v");
  CHECK(back == text::CountList{{"c", 5}, {"a", 3}});
  CHECK_THROWS_WITH(text::parse_counts("c\t5\na 3\n", "v.tsv"), "v.tsv:2: expected 'token<TAB>count'");
  CHECK_THROWS_WITH(text::parse_counts("c\tfive\n", "v.tsv"), Catch::StartsWith("v.tsv:1: count"));
}

TEST_CASE("vocab: specials first, unknown tokens map to <unk>, round trip", "[text][fast]") {
  Vocab v = Vocab::from_counts({{"the", 10}, {"<unk>", 9}, {"cat", 4}, {"rare", 1}}, 0, 2);
  CHECK(v.size() == 6);
  CHECK(v.id("<pad>") == Vocab::kPadId);
  CHECK(v.id("</s>") == Vocab::kEosId);
  CHECK(v.id("the") == 4);
  CHECK(v.id("cat") == 5);
  CHECK(v.id("rare") == Vocab::kUnkId);  // below min_count
  CHECK(v.id("dog") == Vocab::kUnkId);
  CHECK(v.token(5) == "cat");
  CHECK_THROWS_AS(v.token(6), InternalError);
  Vocab small = Vocab::from_counts({{"the", 10}, {"cat", 4}}, 5);
  CHECK(small.size() == 5);
  Vocab back = Vocab::from_string(v.to_string(), "model");
  CHECK(back.to_string() == v.to_string());
  CHECK_THROWS_WITH(Vocab::from_string("the\t1\n", "m"), Catch::Contains("special tokens"));
  test::TempDir dir;
  Vocab loaded = Vocab::load(write(dir, "v", "x\t3\ny\t2\n"));
  CHECK(loaded.id("y") == 5);
}
