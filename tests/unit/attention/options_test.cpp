// A mechanism's typed options: defaults filled in, range and integrality checked, options of
// other mechanisms refused with a sentence naming both; the normaliser refused where a mechanism
// has none.
#include "heed/attention/options.h"

#include <catch2/catch.hpp>
#include <string>

#include "heed/attention/registry.h"
#include "heed/common/error.h"

using heed::attention::OptionSpec;
using heed::attention::OptionValues;

namespace {

std::vector<OptionSpec> specs() {
  OptionSpec heads;
  heads.name = "heads";
  heads.integer = true;
  heads.default_value = 4;
  heads.min = 1;
  heads.max = 64;
  OptionSpec weight;
  weight.name = "coverage-loss";
  weight.default_value = 0.5;
  weight.min = 0;
  weight.max = 10;
  return {heads, weight};
}

std::string error_of(const OptionValues& given) {
  try {
    heed::attention::resolve_options("demo", specs(), given);
  } catch (const heed::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("attention options: defaults, ranges, integers and foreign options",
          "[attention][fast]") {
  const OptionValues defaults = heed::attention::resolve_options("demo", specs(), {});
  CHECK(heed::attention::option_int(defaults, "heads") == 4);
  CHECK(heed::attention::option_value(defaults, "coverage-loss") == 0.5);
  const OptionValues set =
      heed::attention::resolve_options("demo", specs(), {{"heads", 8}, {"coverage-loss", 0}});
  CHECK(heed::attention::option_int(set, "heads") == 8);
  CHECK(heed::attention::option_value(set, "coverage-loss") == 0);
  // Resolving resolved values changes nothing (model files store them resolved).
  CHECK(heed::attention::resolve_options("demo", specs(), set) == set);

  CHECK(error_of({{"heads", 0}}) == "--heads must be an integer in [1, 64], not 0");
  CHECK(error_of({{"heads", 2.5}}) == "--heads must be an integer in [1, 64], not 2.5");
  CHECK(error_of({{"coverage-loss", 11}}) == "--coverage-loss must be a number in [0, 10], not 11");
  CHECK(error_of({{"window", 3}}) ==
        "--window does not apply to attention 'demo' (its options: --heads, --coverage-loss)");
  CHECK_THROWS_AS(heed::attention::option_value(defaults, "window"), heed::InternalError);
}

TEST_CASE("attention options: the registry refuses options and normalisers a mechanism lacks",
          "[attention][fast]") {
  heed::attention::AttentionConfig c;
  c.query_size = c.key_size = 4;
  c.options = {{"window", 3}};
  try {
    heed::attention::resolved_config("dot", c);
    FAIL("no error");
  } catch (const heed::ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "--window does not apply to attention 'dot' (it has no options)");
  }
  CHECK_THROWS_WITH(
      heed::attention::resolved_config("general", c),
      "--window does not apply to attention 'general' (its options: --identity-init)");
  c.options.clear();
  c.normalizer = heed::attention::Normalizer::kSparsemax;
  CHECK_NOTHROW(heed::attention::resolved_config("general", c));
  try {
    heed::attention::resolved_config("none", c);
    FAIL("no error");
  } catch (const heed::ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "--attention-normalizer sparsemax does not apply to attention 'none' (it has no "
          "normaliser)");
  }
  // Every declared option is declared consistently by the mechanisms sharing its name.
  CHECK_NOTHROW(heed::attention::declared_options());
}
