// The JSON-lines attention format: what to_json_line writes, parse_json_line reads back, and
// every malformed line is one DataError naming the file and line.
#include "heed/align/soft_alignment.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;

TEST_CASE("soft alignment: a pair round-trips through its JSON line", "[align][fast]") {
  align::SoftAlignment pair;
  pair.id = 41;
  pair.source = {"das", "Haus￭", "tür", "\"<&>\""};
  pair.target = {"the", "door"};
  pair.source_words = {0, 1, 1, 2};
  pair.target_words = {0, 1};
  pair.weights = {{0.5f, 0.25f, 0.125f, 0.125f}, {0.f, 0.1f, 0.9f, 0.f}, {1.f, 0.f, 0.f, 0.f}};
  const std::string line = align::to_json_line(pair);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.rfind("{\"id\": 41, ", 0) == 0);
  const align::SoftAlignment back = align::parse_json_line(line, "a.jsonl", 3);
  CHECK(back.id == 41);
  CHECK(back.source == pair.source);
  CHECK(back.target == pair.target);
  CHECK(back.source_words == pair.source_words);
  CHECK(back.target_words == pair.target_words);
  CHECK(back.weights == pair.weights);  // these values are exact in six digits
}

TEST_CASE("soft alignment: malformed lines name the file and line", "[align][fast]") {
  const auto error = [](const std::string& line) {
    try {
      align::parse_json_line(line, "soft.jsonl", 7);
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string words = R"("source_words": [0], "target_words": [0], )";
  CHECK_THAT(error("not json"), Catch::StartsWith("soft.jsonl:7: not a JSON object"));
  CHECK_THAT(error(R"({"id": 0, "source": ["a"], "target": ["b"]})"),
             Catch::StartsWith("soft.jsonl:7: expected"));
  // Two rows are needed for one target token (the last is the </s> step).
  CHECK_THAT(
      error(R"({"id": 0, "source": ["a"], "target": ["b"], )" + words + R"("weights": [[1]]})"),
      Catch::Contains("1 target tokens need 2"));
  CHECK_THAT(error(R"({"id": 0, "source": ["a"], "target": ["b"], )" + words +
                   R"("weights": [[1], [0.5, 0.5]]})"),
             Catch::Contains("row 1 of \"weights\" has 2 columns"));
  CHECK_THAT(error(R"({"id": 0, "source": ["a"], "target": ["b"], "source_words": [1], )"
                   R"("target_words": [0], "weights": [[1], [1]]})"),
             Catch::Contains("\"source_words\" must number the words"));
  CHECK_THAT(error(R"({"id": 0, "source": ["a"], "target": ["b"], )" + words +
                   R"("weights": [[1], [1e300]]})"),
             Catch::Contains("\"weights\" row 1 is not a list of numbers in range"));
  CHECK_THAT(error(R"({"id": 1e30, "source": ["a"], "target": ["b"], )" + words +
                   R"("weights": [[1], [1]]})"),
             Catch::Contains("\"id\" is not an integer"));
  CHECK_THAT(error(R"({"id": -5, "source": ["a"], "target": ["b"], )" + words +
                   R"("weights": [[1], [1]]})"),
             Catch::Contains("\"id\" is not an integer >= 0"));
  CHECK_THAT(error(R"({"id": 0, "source": ["a"], "target": ["b"], "source_words": [1e30], )"
                   R"("target_words": [0], "weights": [[1], [1]]})"),
             Catch::Contains("\"source_words\" is not a list of numbers in range"));
}
