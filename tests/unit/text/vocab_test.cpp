#include "heed/text/vocab.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "heed/common/error.h"
#include "support/temp_dir.h"

using namespace heed;
using text::CountList;
using text::Vocab;
using text::VocabOptions;

namespace {

std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.path(name), std::ios::binary) << text;
  return dir.path(name);
}

VocabOptions vocab_options(long long max_size, long long min_count) {
  VocabOptions options;
  options.max_size = max_size;
  options.min_count = min_count;
  return options;
}

}  // namespace

TEST_CASE("vocab: counting tokens and words from tokenized files", "[text][fast]") {
  test::TempDir dir;
  const std::string a = write(dir, "a", "Hello ￭, world ￭!\r\nlo￭ wer  ｟URL｠\n\n");
  const std::string b = write(dir, "b", "hello￨C world￨U ￭!\tx％0020y\n￭￭ done");
  for (int threads : {1, 2, 3}) {
    INFO("threads=" << threads);
    const text::WordCounts tokens = text::count_tokens({a, b}, threads);
    CHECK(tokens == text::WordCounts{{"Hello", 1},
                                     {"￭,", 1},
                                     {"world", 1},
                                     {"￭!", 2},
                                     {"lo￭", 1},
                                     {"wer", 1},
                                     {"｟URL｠", 1},
                                     {"hello￨C", 1},
                                     {"world￨U", 1},
                                     {"x％0020y", 1},
                                     {"￭￭", 1},
                                     {"done", 1}});
    const text::WordCounts words = text::count_words({a, b}, threads);
    // Joiners and case marks go; placeholders, escapes and a bare joiner pair are not words.
    CHECK(words == text::WordCounts{{"Hello", 1},
                                    {",", 1},
                                    {"world", 2},
                                    {"!", 2},
                                    {"lo", 1},
                                    {"wer", 1},
                                    {"hello", 1},
                                    {"done", 1}});
  }
  CHECK(text::bpe_word_of("￭x￭￨C") == "x");
  CHECK(text::bpe_word_of("￭") == "");
  CHECK(text::bpe_word_of("a￭b") == "");
  CHECK(text::bpe_word_of("plain") == "plain");
  CHECK_THROWS_AS(text::count_tokens({dir.path("absent")}, 1), FileError);

  text::WordCounts in_memory;
  text::add_tokens("a b a\nb￭ c", in_memory);
  CHECK(in_memory == text::WordCounts{{"a", 2}, {"b", 1}, {"b￭", 1}, {"c", 1}});
  text::add_words("b￭", in_memory);
  CHECK(in_memory.at("b") == 2);
}

TEST_CASE("vocab: counting is exact across block and thread boundaries", "[text][fast]") {
  // More than one 8 MiB block, so tokens meet the block cuts.
  test::TempDir dir;
  std::string text;
  const int lines = 200000;
  for (int i = 0; i < lines; ++i) {
    text += "token" + std::to_string(i % 97) + " word￭ " + std::to_string(i % 1000) + " ￭end\n";
  }
  REQUIRE(text.size() > (size_t{9} << 20) / 2);
  const std::string path = write(dir, "big", text + text);
  const text::WordCounts one = text::count_tokens({path}, 1);
  const text::WordCounts two = text::count_tokens({path}, 2);
  CHECK(one == two);
  CHECK(one.size() == 97 + 1 + 1000 + 1);
  CHECK(one.at("word￭") == 2 * lines);
  CHECK(one.at("token0") == 2 * ((lines + 96) / 97));
  CHECK(one.at("999") == 2 * (lines / 1000));
  const text::WordCounts words = text::count_words({path, path}, 2);
  CHECK(words.at("word") == 4 * lines);
  CHECK(words.at("end") == 4 * lines);
}

TEST_CASE("vocab: counting follows --on-invalid and drops a leading byte order mark",
          "[text][fast]") {
  test::TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  const std::string a = write(dir, "a", bom + "Hello world\nbad \xFF\xFE end\n");
  const std::string b = write(dir, "b", bom + "world\n");
  for (int threads : {1, 2}) {
    INFO("threads=" << threads);
    CHECK_THROWS_AS(text::count_tokens({a, b}, threads), DataError);
    CHECK_THROWS_WITH(text::count_words({a}, threads, text::OnInvalid::kError),
                      Catch::StartsWith(a + ":2: invalid UTF-8 at byte 5"));
    CHECK(
        text::count_tokens({a, b}, threads, text::OnInvalid::kReplace) ==
        text::WordCounts{{"Hello", 1}, {"world", 2}, {"bad", 1}, {"\uFFFD\uFFFD", 1}, {"end", 1}});
    CHECK(text::count_tokens({a, b}, threads, text::OnInvalid::kSkip) ==
          text::WordCounts{{"Hello", 1}, {"world", 2}});
  }
  const std::string nul = write(dir, "nul", std::string("a\nb\0c\n", 6));
  CHECK_THROWS_WITH(text::count_tokens({nul}, 1),
                    Catch::StartsWith(nul + ":2: NUL byte at byte 2"));
}

