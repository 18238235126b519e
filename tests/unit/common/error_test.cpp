#include "heed/common/error.h"

#include <catch2/catch.hpp>
#include <new>

#include "heed/common/log.h"
#include "heed/common/strings.h"

using namespace heed;

TEST_CASE("error: exceptions map to sysexits codes", "[common][fast]") {
  CHECK(exit_code_for(ConfigError("x")) == 64);
  CHECK(exit_code_for(DataError("x")) == 65);
  CHECK(exit_code_for(FormatError("x")) == 65);
  CHECK(exit_code_for(FileError("x")) == 66);
  CHECK(exit_code_for(InternalError("x")) == 70);
  CHECK(exit_code_for(BackendError("x")) == 70);
  CHECK(exit_code_for(std::bad_alloc()) == 71);
  CHECK(exit_code_for(OutOfMemory("x")) == 71);
  CHECK(exit_code_for(Busy("x")) == 75);
  CHECK(exit_code_for(WriteError("x")) == 74);
  CHECK(exit_code_for(Interrupted(2)) == 130);
  CHECK(exit_code_for(Interrupted(15)) == 143);
  CHECK(exit_code_for(BrokenPipe()) == 0);
  CHECK(exit_code_for(std::runtime_error("x")) == 70);
}

TEST_CASE("error: at_line names the file and line", "[common][fast]") {
  CHECK(at_line("a.txt", 12, "bad") == "a.txt:12: bad");
  CHECK(at_line("-", 3, "bad") == "<stdin>:3: bad");
}

TEST_CASE("log: levels parse, print and shift", "[common][fast]") {
  CHECK(parse_log_level("debug") == LogLevel::kDebug);
  CHECK(parse_log_level("warning") == LogLevel::kWarn);
  CHECK_THROWS_AS(parse_log_level("loud"), ConfigError);
  CHECK(to_string(LogLevel::kInfo) == "info");
  CHECK(shift_log_level(LogLevel::kWarn, 1) == LogLevel::kInfo);
  CHECK(shift_log_level(LogLevel::kWarn, -1) == LogLevel::kError);
  CHECK(shift_log_level(LogLevel::kTrace, 3) == LogLevel::kTrace);
  CHECK(shift_log_level(LogLevel::kOff, -2) == LogLevel::kOff);
}

TEST_CASE("strings: split, trim, join", "[common][fast]") {
  CHECK(split("a ||| b ||| ", " ||| ") == std::vector<std::string>{"a", "b", ""});
  auto words = split_whitespace("  a\tb  c ");
  REQUIRE(words.size() == 3);
  CHECK(words[2] == "c");
  CHECK(trim(" \tx y\r\n") == "x y");
  CHECK(join({"a", "b"}, "-") == "a-b");
  CHECK(starts_with("heed", "he"));
  CHECK(ends_with("heed", "ed"));
  CHECK_FALSE(ends_with("d", "ed"));
}
