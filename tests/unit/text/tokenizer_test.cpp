#include "heed/text/tokenizer.h"

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "heed/common/error.h"
#include "heed/text/bpe.h"

using namespace heed;
using namespace heed::text;

namespace {

using Tokens = std::vector<std::string>;

TokenizerOptions aggressive() {
  TokenizerOptions o;
  o.mode = TokenizeMode::kAggressive;
  return o;
}

TokenizerOptions with_normalization(Normalization form) {
  TokenizerOptions o;
  o.normalization = form;
  return o;
}

// Tokens of line, after checking that they detokenize to normalize(line).
Tokens tok(const Tokenizer& t, const std::string& line) {
  Tokens tokens = t.tokenize(line);
  INFO("line: " << line);
  CHECK(t.detokenize(tokens) == t.normalize(line));
  CHECK(t.detokenize_line(t.tokenize_line(line)) == t.normalize(line));
  return tokens;
}

Tokens tok(const std::string& line) {
  return tok(Tokenizer(), line);
}

}  // namespace

TEST_CASE("tokenizer: punctuation is split off and carries the joiner", "[text][fast]") {
  CHECK(tok("Hello, world!") == Tokens{"Hello", "￭,", "world", "￭!"});
  CHECK(tok("(hello)") == Tokens{"(￭", "hello", "￭)"});
  CHECK(tok("What?!") == Tokens{"What", "￭?", "￭!"});
  CHECK(tok("Va !") == Tokens{"Va", "!"});
  CHECK(tok("«Bonjour», dit-il...") ==
        Tokens{"«￭", "Bonjour", "￭»", "￭,", "dit-il", "￭.", "￭.", "￭."});
  CHECK(Tokenizer().tokenize_line("Hello, world!") == "Hello ￭, world ￭!");
}

TEST_CASE("tokenizer: Latin with accents (French, German)", "[text][fast]") {
  CHECK(tok("Le garçon mange à l'école.") == Tokens{"Le", "garçon", "mange", "à", "l'école", "￭."});
  CHECK(tok("Größe über Äpfel, Straße.") == Tokens{"Größe", "über", "Äpfel", "￭,", "Straße", "￭."});
  CHECK(tok(Tokenizer(aggressive()), "Où est l'école ?") ==
        Tokens{"Où", "est", "l", "￭'￭", "école", "?"});
}

TEST_CASE("tokenizer: Cyrillic, Greek and Arabic", "[text][fast]") {
  CHECK(tok("Привет, мир! Как дела?") == Tokens{"Привет", "￭,", "мир", "￭!", "Как", "дела", "￭?"});
  CHECK(tok("Καλημέρα κόσμε; Ναι.") == Tokens{"Καλημέρα", "κόσμε", "￭;", "Ναι", "￭."});
  CHECK(tok("مرحبا بالعالم، كيف حالك؟") == Tokens{"مرحبا", "بالعالم", "￭،", "كيف", "حالك", "￭؟"});
}

TEST_CASE("tokenizer: Chinese and Japanese by ICU's dictionary", "[text][fast]") {
  CHECK(tok("我爱北京天安门。") == Tokens{"我", "￭爱", "￭北京", "￭天安门", "￭。"});
  CHECK(tok("私は学生です。") == Tokens{"私", "￭は", "￭学生", "￭です", "￭。"});
  CHECK(tok("東京に行きたい") == Tokens{"東京", "￭に", "￭行き", "￭たい"});
}

TEST_CASE("tokenizer: emoji ZWJ sequences and flags stay whole", "[text][fast]") {
  const std::string family = "👨\u200D👩\u200D👧\u200D👦";
  CHECK(tok(family + " 🇫🇷🇯🇵 ok👍🏽!") ==
        Tokens{family, "🇫🇷", "￭🇯🇵", "ok", "￭👍🏽", "￭!"});
  CHECK(tok(Tokenizer(aggressive()), family + "🇫🇷") == Tokens{family, "￭🇫🇷"});
}