TEST_CASE("vocab: the line named for a bad line is right beyond the first block", "[text]") {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 400000; ++i) text += "line number " + std::to_string(i) + " of many\n";
  REQUIRE(text.size() > (size_t{8} << 20));  // more than one block
  const std::string path = write(dir, "big", text + "caf\xE9\n");
  CHECK_THROWS_WITH(text::count_tokens({path}, 2), Catch::StartsWith(path + ":400001: invalid"));
}

TEST_CASE("vocab: count files and vocabularies that are not text are refused; BOM dropped",
          "[text][fast]") {
  CHECK_THROWS_AS(text::parse_counts("a\t1\n\xE9\t2\n", "v.tsv"), FormatError);
  CHECK_THROWS_WITH(text::parse_counts("a\t1\n\xE9\t2\n", "v.tsv"),
                    "v.tsv:2: invalid UTF-8 at byte 1");
  CHECK_THROWS_WITH(text::parse_counts(std::string("a\0b\t1\n", 6), "v.tsv"),
                    "v.tsv:1: NUL byte at byte 2");
  CHECK(text::parse_counts("\xEF\xBB\xBF"
                           "a\t1\n",
                           "v") == CountList{{"a", 1}});
  const std::string specials = "<pad>\t0\n<unk>\t0\n<s>\t0\n</s>\t0\n";
  CHECK_THROWS_WITH(Vocab::from_string(specials + "ok\t3\nk\xC3\t2\n", "model.heed (vocab)"),
                    "model.heed (vocab):6: invalid UTF-8 at byte 2");
  CHECK(Vocab::from_string("\xEF\xBB\xBF" + specials + "a\t1\n", "v").token(4) == "a");
}

TEST_CASE("vocab: counts sorted by frequency then bytes, with cut-offs", "[text][fast]") {
  const text::WordCounts counts = {{"b", 3}, {"a", 3}, {"B", 3}, {"é", 3}, {"c", 5}, {"d", 1}};
  // Ties by bytes: "B" (0x42) < "a" < "b" < "é" (0xC3 0xA9).
  CHECK(text::format_counts(counts) == "c\t5\nB\t3\na\t3\nb\t3\né\t3\nd\t1\n");
  text::VocabCountOptions options;
  options.min_count = 2;
  CHECK(text::format_counts(counts, options) == "c\t5\nB\t3\na\t3\nb\t3\né\t3\n");
  options.max_size = 2;
  CHECK(text::sorted_counts(counts, options) == CountList{{"c", 5}, {"B", 3}});
  CHECK(text::format_counts({}) == "");
}

TEST_CASE("vocab: count files read back, bad lines name file:line", "[text][fast]") {
  CHECK(text::parse_counts("c\t5\na\t3\r\n", "v") == CountList{{"c", 5}, {"a", 3}});
  CHECK(text::parse_counts("", "v").empty());
  CHECK_THROWS_AS(text::parse_counts("a 3\n", "v.tsv"), FormatError);
  CHECK_THROWS_WITH(text::parse_counts("c\t5\na 3\n", "v.tsv"),
                    "v.tsv:2: expected 'token<TAB>count'");
  CHECK_THROWS_WITH(text::parse_counts("c\t5\t6\n", "v.tsv"),
                    "v.tsv:1: expected 'token<TAB>count'");
  CHECK_THROWS_WITH(text::parse_counts("c\t5\n\t6\n", "v.tsv"), "v.tsv:2: empty token");
  CHECK_THROWS_WITH(text::parse_counts("c\t5\n\n", "v.tsv"), "v.tsv:2: expected 'token<TAB>count'");
  CHECK_THROWS_WITH(text::parse_counts("c\tfive\n", "v.tsv"),
                    "v.tsv:1: count 'five' is not a decimal number");
  CHECK_THROWS_WITH(text::parse_counts("c\t-1\n", "v.tsv"), Catch::StartsWith("v.tsv:1: count"));
  CHECK_THROWS_WITH(text::parse_counts("c\t\n", "v.tsv"), Catch::StartsWith("v.tsv:1: count"));
  CHECK_THROWS_WITH(text::parse_counts("c\t99999999999999999999\n", "v.tsv"),
                    Catch::StartsWith("v.tsv:1: count"));
  CHECK_THROWS_WITH(text::parse_counts("a\t5\nb\t4\na\t3\n", "v.tsv"),
                    "v.tsv:3: duplicate token 'a' (first on line 1)");
  test::TempDir dir;
  CHECK(text::load_counts(write(dir, "v", "x\t3\n")) == CountList{{"x", 3}});
  CHECK_THROWS_AS(text::load_counts(dir.path("absent")), FileError);
}

