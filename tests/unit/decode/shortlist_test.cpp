// The lexical table reader (good and malformed lines) and the candidate set a shortlist gives
// a batch, on hand-made tables.
#include "heed/decode/shortlist.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "heed/common/error.h"

using namespace heed;
using decode::LexicalTable;

namespace {

// The message of the DataError that parsing text throws ("" if none).
std::string parse_error(const std::string& text) {
  try {
    LexicalTable::parse(text, "lex.tsv");
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> words_of(const std::vector<LexicalTable::Translation>& translations) {
  std::vector<std::string> words;
  for (const auto& t : translations) words.push_back(t.word);
  return words;
}

}  // namespace

TEST_CASE("shortlist: the table reader sorts each word's translations best first",
          "[decode][fast]") {
  const std::string text =
      "\xEF\xBB\xBF"  // a byte order mark is ignored
      "haus\thome\t0.25\n"
      "haus\thouse\t0.7\r\n"
      "\n"
      "das\tthe\t0.5\n"
      "haus\tbuilding\t0.25\n"
      "das\tthat\t1e-1";  // no final newline
  const LexicalTable table = LexicalTable::parse(text, "lex.tsv");
  CHECK(table.size() == 2);
  const auto& haus = table.translations("haus");
  CHECK(words_of(haus) == std::vector<std::string>{"house", "building", "home"});
  CHECK(haus[0].probability == Approx(0.7f));
  CHECK(words_of(table.translations("das")) == std::vector<std::string>{"the", "that"});
  CHECK(table.translations("Haus").empty());
  CHECK(LexicalTable::parse("", "empty").size() == 0);
}

TEST_CASE("shortlist: a malformed table line is refused naming file and line", "[decode][fast]") {
  CHECK(parse_error("a\tb\t0.5\na\tb\n") ==
        "lex.tsv:2: expected 'source<TAB>target<TAB>probability'");
  CHECK(parse_error("a\tb\t0.5\tx\n") == "lex.tsv:1: expected 'source<TAB>target<TAB>probability'");
  CHECK(parse_error("a b c\n") == "lex.tsv:1: expected 'source<TAB>target<TAB>probability'");
  CHECK(parse_error("\n\n\tb\t0.5\n") == "lex.tsv:3: empty word");
  CHECK(parse_error("a\t\t0.5\n") == "lex.tsv:1: empty word");
  CHECK(parse_error("a\tb\thigh\n") ==
        "lex.tsv:1: the probability 'high' is not a number in [0, 1]");
  CHECK(parse_error("a\tb\t1.5\n") == "lex.tsv:1: the probability '1.5' is not a number in [0, 1]");
  CHECK(parse_error("a\tb\t0.5x\n") ==
        "lex.tsv:1: the probability '0.5x' is not a number in [0, 1]");
  CHECK(parse_error("a\tb\tnan\n") == "lex.tsv:1: the probability 'nan' is not a number in [0, 1]");
  CHECK(parse_error("a\tb\t\n") == "lex.tsv:1: the probability '' is not a number in [0, 1]");
  const std::string invalid = parse_error("a\tb\t0.5\n\xff\tb\t0.5\n");
  CHECK(invalid.rfind("lex.tsv:2: ", 0) == 0);
}

TEST_CASE("shortlist: Marian's shortlists are named, with the conversion", "[decode][fast]") {
  // Its text shortlist: "target source probability", space-separated.
  const std::string text = parse_error("a\tb\t0.5\nmaison house 0.8\n");
  CHECK(text.rfind("lex.tsv:2: space-separated, as Marian's lexical shortlist writes 'target "
                   "source probability'; heed reads 'source<TAB>target<TAB>probability'",
                   0) == 0);
  CHECK(text.find("{print $2, $1, $3}' lex.tsv > table.tsv") != std::string::npos);
  // Its binary shortlist, by the 64-bit number it opens with.
  const std::string binary =
      parse_error(std::string("\xf5\x17\x34\x01\xd5\x48\x1a\xf1\x00\x01\x02", 11));
  CHECK(binary.rfind("lex.tsv:1: a binary Marian shortlist (marian-conv --shortlist); heed reads",
                     0) == 0);
  CHECK(binary.find("--lexical-table") != std::string::npos);
}

TEST_CASE("shortlist: candidates are the specials, the frequent words and each source word's best",
          "[decode][fast]") {
  // Target ids: 0-3 specials, then by frequency: the 4, a 5, house 6, home 7, building 8, dog 9.
  const text::Vocab target = text::Vocab::from_counts(text::CountList{
      {"the", 60}, {"a", 50}, {"house", 40}, {"home", 30}, {"building", 20}, {"dog", 10}});
  const text::Vocab source =
      text::Vocab::from_counts(text::CountList{{"das", 9}, {"haus", 8}, {"hund", 7}});
  const LexicalTable table = LexicalTable::parse(
      "haus\thouse\t0.6\n"
      "haus\tcottage\t0.3\n"  // not in the target vocabulary: skipped, not counted
      "haus\tbuilding\t0.2\n"
      "haus\thome\t0.1\n"
      "hund\tdog\t0.9\n"
      "katze\tcat\t0.9\n",  // a source word the model does not know
      "lex.tsv");
  decode::ShortlistOptions options;
  options.frequent = 1;
  options.best = 2;
  options.columns_multiple = 1;
  const decode::Shortlist shortlist(table, source, target, options);
  const int32_t das = source.id("das"), haus = source.id("haus"), hund = source.id("hund");

  CHECK(shortlist.candidates({das}) == std::vector<int32_t>{0, 1, 2, 3, 4});
  CHECK(shortlist.candidates({haus, das, text::Vocab::kPadId}) ==
        std::vector<int32_t>{0, 1, 2, 3, 4, target.id("house"), target.id("building")});
  CHECK(shortlist.candidates({hund, haus, hund}) == std::vector<int32_t>{0, 1, 2, 3, 4, 6, 8, 9});

  // Filled up with the most frequent words left out to a multiple of 4 (or not at all).
  options.columns_multiple = 4;
  const decode::Shortlist rounded(table, source, target, options);
  CHECK(rounded.candidates({das}) == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(rounded.candidates({hund}) == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 9});
  CHECK(rounded.candidates({hund, haus}) == shortlist.candidates({hund, haus}));

  options.frequent = 100;  // more than the vocabulary: every word
  const decode::Shortlist everything(table, source, target, options);
  CHECK(everything.candidates({das}).size() == size_t(target.size()));

  options.frequent = -1;
  CHECK_THROWS_AS(decode::Shortlist(table, source, target, options), ConfigError);
}