TEST_CASE("tokenizer: numbers in conservative mode", "[text][fast]") {
  CHECK(tok("1,000.50 3.14 2,000 -5 (-3.5) 42% 7.") ==
        Tokens{"1,000.50", "3.14", "2,000", "-5", "(￭", "-3.5", "￭)", "42", "￭%", "7", "￭."});
  CHECK(tok("5-3 x=-2 $20") == Tokens{"5-3", "x", "￭=￭", "-2", "$￭", "20"});
}

TEST_CASE("tokenizer: numbers in aggressive mode", "[text][fast]") {
  const Tokenizer t(aggressive());
  CHECK(tok(t, "2,000 3.14 -5 42%") ==
        Tokens{"2", "￭,￭", "000", "3", "￭.￭", "14", "-￭", "5", "42", "￭%"});
  CHECK(tok(t, "abc123") == Tokens{"abc", "￭123"});
}

TEST_CASE("tokenizer: URLs and e-mail addresses stay whole", "[text][fast]") {
  for (const Tokenizer& t : {Tokenizer(), Tokenizer(aggressive())}) {
    CHECK(tok(t, "Visit https://example.com/path?q=1&r=2, or (http://a.b/c).") ==
          Tokens{"Visit", "https://example.com/path?q=1&r=2", "￭,", "or", "(￭", "http://a.b/c",
                 "￭)", "￭."});
    CHECK(tok(t, "Write to john.doe+tag@mail.example.org. See www.heed.org/docs!") ==
          Tokens{"Write", "to", "john.doe+tag@mail.example.org", "￭.", "See", "www.heed.org/docs",
                 "￭!"});
    CHECK(tok(t, "http://en.wikipedia.org/wiki/Foo_(bar)") ==
          Tokens{"http://en.wikipedia.org/wiki/Foo_(bar)"});
  }
}

TEST_CASE("tokenizer: placeholders are never split or changed", "[text][fast]") {
  CHECK(tok("｟PH_1｠ and ｟a  b｠ x｟y z｠!") ==
        Tokens{"｟PH_1｠", "and", "｟a％0020％0020b｠", "x", "￭｟y％0020z｠", "￭!"});
  CHECK(tok("｟a\u00A0b｠") == Tokens{"｟a％00A0b｠"});
  CHECK(tok(Tokenizer(aggressive()), "｟soft-landing 2,000｠") ==
        Tokens{"｟soft-landing％00202,000｠"});
  CHECK(tok(Tokenizer(with_normalization(Normalization::kNfkc)), "ﬁ｟ﬁ｠") ==
        Tokens{"fi", "￭｟ﬁ｠"});
  TokenizerOptions lower;
  lower.lowercase = true;
  CHECK(tok(Tokenizer(lower), "ABC ｟ABC｠") == Tokens{"abc", "｟ABC｠"});
  // Unmatched marks are ordinary characters (escaped).
  CHECK(tok("a ｟b") == Tokens{"a", "％FF5F￭", "b"});
  CHECK(tok("a｠ b") == Tokens{"a", "￭％FF60", "b"});
}

TEST_CASE("tokenizer: hyphens in both modes", "[text][fast]") {
  CHECK(tok("soft-landing e-mail mother-in-law COVID-19 a - b") ==
        Tokens{"soft-landing", "e-mail", "mother-in-law", "COVID-19", "a", "-", "b"});
  CHECK(tok(Tokenizer(aggressive()), "soft-landing e-mail") ==
        Tokens{"soft", "￭-￭", "landing", "e", "￭-￭", "mail"});
}

TEST_CASE("tokenizer: apostrophes in both modes", "[text][fast]") {
  CHECK(tok("don't l'avion l’avion") == Tokens{"don't", "l'avion", "l’avion"});
  CHECK(tok(Tokenizer(aggressive()), "don't l'avion") ==
        Tokens{"don", "￭'￭", "t", "l", "￭'￭", "avion"});
  CHECK(tok("'quoted'") == Tokens{"'￭", "quoted", "￭'"});
}

