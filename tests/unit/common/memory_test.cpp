#include "heed/common/memory.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>
#include <string>

#include "heed/common/error.h"

using namespace heed;

TEST_CASE("sizes past the machine's memory are refused with the sizes and what to lower",
          "[common][fast]") {
  const double memory = physical_memory_bytes();
  REQUIRE(memory > 0.0);
  CHECK_NOTHROW(check_fits_in_memory(memory / 2, "--batch-size 2: an update"));
  try {
    check_fits_in_memory(4 * memory, "--batch-size 9: an update", "lower --batch-size");
    FAIL("no error");
  } catch (const ConfigError& e) {
    // Four times the memory, in GiB to three digits, and the memory itself to one decimal.
    const std::string message = e.what();
    CHECK(std::regex_match(message, std::regex("--batch-size 9: an update could need [0-9.e+]+ "
                                               "GiB, more than the [0-9]+\\.[0-9] GiB of "
                                               "memory here; lower --batch-size")));
    const double gib = double(1 << 30);
    char needed[32];
    std::snprintf(needed, sizeof needed, "%.3g GiB", 4 * memory / gib);
    CHECK(message.find(needed) != std::string::npos);
  }
  // Without advice the message ends at "here".
  CHECK_THROWS_WITH(check_fits_in_memory(1e300, "--dims 9: the keys"),
                    Catch::Matches("--dims 9: the keys could need .* of memory here"));
}
