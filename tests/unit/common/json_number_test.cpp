// Checked JSON number reads: values the target type holds come through exactly, everything
// else (out of range, fractional for an integer, not a number) is refused without a cast.
#include "heed/common/json_number.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using heed::json_number;
using heed::json_numbers;
using nlohmann::json;

TEST_CASE("json_number: integers in range, whole floats, and nothing else", "[common][fast]") {
  CHECK(json_number<int>(json::parse("512")) == 512);
  CHECK(json_number<int>(json::parse("-3")) == -3);
  CHECK(json_number<int>(json::parse("512.0")) == 512);
  CHECK(json_number<int>(json::parse("2147483647")) == 2147483647);
  CHECK_FALSE(json_number<int>(json::parse("2147483648")));
  CHECK_FALSE(json_number<int>(json::parse("1e30")));
  CHECK_FALSE(json_number<int>(json::parse("-1e300")));
  CHECK_FALSE(json_number<int>(json::parse("0.5")));
  CHECK_FALSE(json_number<int>(json::parse("\"7\"")));
  CHECK_FALSE(json_number<int>(json::parse("true")));
  CHECK_FALSE(json_number<uint64_t>(json::parse("-1")));
  CHECK(json_number<uint64_t>(json::parse("18446744073709551615")) == UINT64_MAX);
  CHECK_FALSE(json_number<int64_t>(json::parse("18446744073709551615")));
  CHECK(json_number<int64_t>(json::parse("-9223372036854775808")) == INT64_MIN);
}

TEST_CASE("json_number: floats refuse what a float cannot hold", "[common][fast]") {
  CHECK(json_number<float>(json::parse("0.25")) == 0.25f);
  CHECK(json_number<float>(json::parse("3")) == 3.0f);
  CHECK(json_number<float>(json::parse("-3.0e38")) == -3.0e38f);
  CHECK_FALSE(json_number<float>(json::parse("1e39")));
  CHECK_FALSE(json_number<float>(json::parse("-1e300")));
  CHECK(json_number<double>(json::parse("1e300")) == 1e300);
  CHECK_FALSE(json_number<double>(json::parse("null")));
}

TEST_CASE("json_numbers: every element must fit", "[common][fast]") {
  CHECK(json_numbers<int>(json::parse("[1, 2, 3]")) == std::vector<int>{1, 2, 3});
  CHECK(json_numbers<int>(json::parse("[]")) == std::vector<int>{});
  CHECK_FALSE(json_numbers<int>(json::parse("[1, 1e30]")));
  CHECK_FALSE(json_numbers<int>(json::parse("{\"a\": 1}")));
  CHECK_FALSE(json_numbers<float>(json::parse("[0.5, \"x\"]")));
}