TEST_CASE("tokenizer: every Unicode space separates tokens", "[text][fast]") {
  const Tokenizer t;
  for (const char* space :
       {" ",      "\t",     "\n",     "\v",     "\f",     "\r",     "\u0085", "\u00A0", "\u1680",
        "\u2000", "\u2001", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008",
        "\u2009", "\u200A", "\u2028", "\u2029", "\u202F", "\u205F", "\u3000", "\u200B"}) {
    const std::string line = std::string("a") + space + "b";
    INFO("space U+" << std::hex << static_cast<int>(line[1]));
    CHECK(tok(t, line) == Tokens{"a", "b"});
    CHECK(t.normalize(line) == "a b");
  }
  const std::string line = "  a\u00A0\u202F\u2009b\t\tc\u200Bd\u3000 ";
  CHECK(tok(t, line) == Tokens{"a", "b", "c", "d"});
  CHECK(t.normalize(line) == "a b c d");
}

TEST_CASE("tokenizer: control characters, NUL and BOM are removed; ZWJ stays", "[text][fast]") {
  const Tokenizer t;
  CHECK(tok(t, std::string("a\0b", 3)) == Tokens{"ab"});
  CHECK(t.normalize(std::string("a\0b", 3)) == "ab");
  CHECK(tok(t, "x\x01y\x7Fz \x1F") == Tokens{"xyz"});
  CHECK(tok(t, "\uFEFFhello w\u0090orld") == Tokens{"hello", "world"});
  CHECK(tok(t, "caf\u00E9\x02s") == Tokens{"cafés"});
  CHECK(tok(t, "a\u200Db") == Tokens{"a\u200Db"});
  CHECK(t.normalize("a\u200Db") == "a\u200Db");
}

TEST_CASE("tokenizer: NFKC versus NFC", "[text][fast]") {
  const Tokenizer nfc, nfkc(with_normalization(Normalization::kNfkc)),
      none(with_normalization(Normalization::kNone));
  CHECK(tok(nfc, "ﬁne Ｈｅｌｌｏ ²") == Tokens{"ﬁne", "Ｈｅｌｌｏ", "²"});
  CHECK(tok(nfkc, "ﬁne Ｈｅｌｌｏ ²") == Tokens{"fine", "Hello", "2"});
  CHECK(nfkc.normalize("ﬁne Ｈｅｌｌｏ") == "fine Hello");
  CHECK(nfc.normalize("e\u0301t\u00E9") == "\u00E9t\u00E9");
  CHECK(none.normalize("e\u0301t\u00E9") == "e\u0301t\u00E9");
  // The reserved marks survive NFKC (it would make ￭ a ■ and ｟ a ⦅).
  CHECK(tok(nfkc, "a￭b ｟x｠ 50％") == Tokens{"a", "￭％FFED￭", "b", "｟x｠", "50", "￭％FF05"});
  CHECK(nfkc.normalize("a￭b ｟x｠ 50％ ￨") == "a￭b ｟x｠ 50％ ￨");
}

TEST_CASE("tokenizer: joiner, escape and feature marks in the input round-trip", "[text][fast]") {
  const Tokenizer t;
  CHECK(tok(t, "a￭b ％ c ￨ d ￭") ==
        Tokens{"a", "￭％FFED￭", "b", "％FF05", "c", "％FFE8", "d", "％FFED"});
  CHECK(tok(t, "％FFED ％0020") == Tokens{"％FF05￭", "FFED", "％FF05￭", "0020"});
  CHECK(t.detokenize_line(t.tokenize_line("x ￭, ￭y")) == "x ￭, ￭y");
}

