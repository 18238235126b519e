#include "heed/text/input_check.h"

#include <catch2/catch.hpp>
#include <string>

#include "heed/common/error.h"

using namespace heed;
using text::OnInvalid;

namespace {
std::string bytes(const char* data, size_t size) {
  return std::string(data, size);
}
}  // namespace

TEST_CASE("input_check: ill-formed UTF-8 and NUL bytes are found at their first byte",
          "[text][fast]") {
  CHECK_FALSE(text::find_invalid_text("plain ASCII, é, 北京, 😀"));
  CHECK_FALSE(text::find_invalid_text(""));
  CHECK(text::find_invalid_text("ab\xFF") == 2u);
  CHECK(text::find_invalid_text(bytes("a\0b", 3)) == 1u);
  CHECK(text::find_invalid_text(bytes("\xFF\0", 2)) == 0u);  // whichever comes first
  CHECK(text::find_invalid_text(bytes("ab\0\xFF", 4)) == 2u);
  CHECK(text::find_invalid_text(bytes("a\xE2\0", 3)) == 1u);  // a sequence cut by the NUL
  CHECK(text::describe_invalid_text("ab\xFF", 2) == "invalid UTF-8 at byte 3");
  CHECK(text::describe_invalid_text(bytes("a\0b", 3), 1) == "NUL byte at byte 2");
}

TEST_CASE("input_check: replacement gives U+FFFD per maximal subpart and per NUL", "[text][fast]") {
  CHECK(text::replace_invalid_text("fine") == "fine");
  CHECK(text::replace_invalid_text("a\xE2\x82z") == "a\uFFFDz");
  CHECK(text::replace_invalid_text(bytes("a\0\0b\xFF", 5)) == "a\uFFFD\uFFFDb\uFFFD");
  CHECK_FALSE(text::find_invalid_text(text::replace_invalid_text(bytes("\xC0\0\xED\xA0\x80", 5))));
}

TEST_CASE("input_check: checked_line under each policy", "[text][fast]") {
  std::string storage;
  const std::string good = "Grüße";
  // A good line is returned as it is, without a copy.
  CHECK(text::checked_line(good, OnInvalid::kError, "f", 1, storage).data() == good.data());
  const std::string bad = "caf\xE9 noir";
  CHECK_THROWS_AS(text::checked_line(bad, OnInvalid::kError, "in.txt", 7, storage), DataError);
  CHECK_THROWS_WITH(text::checked_line(bad, OnInvalid::kError, "in.txt", 7, storage),
                    "in.txt:7: invalid UTF-8 at byte 4 (see --on-invalid)");
  CHECK_THROWS_WITH(text::checked_line(bytes("a\0", 2), OnInvalid::kError, "-", 2, storage),
                    "<stdin>:2: NUL byte at byte 2 (see --on-invalid)");
  CHECK(text::checked_line(bad, OnInvalid::kReplace, "in.txt", 7, storage) == "caf\uFFFD noir");
  CHECK(text::checked_line(bad, OnInvalid::kSkip, "in.txt", 7, storage).empty());
}

TEST_CASE("input_check: --on-invalid values", "[text][fast]") {
  CHECK(text::parse_on_invalid("error", false) == OnInvalid::kError);
  CHECK(text::parse_on_invalid("replace", false) == OnInvalid::kReplace);
  CHECK(text::parse_on_invalid("skip", true) == OnInvalid::kSkip);
  CHECK_THROWS_WITH(text::parse_on_invalid("skip", false),
                    "--on-invalid: unknown value 'skip' (expected error, replace)");
  CHECK_THROWS_AS(text::parse_on_invalid("ignore", true), ConfigError);
}
