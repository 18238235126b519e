#include "heed/common/strings.h"

#include <catch2/catch.hpp>

using namespace heed;

TEST_CASE("strings: split, join, trim", "[common][fast]") {
  CHECK(split("a,,b", ",") == std::vector<std::string>{"a", "", "b"});
  CHECK(join({"a", "b"}, "-") == "a-b");
  CHECK(trim("  a b\t") == "a b");
  CHECK(parse_int64("-12") == -12);
  CHECK_FALSE(parse_int64("12x"));
  CHECK_FALSE(parse_int64("99999999999999999999"));
}

TEST_CASE("strings: XML escaping", "[common][fast]") {
  CHECK(xml_escape("a<b>&\"'c") == "a&lt;b&gt;&amp;&quot;&apos;c");
  CHECK(xml_escape("Haus\uFFED t\u00FCr \u4E2D") == "Haus\uFFED t\u00FCr \u4E2D");
  CHECK(xml_escape("a\tb\nc") == "a&#9;b&#10;c");
  // Characters XML cannot hold, and bytes that are not UTF-8, become U+FFFD.
  CHECK(xml_escape(std::string("a\x01"
                               "b",
                               3)) == "a\uFFFDb");
  CHECK(xml_escape("\uFFFF") == "\uFFFD");
  CHECK(xml_escape("a\xFF"
                   "b") == "a\uFFFDb");
  CHECK(xml_escape("\xE4\xB8") == "\uFFFD\uFFFD");
  CHECK(xml_escape("\xC1\xBF") == "\uFFFD\uFFFD");  // overlong
  CHECK(xml_escape("\xED\xA0\x80") == "\uFFFD");    // a surrogate
}

TEST_CASE("strings: checked UTF-8 decoding", "[common][fast]") {
  const std::string text = "a\u00E9\xFF";
  size_t i = 0;
  CHECK(next_code_point_checked(text, i) == U'a');
  CHECK(next_code_point_checked(text, i) == U'\u00E9');
  CHECK(i == 3);
  CHECK(next_code_point_checked(text, i) == 0xFFFD);  // a byte that starts nothing
  CHECK(i == text.size());
}