TEST_CASE("tokenizer: lowercase", "[text][fast]") {
  TokenizerOptions o;
  o.lowercase = true;
  const Tokenizer t(o);
  CHECK(tok(t, "Hello WORLD Ünïcödé ΟΔΟΣ") == Tokens{"hello", "world", "ünïcödé", "οδος"});
  CHECK(t.normalize("Hello WORLD") == "hello world");
}

TEST_CASE("tokenizer: case feature restores the case exactly", "[text][fast]") {
  TokenizerOptions o;
  o.case_feature = true;
  const Tokenizer t(o);
  CHECK(t.tokenize("Hello WORLD McDonald iPhone") ==
        Tokens{"hello￨C", "world￨U", "mc￭￨C", "donald￨C", "i￭", "phone￨C"});
  CHECK(t.detokenize_line(t.tokenize_line("Hello WORLD McDonald iPhone")) ==
        "Hello WORLD McDonald iPhone");
  CHECK(tok(t, "HTMLParser macOS MP3 I, A.") ==
        Tokens{"html￭￨U", "parser￨C", "mac￭", "os￨U", "mp3￨U", "i￨C", "￭,", "a￨C", "￭."});
  // Full case mapping that no mark restores stays as it is (or is split until it does).
  for (const char* line : {"ÉCOLE Straße STRAßE ΟΔΟΣ Οδός İstanbul ǅemal ⒶⒷ",
                           "Le Garçon d'ÉTÉ, L'Avion; O'Neil https://Example.COM/X"}) {
    INFO(line);
    CHECK(t.detokenize(t.tokenize(line)) == line);
  }
  CHECK(tok(t, "ÉCOLE") == Tokens{"école￨U"});
  CHECK(tok(t, "Ünïcödé") == Tokens{"ünïcödé￨C"});
}

TEST_CASE("tokenizer: empty and blank lines give no tokens", "[text][fast]") {
  const Tokenizer t;
  CHECK(t.tokenize("").empty());
  CHECK(t.tokenize(" \t\u00A0 \u200B").empty());
  CHECK(t.tokenize_line("") == "");
  CHECK(t.detokenize({}) == "");
  CHECK(t.detokenize_line("") == "");
  CHECK(t.normalize("  ") == "");
}

TEST_CASE("tokenizer: a 1 MB line tokenizes and round-trips", "[text][fast]") {
  const Tokenizer t;
  std::string line;
  while (line.size() < 1000000) line += "word one, ";
  const Tokens tokens = t.tokenize(line);
  CHECK(tokens.size() == 3 * (line.size() / 10));
  CHECK(tokens[2] == "￭,");
  CHECK(t.detokenize(tokens) == t.normalize(line));
  // One chunk of 1 MB without spaces, and 300 kB of Chinese through ICU's dictionary.
  const std::string chunk(1000000, 'x');
  CHECK(t.tokenize(chunk) == Tokens{chunk});
  std::string chinese;
  while (chinese.size() < 300000) chinese += "我爱北京天安门。";
  const std::string tokenized = t.tokenize_line(chinese);
  CHECK(t.detokenize_line(tokenized) == chinese);
}

TEST_CASE("tokenizer: detokenize honours joiners, escapes and case marks", "[text][fast]") {
  const Tokenizer t;
  CHECK(t.detokenize({"Hello", "￭,", "world", "￭!"}) == "Hello, world!");
  CHECK(t.detokenize({"(￭", "a", "￭)", "l'", "￭avion"}) == "(a) l'avion");
  CHECK(t.detokenize({"a", "％FFED", "％FF05x", "b％0020c"}) == "a ￭ ％x b c");
  CHECK(t.detokenize({"hello￨C", "world￨U", "mc￭￨C", "donald￨C"}) == "Hello WORLD McDonald");
  CHECK(t.detokenize({"lo￭", "wer"}) == "lower");
  CHECK(t.detokenize_line("a  ￭b   c") == "ab c");  // extra spaces are tolerated
  // A ％ not followed by four hex digits is left as it is.
  CHECK(t.detokenize({"％12", "％zzzz"}) == "％12 ％zzzz");
}

