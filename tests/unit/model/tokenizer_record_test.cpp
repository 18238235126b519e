#include "heed/model/tokenizer_record.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;

TEST_CASE("tokenizer record: what heed-train records is read back as it was", "[model][fast]") {
  model::TokenizerRecord written;
  written.options.mode = text::TokenizeMode::kAggressive;
  written.options.normalization = text::Normalization::kNfkc;
  written.options.case_feature = true;
  written.bpe_codes = "#version: 0.2\na b\n";
  std::map<std::string, std::string> extra{{"other", "kept"}};
  model::record_tokenizer(written, extra);
  CHECK(extra.at("other") == "kept");
  const auto read = model::recorded_tokenizer(extra);
  REQUIRE(read);
  CHECK(read->options.mode == written.options.mode);
  CHECK(read->options.normalization == written.options.normalization);
  CHECK(read->options.lowercase == false);
  CHECK(read->options.case_feature == true);
  CHECK(read->bpe_codes == written.bpe_codes);

  // Without BPE codes, no key for them.
  std::map<std::string, std::string> plain;
  model::record_tokenizer({}, plain);
  CHECK(plain.count("bpe_codes") == 0);
  REQUIRE(model::recorded_tokenizer(plain));
  CHECK(model::recorded_tokenizer(plain)->bpe_codes.empty());
}

TEST_CASE("tokenizer record: none without a mode, NFC when the form is not recorded",
          "[model][fast]") {
  CHECK_FALSE(model::recorded_tokenizer({}));
  CHECK_FALSE(model::recorded_tokenizer({{"unrelated", "x"}}));
  // Models written before the form was recorded were all trained on NFC text.
  const auto old = model::recorded_tokenizer({{"tokenizer_mode", "conservative"}});
  REQUIRE(old);
  CHECK(old->options.normalization == text::Normalization::kNfc);
}

TEST_CASE("tokenizer record: a value heed-train never writes is refused naming its key",
          "[model][fast]") {
  using Extra = std::map<std::string, std::string>;
  CHECK_THROWS_WITH(model::recorded_tokenizer(Extra{{"tokenizer_mode", "bogus"}}),
                    Catch::StartsWith("tokenizer_mode: "));
  // Checked also where no mode makes a record (no model heed-train writes is like that).
  CHECK_THROWS_WITH(model::recorded_tokenizer(Extra{{"tokenizer_lowercase", "yes"}}),
                    "tokenizer_lowercase is 'yes', not 0 or 1");
  CHECK_THROWS_AS(model::recorded_tokenizer(Extra{{"tokenizer_mode", "conservative"},
                                                  {"tokenizer_normalization", "nfd"}}),
                  ConfigError);
}