TEST_CASE("vocab: specials first, then tokens by count; unknown tokens map to <unk>",
          "[text][fast]") {
  Vocab empty;
  CHECK(empty.size() == 4);
  CHECK(empty.token(Vocab::kPadId) == "<pad>");
  CHECK(empty.token(Vocab::kUnkId) == "<unk>");
  CHECK(empty.token(Vocab::kBosId) == "<s>");
  CHECK(empty.token(Vocab::kEosId) == "</s>");

  // Any input order; "<unk>" in the counts keeps id 1 and takes its count.
  const CountList counts = {{"cat", 4}, {"rare", 1}, {"the", 10}, {"<unk>", 9}, {"a", 4}};
  const Vocab v = Vocab::from_counts(counts, vocab_options(0, 2));
  CHECK(v.size() == 7);
  CHECK(v.id("the") == 4);
  CHECK(v.id("a") == 5);  // ties by bytes
  CHECK(v.id("cat") == 6);
  CHECK(v.id("<unk>") == Vocab::kUnkId);
  CHECK(v.count(Vocab::kUnkId) == 9);
  CHECK(v.count(4) == 10);
  CHECK(v.id("rare") == Vocab::kUnkId);  // below min_count
  CHECK(v.id("dog") == Vocab::kUnkId);
  CHECK(v.id("</s>") == Vocab::kEosId);
  CHECK(v.contains("cat"));
  CHECK_FALSE(v.contains("dog"));
  CHECK(v.token(6) == "cat");
  CHECK_THROWS_AS(v.token(7), InternalError);
  CHECK_THROWS_AS(v.token(-1), InternalError);

  // max_size counts the specials.
  const Vocab small = Vocab::from_counts(counts, vocab_options(5, 1));
  CHECK(small.size() == 5);
  CHECK(small.token(4) == "the");
  CHECK(Vocab::from_counts(counts, vocab_options(4, 1)).size() == 4);
  CHECK_THROWS_AS(Vocab::from_counts(counts, vocab_options(3, 1)), ConfigError);
  CHECK_THROWS_AS(Vocab::from_counts(counts, vocab_options(-1, 1)), ConfigError);

  const Vocab from_map = Vocab::from_counts(text::WordCounts{{"x", 1}, {"y", 2}});
  CHECK(from_map.token(4) == "y");
  CHECK(from_map.token(5) == "x");
}

TEST_CASE("vocab: string round trip and loading from a counts file", "[text][fast]") {
  const Vocab v = Vocab::from_counts(CountList{{"the", 10}, {"cat", 4}, {"<s>", 2}});
  const std::string text = v.to_string();
  CHECK(text == "<pad>\t0\n<unk>\t0\n<s>\t2\n</s>\t0\nthe\t10\ncat\t4\n");
  const Vocab back = Vocab::from_string(text, "model");
  CHECK(back == v);
  CHECK(back.to_string() == text);
  CHECK(Vocab::from_string(Vocab().to_string(), "m") == Vocab());

  CHECK_THROWS_WITH(Vocab::from_string("the\t1\n", "m"),
                    Catch::StartsWith("m:1: expected the special token '<pad>'"));
  CHECK_THROWS_WITH(Vocab::from_string("<pad>\t0\n<unk>\t0\n</s>\t0\n<s>\t0\n", "m"),
                    Catch::StartsWith("m:3: expected the special token '<s>'"));
  CHECK_THROWS_WITH(Vocab::from_string("<pad>\t0\n<unk>\t0\n<s>\t0\n", "m"),
                    Catch::StartsWith("m:4: expected the special token '</s>'"));
  CHECK_THROWS_WITH(Vocab::from_string(text + "the\t1\n", "m"),
                    "m:7: duplicate token 'the' (first on line 5)");
  CHECK_THROWS_WITH(Vocab::from_string(text + "oops\n", "m"), "m:7: expected 'token<TAB>count'");

  test::TempDir dir;
  const Vocab loaded =
      Vocab::load(write(dir, "v", "x\t3\n<pad>\t7\ny\t2\nz\t1\n"), vocab_options(0, 2));
  CHECK(loaded.size() == 6);
  CHECK(loaded.id("x") == 4);
  CHECK(loaded.id("y") == 5);
  CHECK(loaded.id("z") == Vocab::kUnkId);
  CHECK(loaded.id("<pad>") == Vocab::kPadId);
  CHECK_THROWS_WITH(Vocab::load(write(dir, "bad", "x\t3\ny\n")),
                    Catch::StartsWith(dir.path("bad") + ":2:"));
  // An empty file would make a model that reads every word as <unk>.
  CHECK_THROWS_WITH(Vocab::load(write(dir, "empty", "")),
                    dir.path("empty") + ": no words (an empty vocabulary file)");
}