TEST_CASE("tokenizer: one tokenizer serves several threads", "[text][fast]") {
  TokenizerOptions o;
  o.case_feature = true;
  const Tokenizer t(o);
  const std::vector<std::string> lines = {"Le garçon mange à l'école.", "我爱北京天安门。",
                                          "Hello WORLD McDonald iPhone", "Привет, мир!",
                                          "See https://example.com, ok?"};
  std::vector<std::string> expected;
  for (const auto& line : lines) expected.push_back(t.tokenize_line(line));
  std::vector<int> failures(2, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k) {
    threads.emplace_back([&, k] {
      for (int round = 0; round < 500; ++round) {
        for (size_t i = 0; i < lines.size(); ++i) {
          const size_t j = (i + static_cast<size_t>(k)) % lines.size();
          if (t.tokenize_line(lines[j]) != expected[j]) ++failures[static_cast<size_t>(k)];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(failures == std::vector<int>{0, 0});
}

TEST_CASE("tokenizer: options are validated", "[text][fast]") {
  TokenizerOptions o;
  CHECK_NOTHROW(o.validate());
  o.lowercase = true;
  o.case_feature = true;
  CHECK_THROWS_AS(o.validate(), ConfigError);
  CHECK_THROWS_AS(Tokenizer(o), ConfigError);
  TokenizerOptions bad;
  bad.mode = static_cast<TokenizeMode>(7);
  CHECK_THROWS_AS(bad.validate(), ConfigError);
  CHECK(parse_tokenize_mode("aggressive") == TokenizeMode::kAggressive);
  CHECK(parse_normalization("nfkc") == Normalization::kNfkc);
  CHECK(to_string(TokenizeMode::kConservative) == "conservative");
  CHECK(to_string(Normalization::kNone) == "none");
  CHECK_THROWS_WITH(parse_tokenize_mode("sloppy"), Catch::Contains("conservative, aggressive"));
  CHECK_THROWS_AS(parse_normalization("nfd"), ConfigError);
}

TEST_CASE("tokenizer: BPE splits words and the same detokenize joins them", "[text][fast]") {
  // subword-nmt semantics: "lower" = l o w e r</w> → lo w e r; "low" → low</w>.
  auto bpe = std::make_shared<const Bpe>(BpeCodes({{"l", "o"}, {"lo", "w</w>"}}));
  const Tokenizer t(TokenizerOptions{}, bpe);
  CHECK(tok(t, "low lower, (slow) ｟low｠ http://low.com") == Tokens{"low", "lo￭", "w￭", "e￭", "r",
                                                                     "￭,", "(￭", "s￭", "low", "￭)",
                                                                     "｟low｠", "http://low.com"});
  TokenizerOptions o;
  o.case_feature = true;
  const Tokenizer cased(o, bpe);
  CHECK(cased.tokenize("Low LOWER LoW") ==
        Tokens{"low￨C", "lo￭￨U", "w￭￨U", "e￭￨U", "r￨U", "l￭￨C", "o￭", "w￨C"});
  for (const char* line : {"Low LOWER LoW", "ÉCOLE lower-case Ünïcödé, McDonald's ŁÓW"}) {
    INFO(line);
    CHECK(cased.detokenize_line(cased.tokenize_line(line)) == line);
  }
}

TEST_CASE("tokenizer: word_indices groups subwords and joined punctuation into words",
          "[text][fast]") {
  // "lower, (slow)" → lo￭ w￭ e￭ r ￭, (￭ s￭ low ￭): words "lower," and "(slow)".
  CHECK(heed::text::word_indices({"lo￭", "w￭", "e￭", "r", "￭,", "(￭", "s￭", "low", "￭)"}) ==
        std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1});
  // Case marks come after the joiner.
  CHECK(heed::text::word_indices({"low￨C", "lo￭￨U", "w￭￨U", "e￭￨U", "r￨U", "l￭￨C", "o￭", "w￨C"}) ==
        std::vector<int>{0, 1, 1, 1, 1, 2, 2, 2});
  CHECK(heed::text::word_indices({}).empty());
  CHECK(heed::text::word_indices({"a", "b"}) == std::vector<int>{0, 1});
}

TEST_CASE("tokenizer: random lines round-trip in every configuration", "[text][fast]") {
  // Lines built from pieces that stress the rules: marks, escapes, spaces, controls, case
  // mappings without inverse, combining marks, emoji parts, URL and e-mail fragments.
  const std::vector<std::string> atoms = {
      "a",    "Z",      "low",    "LOW",    "Lo",      "é",
      "É",    "ß",      "İ",      "ǅ",      "Σ",       "ς",
      "ΟΔΟΣ", "я",      "Я",      "中",     "文",      "あ",
      "ア",   "ไทย",    "١",      "0",      "7",       " ",
      "  ",   "\t",     "\u00A0", "\u200B", "\u3000",  std::string(1, '\0'),
      "\x01", "\u0085", "\uFEFF", "\u200D", "\u0301",  "\u0308",
      "👨",    "🇫",      "🇷",      "🏽",   "😀",       "￭",
      "％",   "％0020", "｟",     "｠",     "￨",       "￨C",
      "-",    "−",      "'",      "’",      ".",       ",",
      ";",    ":",      "!",      "?",      "(",       ")",
      "]",    "@",      "_",      "/",      "http://", "https://",
      "www.", "x.com",  "a@b.co", "ﬁ",      "Ｈ",      "²",
      "¼",    "¨",      "ℌ",      "Ⓐ",      "%",       "\"",
      "«",    "...",    "\u2028", "\r"};
  auto bpe = std::make_shared<const Bpe>(
      BpeCodes({{"l", "o"}, {"lo", "w</w>"}, {"a", "b"}, {"é", "t"}, {"x", ".</w>"}}));
  std::vector<Tokenizer> tokenizers;
  for (TokenizeMode mode : {TokenizeMode::kConservative, TokenizeMode::kAggressive}) {
    for (Normalization form : {Normalization::kNfc, Normalization::kNfkc, Normalization::kNone}) {
      for (int casing = 0; casing < 3; ++casing) {
        TokenizerOptions o;
        o.mode = mode;
        o.normalization = form;
        o.lowercase = casing == 1;
        o.case_feature = casing == 2;
        tokenizers.emplace_back(o);
        tokenizers.emplace_back(o, bpe);
      }
    }
  }
  std::mt19937 rng(11);
  std::uniform_int_distribution<size_t> pick(0, atoms.size() - 1), length(0, 24);
  int failures = 0;
  for (int round = 0; round < 1000; ++round) {
    std::string line;
    for (size_t n = length(rng); n > 0; --n) line += atoms[pick(rng)];
    for (const Tokenizer& t : tokenizers) {
      const std::string normalized = t.normalize(line);
      const Tokens tokens = t.tokenize(line);
      bool ok = t.detokenize(tokens) == normalized && t.normalize(normalized) == normalized &&
                t.tokenize(normalized) == tokens;
      for (const std::string& token : tokens) {
        ok = ok && !token.empty() && token.find(' ') == std::string::npos;
      }
      if (!ok && ++failures <= 5) {
        FAIL_CHECK("line '" << line << "' (mode " << to_string(t.options().mode) << ", "
                            << to_string(t.options().normalization) << ", lowercase "
                            << t.options().lowercase << ", case " << t.options().case_feature
                            << ", bpe " << (t.bpe() != nullptr) << "): tokens '"
                            << t.tokenize_line(line) << "' detokenize to '" << t.detokenize(tokens)
                            << "', normalize gives '" << normalized << "'");
      }
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("tokenizer: BPE applies to words with characters U+F000-U+FFFF that are not marks",
          "[text][fast]") {
  // Fullwidth letters share the lead byte 0xEF with the reserved marks but are ordinary text.
  auto bpe = std::make_shared<const text::Bpe>(
      text::BpeCodes::parse("#version: 0.2\n\xEF\xBC\xA1 \xEF\xBC\xA2</w>\n", "codes"));
  text::TokenizerOptions options;
  options.normalization = text::Normalization::kNfc;
  text::Tokenizer tokenizer(options, bpe);
  // "ＡＢＣ" → no merge for the last pair; "ＡＢ" → one piece.
  CHECK(tokenizer.tokenize_line("\xEF\xBC\xA1\xEF\xBC\xA2") == "\xEF\xBC\xA1\xEF\xBC\xA2");
  CHECK(tokenizer.tokenize_line("\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\xA3") ==
        "\xEF\xBC\xA1\xEF\xBF\xAD \xEF\xBC\xA2\xEF\xBF\xAD \xEF\xBC\xA3");
}

TEST_CASE("tokenizer: possible tokens hold every token of every BPE-dropout draw", "[text][fast]") {
  // Atoms that put words in every place a piece can take: glued to punctuation on either side,
  // joined words (CJK, aggressive splits), case humps, uppercase words (also non-ASCII ones,
  // whose pieces may not uppercase back), escapes and placeholders BPE leaves alone.
  const std::vector<std::string> atoms = {
      "lower",  "Lower", "LOWER", "newest", "NeWest", "McLowest", "ŁÓWEST", "wider", "low2er",
      "中文",   "(",     ")",     ",",      "'",      "-",        " ",      " ",     "％",
      "｟lo｠", "ǅlow",  "ßlow",  "x.com",  "lo-w",   "...",      "İlo",    "wé",    "ÉTÉ"};
  auto codes = BpeCodes::parse(
      "#version: 0.2\nl o\nlo w\ne r</w>\nlow er</w>\nn e\ne s\nes t</w>\nw i\nwi d\n"
      "ne w\nnew est</w>\nw é</w>\nt é</w>\n",
      "codes");
  BpeOptions half;
  half.dropout = 0.5f;
  auto bpe = std::make_shared<const Bpe>(codes, half);
  std::mt19937 pick_rng(5);
  std::uniform_int_distribution<size_t> pick(0, atoms.size() - 1), length(1, 12);
  int failures = 0;
  for (TokenizeMode mode : {TokenizeMode::kConservative, TokenizeMode::kAggressive}) {
    for (int casing = 0; casing < 2; ++casing) {
      TokenizerOptions o;
      o.mode = mode;
      o.case_feature = casing == 1;
      const Tokenizer t(o, bpe);
      for (int round = 0; round < 200; ++round) {
        std::string line;
        for (size_t n = length(pick_rng); n > 0; --n) line += atoms[pick(pick_rng)];
        Tokens possible;
        t.append_possible_tokens(line, possible);
        const std::set<std::string> set(possible.begin(), possible.end());
        Rng rng = make_rng(static_cast<uint64_t>(round));
        for (int draw = 0; draw <= 20; ++draw) {
          // The last draw is plain BPE (no rng).
          for (const std::string& token : t.tokenize(line, draw < 20 ? &rng : nullptr)) {
            if (!set.count(token) && ++failures <= 5) {
              FAIL_CHECK("line '" << line << "' (mode " << to_string(mode) << ", case "
                                  << o.case_feature << "): token '" << token
                                  << "' is not among the possible tokens");
            }
          }
        }
      }
    }
  }
  CHECK(failures == 0);
  // Without BPE the possible tokens are the tokens.
  const Tokenizer plain;
  Tokens tokens;
  plain.append_possible_tokens("Hello, world!", tokens);
  CHECK(tokens == plain.tokenize("Hello, world!"));
}
