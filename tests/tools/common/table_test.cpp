// tools/common/table.h: numbers with fixed decimals, columns aligned in code points.
#include "common/table.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

using namespace heed;

TEST_CASE("table: numbers and aligned columns", "[options][fast]") {
  CHECK(cli::format_number(1.005, 1) == "1.0");
  CHECK(cli::format_number(2, 0) == "2");
  CHECK(cli::format_number(std::nan(""), 2) == "-");
  // "±" is one column wide; two spaces between columns; no trailing spaces.
  const auto lines = cli::aligned_lines({{"name", "mean ± sd", "x"}, {"a", "1 ± 2", ""}, {"bb"}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "name  mean ± sd  x");
  CHECK(lines[1] == "a     1 ± 2");
  CHECK(lines[2] == "bb");
  std::ostringstream out;
  cli::write_aligned(out, {{"a", "b"}, {"ccc", "d"}});
  CHECK(out.str() == "a    b\nccc  d\n");
}
