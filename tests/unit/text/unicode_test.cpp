#include "heed/text/unicode.h"

#include <catch2/catch.hpp>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "heed/common/error.h"

using namespace heed;
using namespace heed::text;

namespace {

// The segments of text by word_boundaries (or ascii_word_boundaries).
std::vector<std::string> segments(std::string_view text, bool ascii = false) {
  std::vector<size_t> ends;
  if (ascii) {
    ascii_word_boundaries(text, ends);
  } else {
    word_boundaries(text, ends);
  }
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t end : ends) {
    out.emplace_back(text.substr(begin, end - begin));
    begin = end;
  }
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("unicode: find_invalid_utf8 gives the offset of the first bad sequence", "[text][fast]") {
  CHECK_FALSE(find_invalid_utf8("").has_value());
  CHECK_FALSE(find_invalid_utf8("plain ASCII, long enough for the 8-byte path").has_value());
  CHECK_FALSE(
      find_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF").has_value());
  CHECK_FALSE(find_invalid_utf8(std::string("a\0b", 3)).has_value());  // NUL is valid

  CHECK(find_invalid_utf8("un \xFF deux") == 3u);
  CHECK(find_invalid_utf8("\x80") == 0u);                 // stray continuation byte
  CHECK(find_invalid_utf8("ab\xC0\xAF") == 2u);           // overlong '/'
  CHECK(find_invalid_utf8("\xC1\xBF") == 0u);             // overlong
  CHECK(find_invalid_utf8("x\xE0\x80\x80") == 1u);        // overlong 3-byte
  CHECK(find_invalid_utf8("xy\xED\xA0\x80") == 2u);       // surrogate U+D800
  CHECK(find_invalid_utf8("\xF0\x8F\xBF\xBF") == 0u);     // overlong 4-byte
  CHECK(find_invalid_utf8("abc\xF4\x90\x80\x80") == 3u);  // above U+10FFFF
  CHECK(find_invalid_utf8("abc\xF5\x80\x80\x80") == 3u);
  CHECK(find_invalid_utf8("0123456789abc\xE2\x82") == 13u);  // truncated at the end
  CHECK(find_invalid_utf8("0123456789\xC3\xA9xyz\xE2(\xAC") == 15u);
  CHECK(find_invalid_utf8("\xC3\xA9\xC3") == 2u);
}

TEST_CASE("unicode: replace_invalid_utf8 substitutes maximal subparts", "[text][fast]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(replace_invalid_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(replace_invalid_utf8("un \xFF deux") == "un " + fffd + " deux");
  CHECK(replace_invalid_utf8("a\xE2\x82z") == "a" + fffd + "z");  // one subpart
  CHECK(replace_invalid_utf8("a\xFF\xFEz") == "a" + fffd + fffd + "z");
  CHECK(replace_invalid_utf8("\xF0\x9F\x98") == fffd);  // truncated emoji
  CHECK(replace_invalid_utf8("\xED\xA0\x80") == fffd + fffd + fffd);
  CHECK(replace_invalid_utf8("\xC0\xAF") == fffd + fffd);
  CHECK(replace_invalid_utf8("\xF0\x9F\x98\x80\xFF") == "\xF0\x9F\x98\x80" + fffd);
  for (const char* bad : {"\xFF", "a\xE2\x82", "\xED\xA0\x80x", "\xC3"}) {
    CHECK_FALSE(find_invalid_utf8(replace_invalid_utf8(bad)).has_value());
  }
}

TEST_CASE("unicode: code points decode and encode", "[text][fast]") {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
  size_t pos = 0;
  CHECK(next_code_point(text, pos) == U'a');
  CHECK(next_code_point(text, pos) == U'\u00E9');
  CHECK(next_code_point(text, pos) == U'\u20AC');
  CHECK(next_code_point(text, pos) == U'\U0001F600');
  CHECK(pos == text.size());
  std::string out;
  for (char32_t c : {U'a', U'\u00E9', U'\u20AC', U'\U0001F600'}) append_utf8(out, c);
  CHECK(out == text);
  CHECK(is_ascii("hello, world 123"));
  CHECK_FALSE(is_ascii("hello w\xC3\xB6rld, longer than eight"));
}

TEST_CASE("unicode: NFC and NFKC", "[text][fast]") {
  std::string out;
  append_normalized("e\xCC\x81", Normalization::kNfc, out);  // e + combining acute
  CHECK(out == "\xC3\xA9");
  out.clear();
  append_normalized("\xEF\xAC\x81", Normalization::kNfc, out);  // ﬁ ligature stays
  CHECK(out == "\xEF\xAC\x81");
  out.clear();
  append_normalized("\xEF\xAC\x81", Normalization::kNfkc, out);
  CHECK(out == "fi");
  out.clear();
  append_normalized("\xEF\xBC\xA8\xEF\xBD\x85", Normalization::kNfkc, out);  // fullwidth He
  CHECK(out == "He");
  out.clear();
  append_normalized("e\xCC\x81", Normalization::kNone, out);
  CHECK(out == "e\xCC\x81");
  CHECK(is_normalized("\xC3\xA9", Normalization::kNfc));
  CHECK_FALSE(is_normalized("e\xCC\x81", Normalization::kNfc));
  CHECK(is_normalized("\xEF\xAC\x81", Normalization::kNfc));
  CHECK_FALSE(is_normalized("\xEF\xAC\x81", Normalization::kNfkc));
}

TEST_CASE("unicode: full case mapping of the root locale", "[text][fast]") {
  CHECK(to_upper("Stra\xC3\x9F"
                 "e") == "STRASSE");  // ß → SS
  CHECK(to_lower("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3") ==
        "\xCE\xBF\xCE\xB4\xCE\xBF\xCF\x82");   // ΟΔΟΣ → οδος (final sigma)
  CHECK(to_lower("\xC4\xB0") == "i\xCC\x87");  // İ → i + dot above
  CHECK(to_lower("HeLLo W\xC3\x96RLD") == "hello w\xC3\xB6rld");
  CHECK(to_upper("\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82") ==
        "\xD0\x9F\xD0\xA0\xD0\x98\xD0\x92\xD0\x95\xD0\xA2");  // привет → ПРИВЕТ
  CHECK(to_lower("ABC xyz 123") == "abc xyz 123");
}

TEST_CASE("unicode: code-point classes and scripts", "[text][fast]") {
  for (char32_t c : {U' ', U'\t', U'\n', U'\u00A0', U'\u202F', U'\u2009', U'\u3000', U'\u0085',
                     U'\u2028', U'\u1680'}) {
    CHECK(is_white_space(c));
  }
  CHECK_FALSE(is_white_space(U'\u200B'));  // ZERO WIDTH SPACE is not White_Space
  CHECK_FALSE(is_white_space(U'a'));
  CHECK(is_control(U'\0'));
  CHECK(is_control(U'\x7F'));
  CHECK(is_control(U'\u0090'));
  CHECK_FALSE(is_control(U'\u200D'));
  CHECK(is_format(U'\u200D'));  // ZWJ
  CHECK(is_format(U'\uFEFF'));
  CHECK(is_letter(U'\u00E9'));
  CHECK(is_letter(U'\u044F'));  // я
  CHECK(is_letter(U'\u4E2D'));  // 中
  CHECK(is_letter(U'\u0628'));  // ب
  CHECK_FALSE(is_letter(U'1'));
  CHECK(is_mark(U'\u0301'));
  CHECK(is_digit(U'7'));
  CHECK(is_digit(U'\u0663'));        // Arabic-Indic three
  CHECK_FALSE(is_digit(U'\u00B2'));  // superscript two is No, not Nd
  CHECK(is_punctuation(U','));
  CHECK(is_punctuation(U'\u060C'));  // Arabic comma
  CHECK(is_punctuation(U'\u00AB'));  // «
  CHECK(is_punctuation(U'\u3002'));  // 。
  CHECK(is_symbol(U'\u20AC'));       // €
  CHECK(is_symbol(U'\U0001F600'));   // 😀
  CHECK(changes_when_lowercased(U'A'));
  CHECK(changes_when_lowercased(U'\u00C9'));
  CHECK_FALSE(changes_when_lowercased(U'a'));
  CHECK_FALSE(changes_when_lowercased(U'\u00DF'));  // ß
  CHECK(script_code(U'a') == "Latn");
  CHECK(script_code(U'\u044F') == "Cyrl");
  CHECK(script_code(U'\u03B1') == "Grek");
  CHECK(script_code(U'\u0628') == "Arab");
  CHECK(script_code(U'\u4E2D') == "Hani");
  CHECK(script_code(U'\u3042') == "Hira");
  CHECK(script_code(U'1') == "Zyyy");
  CHECK(script_code(U'\u0301') == "Zinh");
}

TEST_CASE("unicode: ICU word boundaries", "[text][fast]") {
  CHECK(segments("").empty());
  CHECK(segments("Hello, world!") == Strings{"Hello", ",", " ", "world", "!"});
  CHECK(segments("l'avion 2,000 3.14 soft-landing") ==
        Strings{"l'avion", " ", "2,000", " ", "3.14", " ", "soft", "-", "landing"});
  CHECK(segments("\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82!") ==
        Strings{"\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82", "!"});
  // 我爱北京天安门 by the dictionary: 我 | 爱 | 北京 | 天安门
  CHECK(
      segments(
          "\xE6\x88\x91\xE7\x88\xB1\xE5\x8C\x97\xE4\xBA\xAC\xE5\xA4\xA9\xE5\xAE\x89\xE9\x97\xA8") ==
      Strings{"\xE6\x88\x91", "\xE7\x88\xB1", "\xE5\x8C\x97\xE4\xBA\xAC",
              "\xE5\xA4\xA9\xE5\xAE\x89\xE9\x97\xA8"});
  // Thai: สวัสดีครับ → สวัสดี | ครับ
  CHECK(segments("\xE0\xB8\xAA\xE0\xB8\xA7\xE0\xB8\xB1\xE0\xB8\xAA\xE0\xB8\x94\xE0\xB8\xB5"
                 "\xE0\xB8\x84\xE0\xB8\xA3\xE0\xB8\xB1\xE0\xB8\x9A")
            .size() == 2);
  // A ZWJ family, two flags, a thumb with a skin tone: one segment each.
  const std::string family =
      "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7\xE2\x80\x8D"
      "\xF0\x9F\x91\xA6";
  const std::string fr = "\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7";
  const std::string de = "\xF0\x9F\x87\xA9\xF0\x9F\x87\xAA";
  const std::string thumb = "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD";
  CHECK(segments(family + fr + de + thumb) == Strings{family, fr, de, thumb});
}

TEST_CASE("unicode: the ASCII fast path agrees with ICU", "[text][fast]") {
  const std::vector<std::string> fixed = {"Hello, world!",
                                          "e.g. U.S.A.",
                                          "don't 'quoted' a'",
                                          "2,000.50;3 1;2 a;b",
                                          "foo_bar _x_ 1_",
                                          "a..b 1,,2 .5 5. a.'b",
                                          "x\"y",
                                          "tab\there",
                                          "cr\r\nlf\n\nff\fvt\v",
                                          "  runs   of  spaces ",
                                          "http://example.com/a?b=c&d",
                                          "a:b 12:30",
                                          "1'000 a'1 1'a"};
  for (const std::string& text : fixed) {
    INFO(text);
    CHECK(segments(text, true) == segments(text));
  }
  // Random strings: half over a small alphabet of the interesting classes, half over all of
  // ASCII.
  std::mt19937 rng(7);
  const std::string alphabet = "aZ09.,;:'\"_- !?()@/\t\r\n\f";
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1), length(1, 12);
  std::uniform_int_distribution<int> any(0, 127);
  for (int round = 0; round < 10000; ++round) {
    std::string text;
    for (size_t n = length(rng); n > 0; --n) {
      text += round % 2 ? static_cast<char>(any(rng)) : alphabet[pick(rng)];
    }
    INFO(text);
    REQUIRE(segments(text, true) == segments(text));
  }
}

TEST_CASE("unicode: word boundaries from several threads", "[text][fast]") {
  const std::string text = "Le garçon mange. 我爱北京天安门 Привет, мир! 3.14";
  const Strings expected = segments(text);
  std::vector<Strings> results(2);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) results[t] = segments(text);
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(results[0] == expected);
  CHECK(results[1] == expected);
}

TEST_CASE("unicode: ICU errors become heed exceptions", "[text][fast]") {
  // UErrorCode values: U_MEMORY_ALLOCATION_ERROR = 7, U_INVALID_CHAR_FOUND = 10,
  // U_MISSING_RESOURCE_ERROR = 2.
  CHECK_THROWS_AS(detail::throw_icu_error(7, "normalize"), std::bad_alloc);
  CHECK_THROWS_AS(detail::throw_icu_error(10, "normalize"), DataError);
  CHECK_THROWS_AS(detail::throw_icu_error(2, "word break iterator"), InternalError);
  CHECK_THROWS_WITH(detail::throw_icu_error(2, "word break iterator"),
                    "ICU word break iterator: U_MISSING_RESOURCE_ERROR");
}
